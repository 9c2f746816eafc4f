package e2e

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A folder with a broken PDF, a binary file renamed .txt and a 50 MB text
// file: the ingest completes, lists the two failures, and the process
// stays under 500 MB.
func TestIngestBadFilesAndALargeOne(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and indexes a 50 MB file")
	}
	w := &world{t: t, home: t.TempDir()}
	src := filepath.Join(w.home, "mixed")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "broken.pdf"), []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntruncated here"), 0o644)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 4096)...)
	os.WriteFile(filepath.Join(src, "photo.txt"), png, 0o644)
	os.WriteFile(filepath.Join(src, "notes.md"), []byte("# Notes\n\nThe Carlsberg Laboratory was founded in 1875.\n"), 0o644)
	big := filepath.Join(src, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	bw := bufio.NewWriterSize(f, 1<<20)
	words := strings.Fields("acid base chemist laboratory ecologist plant Denmark Copenhagen measure scale hydrogen enzyme protein study paper year")
	for written := 0; written < 50<<20; {
		n, _ := fmt.Fprintf(bw, "%s %s %s %s %s %d. ", words[rng.Intn(len(words))], words[rng.Intn(len(words))],
			words[rng.Intn(len(words))], words[rng.Intn(len(words))], words[rng.Intn(len(words))], rng.Intn(100000))
		written += n
		if rng.Intn(30) == 0 {
			bw.WriteString("\n\n")
		}
	}
	bw.Flush()
	f.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := w.command(ctx, "index", "--corpus", "mixed", src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "2 files could not be read") || !strings.Contains(text, "broken.pdf") || !strings.Contains(text, "photo.txt") {
		t.Errorf("the two failures are not listed:\n%s", text)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no resource usage")
	}
	peakMB := ru.Maxrss / 1024 // kilobytes on Linux
	t.Logf("indexing a 50 MB file with two bad neighbours: peak RSS %d MB\n%s", peakMB, text)
	if peakMB >= 500 {
		t.Errorf("peak RSS %d MB, want under 500 MB", peakMB)
	}
	search, _, code := w.run("search", "--corpus", "mixed", "Carlsberg Laboratory founded")
	if code != 0 || !strings.Contains(search, "Notes") {
		t.Errorf("the good file is not searchable:\n%s", search)
	}
}
