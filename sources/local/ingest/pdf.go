package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// ErrNoPDFTool is matched when PDF text cannot be extracted because poppler's
// pdftotext is not installed.
var ErrNoPDFTool = errors.New("PDF files need poppler's pdftotext (Debian/Ubuntu: apt install poppler-utils)")

// PDFToText is the command ExtractPDF runs; tests may point it elsewhere.
var PDFToText = "pdftotext"

// MaxPDFPageBytes bounds the text of one page.
const MaxPDFPageBytes = 4 << 20

// ExtractPDF runs pdftotext on path and calls page for every page with text,
// numbered from 1. The output is streamed page by page.
func ExtractPDF(ctx context.Context, path string, page func(n int, text []byte) error) error {
	bin, err := exec.LookPath(PDFToText)
	if err != nil {
		return ErrNoPDFTool
	}
	cmd := exec.CommandContext(ctx, bin, "-q", "-enc", "UTF-8", path, "-")
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, n: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running pdftotext: %w", err)
	}
	perr := readPages(bufio.NewReaderSize(out, 64<<10), page)
	if perr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if perr != nil {
		return perr
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return fmt.Errorf("pdftotext could not read the file: %s", firstLine(msg))
	}
	return nil
}

// readPages splits pdftotext output on form feeds, one per page end.
func readPages(r *bufio.Reader, page func(n int, text []byte) error) error {
	var buf []byte
	n := 1
	for {
		chunk, err := r.ReadSlice('\f')
		if len(buf)+len(chunk) > MaxPDFPageBytes {
			return fmt.Errorf("page %d has more than %d MB of text", n, MaxPDFPageBytes>>20)
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		end := errors.Is(err, io.EOF)
		if err != nil && !end {
			return err
		}
		text := bytes.TrimSuffix(buf, []byte{'\f'})
		if len(bytes.TrimSpace(text)) > 0 {
			if perr := page(n, text); perr != nil {
				return perr
			}
		}
		if end {
			return nil
		}
		buf = buf[:0]
		n++
	}
}

type limitedBuffer struct {
	buf *bytes.Buffer
	n   int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// PDFInfo is the command PDFTitle runs.
var PDFInfo = "pdfinfo"

// PDFTitle returns the /Title of a PDF's document information (through
// poppler's pdfinfo), cleaned by MetadataTitle; "" when there is none, it
// is junk, or pdfinfo is missing or fails.
func PDFTitle(ctx context.Context, path string) string {
	bin, err := exec.LookPath(PDFInfo)
	if err != nil {
		return ""
	}
	cmd := exec.CommandContext(ctx, bin, "-enc", "UTF-8", path)
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, n: 64 << 10}
	if cmd.Run() != nil {
		return ""
	}
	return parsePDFInfoTitle(out.String())
}

func parsePDFInfoTitle(info string) string {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(l, "Title:"); ok {
			return MetadataTitle(v)
		}
	}
	return ""
}
