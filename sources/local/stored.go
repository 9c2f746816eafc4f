package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/golang/snappy"

	"github.com/prefrag/prefrag/sources"
)

// Stored passages are read from the segment files with pread, not through
// the memory map Bleve reads the index with.
//
// The stored passages are most of an index (about three quarters at a
// million passages), and a query reads a few dozen of them from anywhere in
// it: through the map, each read makes the kernel map the 64 KiB around it
// into the process, so that after a few hundred questions the whole of
// them counts in the process's resident memory. Read with pread they are
// the same page cache, shared and dropped first under pressure, and the
// process maps only the postings it searches.
//
// A record is zap v17's (github.com/blevesearch/zapx/v17, new.go
// writeStoredFields): two uvarints (the lengths of meta and data), meta
// (uvarints: the id's length, then for each stored field its number, type,
// offset and length in the uncompressed data and its array positions),
// data (the id, then the other fields' values, Snappy-compressed). The
// record offsets are an array of big-endian uint64 at the footer's stored
// index offset. A segment of another version, or written through file
// callbacks (encryption), is read through Bleve.

// storedSegment is what the reader needs of a zap v17 segment.
type storedSegment interface {
	Path() string
	Version() uint32
	Data() []byte
	StoredIndexOffset() uint64
	NumDocs() uint64
	Fields() []string
}

// zap's footer: its fixed part, and the version whose records this file
// reads.
const (
	zapFooterSize   = 4 + 4 + 4 + 4 + 8 + 8 + 8
	zapStoredFormat = 17
	// storedWindow is the first read of a record: a passage's record
	// (its header, meta and compressed fields) usually fits.
	storedWindow = 4 << 10
)

// storedFiles holds the segment files an open index reads passages from.
type storedFiles struct {
	mu    sync.Mutex
	files map[string]*os.File
	bufs  sync.Pool
}

// close closes the files.
func (sf *storedFiles) close() error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	var errs []error
	for _, f := range sf.files {
		errs = append(errs, f.Close())
	}
	sf.files = nil
	return errors.Join(errs...)
}

// file returns the open file of a segment.
func (sf *storedFiles) file(path string) (*os.File, error) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if f, ok := sf.files[path]; ok {
		return f, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if sf.files == nil {
		sf.files = make(map[string]*os.File)
	}
	sf.files[path] = f
	return f, nil
}

// readable reports whether this file reads s's records itself.
func readable(s storedSegment) bool {
	data := s.Data()
	if s.Version() != zapStoredFormat || len(data) < zapFooterSize {
		return false
	}
	// The file callbacks' id, before the fixed footer, is empty when the
	// records are written as they are.
	return binary.BigEndian.Uint32(data[len(data)-zapFooterSize:]) == 0
}

// passage loads the id and stored fields of passage num of segment s.
func (sf *storedFiles) passage(s *scorch.SegmentSnapshot, num uint64) (sources.Document, error) {
	zs, ok := s.Segment().(storedSegment)
	if !ok || !readable(zs) {
		return visitedPassage(s, num)
	}
	if num >= zs.NumDocs() {
		return sources.Document{}, fmt.Errorf("stored passage %d of a segment of %d", num, zs.NumDocs())
	}
	data := zs.Data()
	at := zs.StoredIndexOffset() + 8*num
	if at+8 > uint64(len(data)) {
		return sources.Document{}, fmt.Errorf("stored passage %d: its offset is past the end of %s", num, zs.Path())
	}
	off := binary.BigEndian.Uint64(data[at : at+8])
	f, err := sf.file(zs.Path())
	if err != nil {
		return sources.Document{}, err
	}
	bufs, _ := sf.bufs.Get().(*recordBuffers)
	if bufs == nil {
		bufs = new(recordBuffers)
	}
	defer sf.bufs.Put(bufs)
	meta, rec, err := readRecord(f, int64(off), &bufs.raw)
	if err != nil {
		return sources.Document{}, fmt.Errorf("stored passage %d of %s: %w", num, zs.Path(), err)
	}
	d, err := decodeRecord(meta, rec, zs.Fields(), &bufs.plain)
	if err != nil {
		return sources.Document{}, fmt.Errorf("stored passage %d of %s: %w", num, zs.Path(), err)
	}
	return d, nil
}

// recordBuffers are the bytes of one record as read and its fields
// uncompressed, reused from passage to passage.
type recordBuffers struct{ raw, plain []byte }

// readRecord reads the record at off into *buf and returns its meta and
// its data.
func readRecord(f io.ReaderAt, off int64, buf *[]byte) (meta, data []byte, err error) {
	b := (*buf)[:cap(*buf)]
	if len(b) < storedWindow {
		b = make([]byte, storedWindow)
	}
	n, err := f.ReadAt(b[:storedWindow], off)
	if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
		return nil, nil, err
	}
	metaLen, k1 := binary.Uvarint(b[:n])
	if k1 <= 0 {
		return nil, nil, errors.New("bad record header")
	}
	dataLen, k2 := binary.Uvarint(b[k1:n])
	if k2 <= 0 {
		return nil, nil, errors.New("bad record header")
	}
	head := uint64(k1 + k2)
	if metaLen > 1<<30 || dataLen > 1<<30 {
		return nil, nil, errors.New("bad record length")
	}
	end := head + metaLen + dataLen
	if end > uint64(len(b)) {
		grown := make([]byte, end)
		copy(grown, b[:n])
		b = grown
	}
	*buf = b
	if end > uint64(n) {
		if _, err := f.ReadAt(b[n:end], off+int64(n)); err != nil {
			return nil, nil, err
		}
	}
	return b[head : head+metaLen], b[head+metaLen : end], nil
}

// decodeRecord decodes a record's meta and data into a passage; fields are
// the segment's field names by number. The fields are uncompressed into
// *plain.
func decodeRecord(meta, data []byte, fields []string, plain *[]byte) (sources.Document, error) {
	var d sources.Document
	r := metaReader{b: meta}
	idLen := r.next()
	if r.err != nil || idLen > uint64(len(data)) {
		return d, errors.New("bad record id")
	}
	d.ID = string(data[:idLen])
	n, err := snappy.DecodedLen(data[idLen:])
	if err != nil {
		return d, fmt.Errorf("record fields: %w", err)
	}
	if n > 32*len(data)+64 {
		// More than Snappy can expand these bytes to: a damaged length.
		return d, errors.New("bad record length")
	}
	if cap(*plain) < n {
		*plain = make([]byte, n)
	}
	text, err := snappy.Decode((*plain)[:cap(*plain)], data[idLen:])
	if err != nil {
		return d, fmt.Errorf("record fields: %w", err)
	}
	for !r.done() {
		field, _, offset, length := r.next(), r.next(), r.next(), r.next()
		for positions := r.next(); positions > 0 && r.err == nil; positions-- {
			r.next()
		}
		if r.err != nil || field >= uint64(len(fields)) || offset > uint64(len(text)) || length > uint64(len(text))-offset {
			return d, errors.New("bad record field")
		}
		setStoredField(&d, fields[field], text[offset:offset+length])
	}
	return d, nil
}

// setStoredField sets the passage field name stores.
func setStoredField(d *sources.Document, name string, value []byte) {
	switch name {
	case fieldTitle:
		d.Title = string(value)
	case fieldText:
		d.Text = string(value)
	case fieldLoc:
		d.Locator = string(value)
	case fieldURL:
		d.URL = string(value)
	}
}

// metaReader reads a record's meta, a run of uvarints; err is set on the
// first that is not one.
type metaReader struct {
	b   []byte
	err error
}

func (r *metaReader) done() bool { return len(r.b) == 0 || r.err != nil }

func (r *metaReader) next() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad record meta")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// visitedPassage loads a passage through Bleve.
func visitedPassage(s *scorch.SegmentSnapshot, num uint64) (sources.Document, error) {
	var d sources.Document
	err := s.VisitDocument(num, func(field string, _ byte, value []byte, _ []uint64) bool {
		if field == "_id" {
			d.ID = string(value)
		} else {
			setStoredField(&d, field, value)
		}
		return true
	})
	return d, err
}
