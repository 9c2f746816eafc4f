package vector

import "testing"

// A part file's header may be damaged: decodeHeader refuses what does not
// describe a file of its size, and never panics.
func FuzzDecodeHeader(f *testing.F) {
	good := partHeader{dims: 8, count: 2, words: 1, epoch: 1, hashes: headerSize}
	good.codes = good.hashes + 2*hashSize
	good.vectors = good.codes + 2*8
	good.idIndex = good.vectors + 2*8*4
	good.idBlob = good.idIndex + 3*4
	f.Add(good.encode(), int64(good.idBlob+4))
	f.Add([]byte("PRFVEC01"), int64(64))
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		h, err := decodeHeader(b, size)
		if err == nil && (h.dims == 0 || h.idBlob > uint64(size)) {
			t.Fatalf("accepted %+v for a file of %d bytes", h, size)
		}
	})
}
