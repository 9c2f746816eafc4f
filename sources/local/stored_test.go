package local

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/golang/snappy"

	"github.com/prefrag/prefrag/sources"
)

// snapshotSegments returns the segments of an open corpus's index.
func snapshotSegments(t *testing.T, h *handle) ([]*scorch.SegmentSnapshot, func()) {
	t.Helper()
	adv, err := h.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r.(*scorch.IndexSnapshot).Segments(), func() { r.Close() }
}

// TestStoredPassagesMatchBleve: every passage of every segment (deleted
// ones too) reads the same through pread as through Bleve, id and fields,
// on segments of several sizes, with locators, URLs, long and non-ASCII
// texts; and the segments the corpus writes are the ones read by pread.
func TestStoredPassagesMatchBleve(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	long := strings.Repeat("a passage longer than the first read of a record, ", 400)
	for part := 0; part < 3; part++ {
		var recs []map[string]string
		for i := 0; i < 60+part*40; i++ {
			rec := map[string]string{"id": fmt.Sprintf("p%d-%03d", part, i), "title": fmt.Sprintf("Title %d «ü» %d", part, i), "text": fmt.Sprintf("text %d of part %d, Ωmega", i, part)}
			switch i % 5 {
			case 1:
				rec["url"] = fmt.Sprintf("https://example.org/%d/%d", part, i)
			case 2:
				rec["text"] = long + rec["text"]
			case 3:
				rec["title"] = ""
			}
			recs = append(recs, rec)
		}
		writeJSONL(t, filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)), recs)
		mustIndexWith(t, holdMerges(WriterOptions{SettleSegments: -1}), dir, "s", filepath.Join(src, fmt.Sprintf("c%d.jsonl", part)))
	}
	c, err := OpenWith(dir, "s", Options{IdleRelease: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer c.release(h)
	segs, done := snapshotSegments(t, h)
	defer done()
	if len(segs) < 2 {
		t.Fatalf("%d segments", len(segs))
	}
	read, located, linked := 0, 0, 0
	for si, s := range segs {
		zs, ok := s.Segment().(storedSegment)
		if !ok || !readable(zs) {
			t.Fatalf("segment %d (%T) is not read with pread", si, s.Segment())
		}
		for num := uint64(0); num < uint64(s.FullSize()); num++ {
			got, err := h.stored.passage(s, num)
			if err != nil {
				t.Fatal(err)
			}
			want, err := visitedPassage(s, num)
			if err != nil {
				t.Fatal(err)
			}
			if bleve := bleveStored(t, s, num); want != bleve {
				t.Fatalf("segment %d passage %d through Bleve:\n got %+v\nwant %+v", si, num, want, bleve)
			}
			if got != want {
				t.Fatalf("segment %d passage %d:\n got %+v\nwant %+v", si, num, got, want)
			}
			read++
			if got.Locator != "" {
				located++
			}
			if got.URL != "" {
				linked++
			}
		}
	}
	if read < 300 || located == 0 || linked == 0 {
		t.Fatalf("only %d passages compared (%d with a locator, %d with a URL)", read, located, linked)
	}
	if len(h.stored.files) != len(segs) {
		t.Errorf("%d files open for %d segments", len(h.stored.files), len(segs))
	}
	if _, err := h.stored.passage(segs[0], uint64(segs[0].FullSize())); err == nil {
		t.Error("a passage past the segment's end was read")
	}
}

// bleveStored reads a passage's stored fields with Bleve's visitor and
// this test's own names of the fields.
func bleveStored(t *testing.T, s *scorch.SegmentSnapshot, num uint64) sources.Document {
	t.Helper()
	var d sources.Document
	err := s.VisitDocument(num, func(field string, _ byte, value []byte, _ []uint64) bool {
		v := string(value)
		switch field {
		case "_id":
			d.ID = v
		case "title":
			d.Title = v
		case "text":
			d.Text = v
		case "loc":
			d.Locator = v
		case "url":
			d.URL = v
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// record builds a stored record as zap v17 writes one.
func record(id string, fields [][3]uint64, plain []byte) []byte {
	var meta []byte
	meta = binary.AppendUvarint(meta, uint64(len(id)))
	for _, f := range fields {
		meta = binary.AppendUvarint(meta, f[0])        // field
		meta = binary.AppendUvarint(meta, uint64('t')) // type
		meta = binary.AppendUvarint(meta, f[1])        // offset
		meta = binary.AppendUvarint(meta, f[2])        // length
		meta = binary.AppendUvarint(meta, 0)           // array positions
	}
	data := append([]byte(id), snappy.Encode(nil, plain)...)
	var rec []byte
	rec = binary.AppendUvarint(rec, uint64(len(meta)))
	rec = binary.AppendUvarint(rec, uint64(len(data)))
	rec = append(rec, meta...)
	return append(rec, data...)
}

var recordFields = []string{"_id", fieldTitle, fieldText, fieldLoc, fieldURL}

// FuzzStoredRecord: a record read from a damaged file is an error, never a
// panic, whatever its bytes; a well-formed one decodes to what was written.
func FuzzStoredRecord(f *testing.F) {
	f.Add(record("p1", [][3]uint64{{1, 0, 5}, {2, 5, 4}}, []byte("Titletext")))
	f.Add(record("", nil, nil))
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Add(record("x", [][3]uint64{{9, 0, 1}}, []byte("a")))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var buf []byte
		meta, data, err := readRecord(bytes.NewReader(raw), 0, &buf)
		if err != nil {
			return
		}
		d, err := decodeRecord(meta, data, recordFields, new([]byte))
		if err == nil && len(d.ID) > len(data) {
			t.Fatalf("id %q longer than the record", d.ID)
		}
	})
}

func TestStoredRecordDecodes(t *testing.T) {
	plain := []byte("TitletextLOC")
	for _, off := range []int64{0, 3} {
		rec := record("p1", [][3]uint64{{1, 0, 5}, {2, 5, 4}, {3, 9, 3}}, plain)
		src := append(make([]byte, off), rec...)
		var buf []byte
		meta, data, err := readRecord(bytes.NewReader(src), off, &buf)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeRecord(meta, data, recordFields, new([]byte))
		if err != nil || d.ID != "p1" || d.Title != "Title" || d.Text != "text" || d.Locator != "LOC" {
			t.Fatalf("%+v, %v", d, err)
		}
	}
	// A record longer than the first read is read whole.
	big := bytes.Repeat([]byte("z"), 3*storedWindow)
	var buf []byte
	meta, data, err := readRecord(bytes.NewReader(record("p2", [][3]uint64{{2, 0, uint64(len(big))}}, big)), 0, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := decodeRecord(meta, data, recordFields, new([]byte)); err != nil || d.Text != string(big) {
		t.Fatalf("long record: %d bytes of text, %v", len(d.Text), err)
	}
	// Fields past the data, unknown field numbers and a cut record fail.
	for name, rec := range map[string][]byte{
		"past the data": record("p", [][3]uint64{{1, 3, 40}}, []byte("abc")),
		"unknown field": record("p", [][3]uint64{{12, 0, 1}}, []byte("abc")),
		"cut":           record("p", [][3]uint64{{1, 0, 3}}, []byte("abc"))[:6],
	} {
		var buf []byte
		meta, data, err := readRecord(bytes.NewReader(rec), 0, &buf)
		if err == nil {
			_, err = decodeRecord(meta, data, recordFields, new([]byte))
		}
		if err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}
