package local

import "hash/maphash"

// idFilter is a Bloom filter of passage ids: it answers "certainly not
// added" or "maybe added". A writer of a corpus that was empty when it
// opened keeps one of the ids it queued, so that checking a new id (every
// line of a .jsonl file is checked for duplicates) needs no lookup in the
// index unless the filter says maybe.
//
// 2^25 bits (4 MiB, allocated on first use) with 4 probes: about 1 false
// "maybe" in 70,000 ids after a million ids, 1 in 20 after ten million;
// a false "maybe" only costs the lookup the filter saves otherwise.
type idFilter struct {
	bits []uint64
	seed maphash.Seed
}

const (
	idFilterBits   = 1 << 25
	idFilterProbes = 4
)

func (f *idFilter) add(id string) {
	if f.bits == nil {
		f.bits = make([]uint64, idFilterBits/64)
		f.seed = maphash.MakeSeed()
	}
	h1, h2 := f.hashes(id)
	for i := uint64(0); i < idFilterProbes; i++ {
		b := (h1 + i*h2) % idFilterBits
		f.bits[b/64] |= 1 << (b % 64)
	}
}

// mayHold reports whether id may have been added.
func (f *idFilter) mayHold(id string) bool {
	if f.bits == nil {
		return false
	}
	h1, h2 := f.hashes(id)
	for i := uint64(0); i < idFilterProbes; i++ {
		b := (h1 + i*h2) % idFilterBits
		if f.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// hashes are the two hashes probes are derived from (double hashing).
func (f *idFilter) hashes(id string) (uint64, uint64) {
	h := maphash.String(f.seed, id)
	return h, (h>>32 | h<<32) | 1
}
