package local

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"

	"github.com/prefrag/prefrag/sources/local/ingest"
)

// JSONL passage sizes: a line is a passage unless it is longer than
// JSONLSplitWords words; then it is cut into pieces of 200 to 400 words.
const (
	JSONLSplitWords = 400
	jsonlMinWords   = 200
	// MaxJSONLLine bounds one .jsonl line.
	MaxJSONLLine = 32 << 20
)

// writeError wraps a failure of the index itself (not of the file being
// read): it stops the ingest instead of being listed as a bad file.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// extraction reads one file and queues its passages.
type extraction struct {
	w     *Writer
	ctx   context.Context
	path  string
	rep   *Report
	prog  *progressReporter
	n     int   // passages of this file so far
	added int64 // counted in rep.Passages
	hash  string
}

// run reads the file and returns the SHA-256 of its bytes.
func (x *extraction) run() (string, error) {
	err := x.extract()
	if err != nil {
		x.rep.Passages -= x.added
		return "", err
	}
	return x.hash, nil
}

func (x *extraction) extract() error {
	switch strings.ToLower(filepath.Ext(x.path)) {
	case ".jsonl":
		return x.jsonl()
	case ".html", ".htm":
		return x.html()
	case ".docx":
		return x.docx()
	case ".pdf":
		return x.pdf()
	case ".epub":
		return x.epub()
	default:
		return x.text()
	}
}

// add queues one passage; the first passage of a source document has
// newDoc set.
func (x *extraction) add(p passage, newDoc bool) error {
	if err := x.w.add(p, newDoc); err != nil {
		return &writeError{err}
	}
	x.n++
	x.added++
	x.rep.Passages++
	x.prog.report(false)
	return nil
}

// fileTitle is the file name without its extension.
func fileTitle(path string) string {
	base := filepath.Base(path)
	return ingest.CleanString(strings.TrimSuffix(base, filepath.Ext(base)))
}

func (x *extraction) nextID() string { return x.path + "#" + strconv.Itoa(x.n+1) }

// splitterFor returns a splitter that queues passages of this file with the
// given title; locate turns a passage offset into its locator.
func (x *extraction) splitterFor(title string, locate func(offset int64) string) *ingest.Splitter {
	first := x.n == 0
	return ingest.NewSplitter(ingest.DefaultMinWords, ingest.DefaultMaxWords, func(p ingest.Passage) error {
		err := x.add(passage{ID: x.nextID(), Title: title, Text: p.Text, File: x.path, Loc: locate(p.Offset)}, first)
		first = false
		return err
	})
}

func (x *extraction) offsetLocator(offset int64) string {
	return x.path + "#" + strconv.FormatInt(offset, 10)
}

// open opens the file with a hash of everything read from it.
func (x *extraction) open() (*os.File, *bufio.Reader, hash.Hash, error) {
	f, err := os.Open(x.path)
	if err != nil {
		return nil, nil, nil, err
	}
	h := sha256.New()
	return f, bufio.NewReaderSize(io.TeeReader(f, h), 64<<10), h, nil
}

// text streams a .txt or .md file through the splitter.
func (x *extraction) text() error {
	f, br, h, err := x.open()
	if err != nil {
		return err
	}
	defer f.Close()
	sample, _ := br.Peek(ingest.SniffSize)
	enc, err := ingest.Sniff(sample)
	if err != nil {
		return err
	}
	title := ""
	if ext := strings.ToLower(filepath.Ext(x.path)); ext == ".md" || ext == ".markdown" {
		title = ingest.MarkdownTitle(sample)
	}
	if title == "" && enc == ingest.UTF8 {
		title = ingest.TextTitle(sample)
	}
	if title == "" {
		title = fileTitle(x.path)
	}
	var src io.Reader = br
	if enc == ingest.Windows1252 {
		src = charmap.Windows1252.NewDecoder().Reader(br)
	}
	sp := x.splitterFor(title, x.offsetLocator)
	buf := make([]byte, 64<<10)
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		n, rerr := src.Read(buf)
		if n > 0 {
			if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
				return &ingest.NotTextError{Reason: fmt.Sprintf("binary data (NUL byte near offset %d)", sp.Offset()+int64(i))}
			}
			if _, err := sp.Write(buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if err := sp.Close(); err != nil {
		return err
	}
	x.hash = hex.EncodeToString(h.Sum(nil))
	return nil
}

// hashFile returns the hex SHA-256 of a file's bytes.
func hashFile(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, rerr := f.Read(buf)
		h.Write(buf[:n])
		if errors.Is(rerr, io.EOF) {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if rerr != nil {
			return "", rerr
		}
	}
}
