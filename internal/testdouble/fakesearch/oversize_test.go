package fakesearch

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
)

// ModeTruncated answers more than 8 MiB; ModeGzipBomb sends a small body
// that inflates past that. Both still carry the whole answer.
func TestOversizedModes(t *testing.T) {
	s := New(Options{Docs: []Doc{{Title: "Go", Text: "Go is a language", URL: "https://go.dev/"}, {Title: "Gopher", Text: "Go mascot gopher", URL: "https://go.dev/gopher"}}})
	defer s.Close()
	for _, c := range []struct {
		mode Mode
		path string
	}{
		{ModeTruncated, SearXNGPath + "?format=json&q=go"},
		{ModeTruncated, DuckDuckGoPath + "?q=go"},
		{ModeGzipBomb, SearXNGPath + "?format=json&q=go"},
		{ModeGzipBomb, DuckDuckGoPath + "?q=go"},
		{ModeGzipBomb, BravePath + "?q=go"},
	} {
		s.SetMode(c.mode)
		req, _ := http.NewRequest(http.MethodGet, s.URL()+c.path, nil)
		req.Header.Set("Accept-Encoding", "gzip") // no transparent decompression
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := raw
		if c.mode == ModeGzipBomb {
			if resp.Header.Get("Content-Encoding") != "gzip" || len(raw) > BombSize/100 {
				t.Errorf("%s %s: encoding %q, %d bytes sent", c.mode, c.path, resp.Header.Get("Content-Encoding"), len(raw))
			}
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			body, err = io.ReadAll(zr)
			if err != nil {
				t.Fatalf("%s %s: %v", c.mode, c.path, err)
			}
		}
		if len(body) <= 8<<20 {
			t.Errorf("%s %s: %d bytes, want more than 8 MiB", c.mode, c.path, len(body))
		}
		if !bytes.Contains(body, []byte("go.dev/gopher")) {
			t.Errorf("%s %s: the answer lost its results", c.mode, c.path)
		}
		t.Logf("%s %s: %d bytes sent, %d bytes of answer", c.mode, c.path, len(raw), len(body))
	}
}
