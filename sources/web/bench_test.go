package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

func BenchmarkParseDuckDuckGoRealPage(b *testing.B) {
	page := fixture(b, "lofi_duckduckgo_html.html")
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if p, err := parseDuckDuckGo(page); err != nil || len(p.results) != 10 {
			b.Fatal(len(p.results), err)
		}
	}
}

func BenchmarkParseSearXNG(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"results":[`)
	for i := range 20 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"url":"https://example.org/page` + strings.Repeat("x", i) + `","title":"A title","content":"` + strings.Repeat("word ", 40) + `","score":1.5}`)
	}
	sb.WriteString(`],"unresponsive_engines":[["google","timeout"]]}`)
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if p, err := parseSearXNG(body, "127.0.0.1:80"); err != nil || len(p.results) != 20 {
			b.Fatal(len(p.results), err)
		}
	}
}

func BenchmarkExtractMainText(b *testing.B) {
	page := "<html><body><nav>menu</nav><main>" + strings.Repeat("<p>"+strings.Repeat("word ", 50)+"</p>", 200) + "</main></body></html>"
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := extractMainText(strings.NewReader(page), DefaultFetchMaxChars); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch measures one search against the local fake SearXNG,
// through the whole engine (request, parse, filter), and a cache hit.
func BenchmarkSearch(b *testing.B) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	for _, cached := range []bool{false, true} {
		name := "request"
		if cached {
			name = "cache hit"
		}
		b.Run(name, func(b *testing.B) {
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = fs.URL()
			if cached {
				cfg.Cache = NewMemoryCache(time.Hour)
			}
			e := mustNew(b, SearXNG, cfg)
			for b.Loop() {
				if docs, err := e.Search(context.Background(), "go programming language", 5); err != nil || len(docs) != 3 {
					b.Fatal(len(docs), err)
				}
			}
		})
	}
}
