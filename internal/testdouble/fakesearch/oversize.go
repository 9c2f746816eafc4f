package fakesearch

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Sizes of the oversized answers. Both are past the 8 MiB a web client is
// expected to read of a search answer.
const (
	// TruncatedPadding is what ModeTruncated inserts into an answer.
	TruncatedPadding = 9 << 20
	// BombSize is about what a ModeGzipBomb answer inflates to; it is sent
	// as well under 1% of that.
	BombSize = 64 << 20
)

// serveOversize answers ModeTruncated and ModeGzipBomb: the answer ModeOK
// would give, with padding inserted where it hides what follows from a
// client that stops reading at a size limit. DuckDuckGo pages keep their
// first result before the padding (a cut page still shows it); JSON
// answers get the padding as their first member, so a cut answer is not
// valid JSON at all. ModeGzipBomb sends it gzip-compressed.
func (s *Server) serveOversize(w http.ResponseWriter, r *http.Request, query string, mode Mode) {
	rec := httptest.NewRecorder()
	switch r.URL.Path {
	case SearXNGPath:
		s.serveSearXNG(rec, r, query, ModeOK)
	case BravePath:
		s.serveBrave(rec, r, query, ModeOK)
	default:
		s.serveDuckDuckGo(rec, query, ModeOK)
	}
	body := rec.Body.Bytes()
	head, tail := splitForPadding(body)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if mode != ModeGzipBomb {
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+TruncatedPadding+len(tail)))
		w.WriteHeader(rec.Code)
		w.Write(head)
		w.Write(bytes.Repeat([]byte(" "), TruncatedPadding))
		w.Write(tail)
		return
	}
	// Concatenated gzip members (RFC 1952 allows them; every client
	// reads them as one stream): the padding member is compressed once.
	var gz bytes.Buffer
	gz.Write(gzipped(head))
	gz.Write(bombPadding())
	gz.Write(gzipped(tail))
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
	w.WriteHeader(rec.Code)
	w.Write(gz.Bytes())
}

var (
	bombOnce sync.Once
	bombPad  []byte
)

// bombPadding is BombSize spaces as one gzip member (about 80 KB).
func bombPadding() []byte {
	bombOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for i := 0; i < BombSize>>20; i++ {
			zw.Write(chunk)
		}
		zw.Close()
		bombPad = b.Bytes()
	})
	return bombPad
}

func gzipped(p []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(p)
	zw.Close()
	return b.Bytes()
}

// splitForPadding finds where padding goes in an answer: the padding is
// spaces, inside a JSON string member or an HTML comment.
func splitForPadding(body []byte) (head, tail []byte) {
	if len(body) > 0 && body[0] == '{' {
		return []byte(`{"padding":"`), append([]byte(`",`), body[1:]...)
	}
	cut := len(body)
	if i := bytes.Index(body, []byte(`<div class="clear"></div>`)); i >= 0 {
		if j := bytes.Index(body[i:], []byte("    </div>\n")); j >= 0 {
			cut = i + j + len("    </div>\n")
		}
	} else if i := bytes.Index(body, []byte(`<div id="links" class="results">`)); i >= 0 {
		cut = i + len(`<div id="links" class="results">`)
	}
	head = append(append([]byte{}, body[:cut]...), "<!--"...)
	tail = append([]byte("-->"), body[cut:]...)
	return head, tail
}
