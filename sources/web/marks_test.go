package web

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

// Results served from the cache say so, with the time they were fetched;
// fresh results do not.
func TestCachedResultsAreMarked(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	clock := newFakeClock()
	fetched := clock.Now()
	cfg := testConfig(clock)
	cfg.BaseURL = fs.URL()
	cfg.Cache = NewMemoryCache(0)
	e := mustNew(t, SearXNG, cfg)

	fresh, err := e.Search(context.Background(), "go programming", 3)
	if err != nil || len(fresh) == 0 {
		t.Fatalf("fresh search: %v %v", fresh, err)
	}
	for _, d := range fresh {
		if d.Cached || !d.CachedAt.IsZero() {
			t.Errorf("fresh result %s marked cached (%v, %v)", d.URL, d.Cached, d.CachedAt)
		}
	}
	clock.Advance(3 * time.Hour)
	again, err := e.Search(context.Background(), "go programming", 3)
	if err != nil || len(again) != len(fresh) || fs.Requests() != 1 {
		t.Fatalf("cached search: %d docs, %v, %d requests", len(again), err, fs.Requests())
	}
	for _, d := range again {
		if !d.Cached || !d.CachedAt.Equal(fetched) {
			t.Errorf("cached result %s: cached %v at %v, want true at %v", d.URL, d.Cached, d.CachedAt, fetched)
		}
		if got := d.CacheNote(clock.Now()); got != "cached, 3 h old" {
			t.Errorf("cache note %q", got)
		}
	}

	cfg.Offline = true
	offline, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go programming", 3)
	if err != nil || len(offline) == 0 || !offline[0].Cached {
		t.Errorf("offline answer not marked cached: %+v %v", offline, err)
	}
}

// An answer past the size limit, plain or as a decompression bomb, is
// reported as truncated: never as an empty answer, never cached.
func TestOversizedAnswersAreTruncatedNotEmpty(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cases := []struct {
		engine string
		mode   fakesearch.Mode
		// results readable before the cut
		partial int
	}{
		{SearXNG, fakesearch.ModeTruncated, 0},
		{SearXNG, fakesearch.ModeGzipBomb, 0},
		{Brave, fakesearch.ModeTruncated, 0},
		{DuckDuckGo, fakesearch.ModeTruncated, 1},
		{DuckDuckGo, fakesearch.ModeGzipBomb, 1},
	}
	for _, c := range cases {
		t.Run(c.engine+"/"+string(c.mode), func(t *testing.T) {
			fs.SetMode(c.mode)
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = map[string]string{SearXNG: fs.URL(), Brave: fs.BraveURL(), DuckDuckGo: fs.DuckDuckGoURL()}[c.engine]
			cfg.APIKey = "k"
			cfg.Timeout = 30 * time.Second // reading 8 MiB on a loaded machine
			cache := NewMemoryCache(0)
			cfg.Cache = cache
			e := mustNew(t, c.engine, cfg)
			t0 := time.Now()
			docs, err := e.Search(context.Background(), "go programming language", 5)
			t.Logf("%s %s: %d docs in %v: %v", c.engine, c.mode, len(docs), time.Since(t0), err)
			var te *sources.TruncatedError
			if !errors.As(err, &te) || !errors.Is(err, sources.ErrTruncated) {
				t.Fatalf("err %v, want a *sources.TruncatedError", err)
			}
			if len(docs) != c.partial || te.Results != c.partial {
				t.Errorf("%d docs, error counts %d, want %d partial results", len(docs), te.Results, c.partial)
			}
			if !strings.Contains(err.Error(), "8 MiB") || !strings.Contains(err.Error(), "cut") {
				t.Errorf("message %q does not say the answer was cut at 8 MiB", err)
			}
			if cache.Len() != 0 {
				t.Errorf("a truncated answer was cached (%d entries)", cache.Len())
			}
		})
	}
}

// An answer of exactly the limit is whole, not truncated.
func TestAnswerAtTheLimitIsWhole(t *testing.T) {
	page := parsedPage{results: []result{{URL: "https://a.example/", Title: "A"}}}
	e := mustNew(t, SearXNG, Config{BaseURL: "http://127.0.0.1:1"})
	body := []byte(`{"results":[{"url":"https://a.example/","title":"A"}]}`)
	got, err := e.interpret(200, body, false)
	if err != nil || got.truncated || len(got.results) != len(page.results) {
		t.Errorf("whole answer: %+v %v", got, err)
	}
	got, err = e.interpret(200, body, true)
	if err != nil || !got.truncated || len(got.results) != 1 {
		t.Errorf("cut answer with results: %+v %v, want the results marked truncated", got, err)
	}
	if _, err := e.interpret(404, []byte("not found"), true); errors.Is(err, sources.ErrTruncated) {
		t.Errorf("a 404 is not reported as truncated: %v", err)
	}
}
