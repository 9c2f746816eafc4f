package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// A part file holds the records one flush wrote, immutable once renamed
// into place:
//
//	header   64 bytes: magic "PRFVEC01", dims, count, code words, mean epoch
//	         (u32 each), then the offsets of the sections (u64 each)
//	hashes   count × 16 bytes: the text hash of each record
//	codes    count × words × 8 bytes: the sign code of each vector minus
//	         the generation's mean (bit i set: component i above the mean)
//	vectors  count × dims × 4 bytes: the unit vectors, float32
//	idindex  (count+1) × 4 bytes: offsets of the passage ids in idblob
//	idblob   the passage ids, back to back
//
// All integers and floats are little-endian.

const (
	partMagic  = "PRFVEC01"
	headerSize = 64
	hashSize   = 16
)

// Hash identifies an embedded text (the first 16 bytes of its SHA-256).
type Hash [hashSize]byte

// partHeader is a part file's header.
type partHeader struct {
	dims, count, words, epoch uint32
	hashes, codes, vectors    uint64
	idIndex, idBlob, size     uint64
}

func (h partHeader) encode() []byte {
	b := make([]byte, headerSize)
	copy(b, partMagic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], h.dims)
	le.PutUint32(b[12:], h.count)
	le.PutUint32(b[16:], h.words)
	le.PutUint32(b[20:], h.epoch)
	le.PutUint64(b[24:], h.hashes)
	le.PutUint64(b[32:], h.codes)
	le.PutUint64(b[40:], h.vectors)
	le.PutUint64(b[48:], h.idIndex)
	le.PutUint64(b[56:], h.idBlob)
	return b
}

func decodeHeader(b []byte, size int64) (partHeader, error) {
	if len(b) < headerSize || string(b[:8]) != partMagic {
		return partHeader{}, errors.New("not a vector part file")
	}
	le := binary.LittleEndian
	h := partHeader{
		dims: le.Uint32(b[8:]), count: le.Uint32(b[12:]), words: le.Uint32(b[16:]), epoch: le.Uint32(b[20:]),
		hashes: le.Uint64(b[24:]), codes: le.Uint64(b[32:]), vectors: le.Uint64(b[40:]),
		idIndex: le.Uint64(b[48:]), idBlob: le.Uint64(b[56:]), size: uint64(size),
	}
	n := uint64(h.count)
	ok := h.dims > 0 && h.words == codeWords(int(h.dims)) &&
		h.hashes == headerSize && h.codes == h.hashes+n*hashSize &&
		h.vectors == h.codes+n*uint64(h.words)*8 && h.idIndex == h.vectors+n*uint64(h.dims)*4 &&
		h.idBlob == h.idIndex+(n+1)*4 && h.idBlob <= h.size
	if !ok {
		return partHeader{}, errors.New("its header does not match its size")
	}
	return h, nil
}

// codeWords is the number of 64-bit words of a code of dims bits.
func codeWords(dims int) uint32 { return uint32((dims + 63) / 64) }

// record is one embedded passage on its way into a part.
type record struct {
	hash Hash
	id   string
	vec  []float32
}

// encodeCode writes the sign code of v - mean into code.
func encodeCode(code []uint64, v, mean []float32) {
	for i := range code {
		code[i] = 0
	}
	for i, x := range v {
		if x > mean[i] {
			code[i>>6] |= 1 << (uint(i) & 63)
		}
	}
}

// partWriter writes a part file of a known number of records, in any
// number of appends, through a temporary file that commit syncs and renames
// into place.
type partWriter struct {
	path, tmp string
	f         *os.File
	h         partHeader
	mean      []float32
	next      int    // records written
	idOff     uint32 // bytes of ids written
	err       error
}

func newPartWriter(path string, dims, count, epoch int, mean []float32) (*partWriter, error) {
	words := codeWords(dims)
	n := uint64(count)
	h := partHeader{dims: uint32(dims), count: uint32(count), words: words, epoch: uint32(epoch), hashes: headerSize}
	h.codes = h.hashes + n*hashSize
	h.vectors = h.codes + n*uint64(words)*8
	h.idIndex = h.vectors + n*uint64(dims)*4
	h.idBlob = h.idIndex + (n+1)*4
	pw := &partWriter{path: path, tmp: path + ".tmp", h: h, mean: mean}
	f, err := os.Create(pw.tmp)
	if err != nil {
		return nil, err
	}
	pw.f = f
	if _, err := f.WriteAt(h.encode(), 0); err != nil {
		pw.abort()
		return nil, err
	}
	return pw, nil
}

// add writes the next records.
func (pw *partWriter) add(recs []record) error {
	if pw.err != nil {
		return pw.err
	}
	if pw.next+len(recs) > int(pw.h.count) {
		return fmt.Errorf("internal error: %d records for a part of %d", pw.next+len(recs), pw.h.count)
	}
	dims, words := int(pw.h.dims), int(pw.h.words)
	hashes := make([]byte, 0, len(recs)*hashSize)
	codes := make([]byte, len(recs)*words*8)
	vecs := make([]byte, len(recs)*dims*4)
	index := make([]byte, len(recs)*4)
	var ids []byte
	code := make([]uint64, words)
	for i, r := range recs {
		if len(r.vec) != dims {
			return fmt.Errorf("internal error: a vector of %d dimensions in a part of %d", len(r.vec), dims)
		}
		hashes = append(hashes, r.hash[:]...)
		encodeCode(code, r.vec, pw.mean)
		for j, c := range code {
			binary.LittleEndian.PutUint64(codes[(i*words+j)*8:], c)
		}
		for j, x := range r.vec {
			binary.LittleEndian.PutUint32(vecs[(i*dims+j)*4:], math.Float32bits(x))
		}
		binary.LittleEndian.PutUint32(index[i*4:], pw.idOff+uint32(len(ids)))
		ids = append(ids, r.id...)
	}
	at := uint64(pw.next)
	for _, w := range []struct {
		off uint64
		b   []byte
	}{
		{pw.h.hashes + at*hashSize, hashes},
		{pw.h.codes + at*uint64(words)*8, codes},
		{pw.h.vectors + at*uint64(dims)*4, vecs},
		{pw.h.idIndex + at*4, index},
		{pw.h.idBlob + uint64(pw.idOff), ids},
	} {
		if _, err := pw.f.WriteAt(w.b, int64(w.off)); err != nil {
			pw.err = err
			return err
		}
	}
	pw.next += len(recs)
	pw.idOff += uint32(len(ids))
	return nil
}

// commit writes the end of the id index, syncs and renames the part into
// place.
func (pw *partWriter) commit() error {
	if pw.err == nil && pw.next != int(pw.h.count) {
		pw.err = fmt.Errorf("internal error: %d records written of %d", pw.next, pw.h.count)
	}
	if pw.err != nil {
		pw.abort()
		return pw.err
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], pw.idOff)
	if _, err := pw.f.WriteAt(b[:], int64(pw.h.idIndex)+int64(pw.h.count)*4); err != nil {
		pw.abort()
		return err
	}
	if err := pw.f.Sync(); err != nil {
		pw.abort()
		return err
	}
	if err := pw.f.Close(); err != nil {
		os.Remove(pw.tmp)
		return err
	}
	if err := os.Rename(pw.tmp, pw.path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(pw.path))
}

func (pw *partWriter) abort() {
	pw.f.Close()
	os.Remove(pw.tmp)
}

// writePart writes records to a new part file at path.
func writePart(path string, dims, epoch int, mean []float32, recs []record) error {
	pw, err := newPartWriter(path, dims, len(recs), epoch, mean)
	if err != nil {
		return err
	}
	if err := pw.add(recs); err != nil {
		pw.abort()
		return err
	}
	return pw.commit()
}

// part is a part file opened for reading.
type part struct {
	id int
	f  *os.File
	h  partHeader
}

func openPart(dir string, id int) (*part, error) {
	f, err := os.Open(partPath(dir, id))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	b := make([]byte, headerSize)
	if _, err := io.ReadFull(f, b); err != nil {
		f.Close()
		return nil, fmt.Errorf("part %d: %w", id, err)
	}
	h, err := decodeHeader(b, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("part %d: %w", id, err)
	}
	return &part{id: id, f: f, h: h}, nil
}

func (p *part) close() error { return p.f.Close() }

// hashes reads every record's text hash.
func (p *part) hashes() ([]Hash, error) {
	b := make([]byte, int(p.h.count)*hashSize)
	if _, err := p.f.ReadAt(b, int64(p.h.hashes)); err != nil {
		return nil, err
	}
	out := make([]Hash, p.h.count)
	for i := range out {
		copy(out[i][:], b[i*hashSize:])
	}
	return out, nil
}

// readCodes appends the codes of records [start, start+n) to dst, read in
// chunks (the whole section is never held twice in memory).
func (p *part) readCodes(dst []uint64, start, n int) ([]uint64, error) {
	w := int(p.h.words)
	const chunk = 8192
	b := make([]byte, min(n, chunk)*w*8)
	for lo := 0; lo < n; lo += chunk {
		k := min(chunk, n-lo)
		buf := b[:k*w*8]
		if _, err := p.f.ReadAt(buf, int64(p.h.codes)+int64((start+lo)*w*8)); err != nil {
			return dst, err
		}
		for i := 0; i < k*w; i++ {
			dst = append(dst, binary.LittleEndian.Uint64(buf[i*8:]))
		}
	}
	return dst, nil
}

// readVector reads record slot's vector into v (len dims), using buf
// (len dims×4) for the bytes.
func (p *part) readVector(slot int, v []float32, buf []byte) error {
	if _, err := p.f.ReadAt(buf, int64(p.h.vectors)+int64(slot)*int64(len(buf))); err != nil {
		return err
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[i*4:]))
	}
	return nil
}

// readVectors reads the vectors of records [start, start+n) into dst
// (n×dims floats).
func (p *part) readVectors(start, n int, dst []float32) error {
	dims := int(p.h.dims)
	b := make([]byte, n*dims*4)
	if _, err := p.f.ReadAt(b, int64(p.h.vectors)+int64(start*dims*4)); err != nil {
		return err
	}
	for i := range dst[:n*dims] {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	return nil
}

// passageID reads record slot's passage id.
func (p *part) passageID(slot int) (string, error) {
	var b [8]byte
	if _, err := p.f.ReadAt(b[:], int64(p.h.idIndex)+int64(slot)*4); err != nil {
		return "", err
	}
	lo, hi := binary.LittleEndian.Uint32(b[:]), binary.LittleEndian.Uint32(b[4:])
	if hi < lo || p.h.idBlob+uint64(hi) > p.h.size {
		return "", fmt.Errorf("part %d: record %d has a damaged id", p.id, slot)
	}
	s := make([]byte, hi-lo)
	if _, err := p.f.ReadAt(s, int64(p.h.idBlob)+int64(lo)); err != nil {
		return "", err
	}
	return string(s), nil
}

func partPath(dir string, id int) string { return filepath.Join(dir, fmt.Sprintf("p-%06d.vec", id)) }

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
