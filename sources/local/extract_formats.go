package local

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/sources/local/ingest"
)

// jsonl reads one document per line. Bad lines are listed in the report and
// skipped; the file as a whole still succeeds.
func (x *extraction) jsonl() error {
	f, br, h, err := x.open()
	if err != nil {
		return err
	}
	defer f.Close()
	sample, _ := br.Peek(ingest.SniffSize)
	if _, err := ingest.Sniff(sample); err != nil {
		var nt *ingest.NotTextError
		if errors.As(err, &nt) && bytes.IndexByte(sample, 0) >= 0 {
			return err
		}
	}
	var offset int64
	var line []byte
	for lineNo := 1; ; lineNo++ {
		if lineNo%256 == 0 {
			if err := x.ctx.Err(); err != nil {
				return err
			}
		}
		start := offset
		var tooLong bool
		line, tooLong, err = readLine(br, line[:0])
		offset += int64(len(line))
		if tooLong {
			x.lineFailure(lineNo, fmt.Sprintf("line longer than %d MB", MaxJSONLLine>>20))
		} else if len(line) > 0 {
			if perr := x.jsonlLine(lineNo, start, line); perr != nil {
				return perr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	x.hash = hex.EncodeToString(h.Sum(nil))
	return nil
}

// readLine reads one line (with its newline) into buf. An overlong line is
// consumed and reported with tooLong; buf then holds only its length.
func readLine(br interface {
	ReadSlice(byte) ([]byte, error)
}, buf []byte) (line []byte, tooLong bool, err error) {
	var skipped int
	for {
		chunk, err := br.ReadSlice('\n')
		if tooLong {
			skipped += len(chunk)
		} else if len(buf)+len(chunk) > MaxJSONLLine {
			tooLong = true
			skipped = len(buf) + len(chunk)
			buf = buf[:0]
		} else {
			buf = append(buf, chunk...)
		}
		if err != nil && isBufferFull(err) {
			continue
		}
		if tooLong {
			return make([]byte, skipped), true, err
		}
		return buf, false, err
	}
}

func isBufferFull(err error) bool { return errors.Is(err, bufio.ErrBufferFull) }

// lineFailure reports a .jsonl line left out, and keeps it in the file's
// manifest entry for the runs that find the file unchanged.
func (x *extraction) lineFailure(line int, reason string) {
	x.rep.Failed = append(x.rep.Failed, Failure{Path: x.path, Line: line, Reason: reason})
	if e := x.w.entries[x.path]; e != nil {
		if len(e.Skipped) < maxSkippedKept {
			e.Skipped = append(e.Skipped, skippedLine{Line: line, Reason: reason})
		} else {
			e.MoreSkipped++
		}
	}
}

// jsonlLine queues the passages of one record.
func (x *extraction) jsonlLine(lineNo int, offset int64, line []byte) error {
	rec, err := ingest.ParseJSONLLine(line)
	if errors.Is(err, ingest.ErrBlankLine) {
		return nil
	}
	if err != nil {
		x.lineFailure(lineNo, err.Error())
		return nil
	}
	base, loc := rec.ID, rec.ID
	if base == "" {
		base = x.path + ":" + strconv.Itoa(lineNo)
		loc = x.offsetLocator(offset)
	}
	// Most records are one passage; their two slices stay on the stack.
	var onePiece, oneID [1]string
	pieces := onePiece[:0]
	if ingest.CountWords(rec.Text) <= JSONLSplitWords {
		pieces = append(pieces, strings.TrimSpace(rec.Text))
	} else {
		for _, p := range ingest.Split(rec.Text, jsonlMinWords, JSONLSplitWords) {
			pieces = append(pieces, p.Text)
		}
	}
	ids := oneID[:0]
	for i := range pieces {
		id := base
		if len(pieces) > 1 {
			id = base + "#" + strconv.Itoa(i+1)
		}
		ids = append(ids, id)
		owner, taken, err := x.w.idTaken(ids[i])
		if err != nil {
			return &writeError{err}
		}
		if taken {
			where := "earlier in this file"
			if owner != x.path {
				where = "in " + owner
			}
			x.lineFailure(lineNo, fmt.Sprintf("duplicate id %q (already %s); line skipped", ids[i], where))
			return nil
		}
	}
	for i, text := range pieces {
		if err := x.add(passage{ID: ids[i], Title: rec.Title, Text: text, File: x.path, Loc: loc, URL: rec.URL}, i == 0); err != nil {
			return err
		}
	}
	return nil
}

// html extracts the main text of a page; locators are offsets into that
// text.
func (x *extraction) html() error {
	f, br, h, err := x.open()
	if err != nil {
		return err
	}
	defer f.Close()
	page, err := ingest.ExtractHTML(br)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, br) // hash the rest, if the parser stopped early
	title := page.Title
	if title == "" {
		title = fileTitle(x.path)
	}
	sp := x.splitterFor(title, x.offsetLocator)
	if _, err := io.WriteString(sp, page.Text); err != nil {
		return err
	}
	if err := sp.Close(); err != nil {
		return err
	}
	x.hash = hex.EncodeToString(h.Sum(nil))
	return nil
}

// docx streams the paragraphs of a Word document through the splitter.
func (x *extraction) docx() error {
	hash, err := hashFile(x.ctx, x.path)
	if err != nil {
		return err
	}
	title := ingest.DOCXTitle(x.path)
	if title == "" {
		title = fileTitle(x.path)
	}
	sp := x.splitterFor(title, x.offsetLocator)
	if err := ingest.ExtractDOCX(x.ctx, x.path, sp); err != nil {
		return err
	}
	if err := sp.Close(); err != nil {
		return err
	}
	x.hash = hash
	return nil
}

// pdf indexes a PDF page by page; locators are "path#p<page>".
func (x *extraction) pdf() error {
	hash, err := hashFile(x.ctx, x.path)
	if err != nil {
		return err
	}
	title := ingest.PDFTitle(x.ctx, x.path)
	err = ingest.ExtractPDF(x.ctx, x.path, func(n int, text []byte) error {
		if title == "" {
			title = ingest.FirstLineTitle(text)
			if title == "" {
				title = fileTitle(x.path)
			}
		}
		loc := x.path + "#p" + strconv.Itoa(n)
		sp := x.splitterFor(title, func(int64) string { return loc })
		if _, err := sp.Write(text); err != nil {
			return err
		}
		return sp.Close()
	})
	if err != nil {
		return err
	}
	x.hash = hash
	return nil
}

// epub indexes a book chapter by chapter, in reading order; locators are
// "path#ch<n>" and passages carry the book's title (and the chapter's when
// it has its own).
func (x *extraction) epub() error {
	hash, err := hashFile(x.ctx, x.path)
	if err != nil {
		return err
	}
	_, err = ingest.ExtractEPUB(x.ctx, x.path, func(n int, ch ingest.EPUBChapter) error {
		book := ch.Book
		if book == "" {
			book = fileTitle(x.path)
		}
		title := book
		if ch.Title != "" && ch.Title != book {
			title = book + " — " + ch.Title
		}
		loc := x.path + "#ch" + strconv.Itoa(n)
		sp := x.splitterFor(title, func(int64) string { return loc })
		if _, err := io.WriteString(sp, ch.Text); err != nil {
			return err
		}
		return sp.Close()
	})
	if err != nil {
		return err
	}
	x.hash = hash
	return nil
}
