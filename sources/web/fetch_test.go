package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

// pageDocs have no URL: the fake server serves them at /doc/<n>.
var pageDocs = []fakesearch.Doc{
	{Title: "Caffeine and sleep", Text: "Caffeine blocks adenosine receptors.\nIt can delay sleep onset by about twenty minutes."},
	{Title: "Adenosine", Text: "Adenosine builds up during waking hours and promotes sleep."},
}

func fetchConfig(base string) Config {
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = base
	cfg.Fetch = FetchConfig{Enabled: true, AllowPrivate: true, MinInterval: -1, Timeout: 2 * time.Second}
	return cfg
}

func TestFetchPagesReplacesSnippets(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: pageDocs, SnippetChars: 20})
	defer fs.Close()
	cache := NewMemoryCache(time.Hour)
	// DuckDuckGo: a SearXNG answer would drop these pages as links to
	// the instance itself, being on the same host.
	cfg := fetchConfig(fs.DuckDuckGoURL())
	cfg.Cache = cache
	docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "caffeine sleep", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].URL != fs.DocURL(0) {
		t.Fatalf("docs %v, want both pages, the caffeine page first", docURLs(docs))
	}
	want := "Caffeine and sleep\nCaffeine blocks adenosine receptors.\nIt can delay sleep onset by about twenty minutes."
	if docs[0].Text != want {
		t.Errorf("page text %q, want %q (main only: no nav, script or footer)", docs[0].Text, want)
	}
	if fs.Requests() != 3 {
		t.Errorf("%d requests, want one search and two pages", fs.Requests())
	}

	cfg.Offline = true
	docs, err = mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "caffeine sleep", 5)
	if err != nil || docs[0].Text != want || fs.Requests() != 3 {
		t.Errorf("offline: text %q err %v requests %d, want the cached page text and no request", docs[0].Text, err, fs.Requests())
	}
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: pageDocs, SnippetChars: 20})
	defer fs.Close()
	cfg := fetchConfig(fs.DuckDuckGoURL())
	cfg.Fetch.AllowPrivate = false
	docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "caffeine", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Text != "Caffeine blocks ..." {
		t.Errorf("docs %+v, want the snippet kept", docs)
	}
	if fs.Requests() != 1 {
		t.Errorf("%d requests: the page on 127.0.0.1 must not be fetched", fs.Requests())
	}
}

func TestFetchLimits(t *testing.T) {
	slow := make(chan struct{})
	defer close(slow)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		case "/huge":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("start " + strings.Repeat("x", 100) + " end-marker"))
		case "/long":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<p>" + strings.Repeat("word ", 100) + "</p>"))
		case "/slow":
			w.Header().Set("Content-Type", "text/html")
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		case "/latin1":
			w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
			w.Write([]byte("<p>caf\xe9</p>"))
		case "/missing":
			http.NotFound(w, r)
		}
	}))
	defer pages.Close()
	paths := []string{"/image", "/huge", "/long", "/slow", "/latin1", "/missing"}
	var docs []fakesearch.Doc
	for _, p := range paths {
		docs = append(docs, fakesearch.Doc{Title: "page " + p, Text: "snippet", URL: pages.URL + p})
	}
	fs := fakesearch.New(fakesearch.Options{Docs: docs})
	defer fs.Close()
	cfg := fetchConfig(fs.URL())
	cfg.Fetch.MaxBytes = 50
	cfg.Fetch.MaxChars = 30
	cfg.Fetch.Timeout = 100 * time.Millisecond
	got, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "page", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/image":   "snippet",
		"/huge":    "start " + strings.Repeat("x", 23) + "…",
		"/long":    strings.TrimSpace(strings.Repeat("word ", 6)) + "…",
		"/slow":    "snippet",
		"/latin1":  "café",
		"/missing": "snippet",
	}
	for _, d := range got {
		p := strings.TrimPrefix(d.URL, pages.URL)
		if d.Text != want[p] {
			t.Errorf("%s: text %q, want %q", p, d.Text, want[p])
		}
	}
	if len(got) != len(paths) {
		t.Errorf("%d docs, want %d", len(got), len(paths))
	}
}

func TestExtractMainText(t *testing.T) {
	tests := []struct {
		name string
		page string
		want string
	}{
		{
			name: "main element wins",
			page: `<html><head><title>T</title><style>p{}</style></head><body><nav>Menu</nav><article>Other</article><main><h1>Head</h1><p>One <b>bold</b> line.</p><p>Two</p></main><footer>(c)</footer></body></html>`,
			want: "Head\nOne bold line.\nTwo",
		},
		{
			name: "longest article",
			page: `<body><article>short</article><article><p>the longer article</p><script>x()</script></article></body>`,
			want: "the longer article",
		},
		{
			name: "body without navigation, forms, hidden parts",
			page: `<body><header>Site</header><div>Text &amp; more<br>next</div><form>Search <input></form><div hidden>secret</div><p aria-hidden="true">icon</p><aside>ad</aside></body>`,
			want: "Text & more\nnext",
		},
		{
			name: "escape sequences removed",
			page: "<p>safe\x1b[2J text\x07</p><p>\u202emirrored</p>",
			want: "safe text\nmirrored",
		},
		{name: "empty", page: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractMainText(strings.NewReader(tt.page), 1000)
			if err != nil || got != tt.want {
				t.Errorf("got %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func FuzzExtractMainText(f *testing.F) {
	f.Add([]byte(`<main><p>a</p><p>b</p></main>`), 10)
	f.Add([]byte("<article>\x1b]0;x\x07<article>y</article></article>"), 3)
	f.Add([]byte(`<body><nav><main>z</main></nav></body>`), 1)
	f.Fuzz(func(t *testing.T, page []byte, maxChars int) {
		if maxChars < 1 || maxChars > 1<<16 {
			return
		}
		got, err := extractMainText(strings.NewReader(string(page)), maxChars)
		if err != nil {
			return
		}
		if utf8.RuneCountInString(got) > maxChars || !utf8.ValidString(got) {
			t.Fatalf("%d runes (max %d), valid %v", utf8.RuneCountInString(got), maxChars, utf8.ValidString(got))
		}
		for _, r := range got {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("control character %U in %q", r, got)
			}
		}
		for _, line := range strings.Split(got, "\n") {
			if got != "" && strings.TrimSpace(line) == "" {
				t.Fatalf("empty line in %q", got)
			}
		}
	})
}
