package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

func TestParseSearXNG(t *testing.T) {
	tests := []struct {
		name         string
		body         string
		self         string
		urls         []string
		unresponsive []UnresponsiveEngine
		err          bool
	}{
		{
			name: "results, scores and pairs of unresponsive engines",
			body: `{"query":"go","number_of_results":2,"results":[
				{"url":"https://go.dev/","title":"The Go Programming Language","content":"Go is open source.","engine":"duckduckgo","score":2.5},
				{"url":"https://en.wikipedia.org/wiki/Go","title":"Go","content":"A language.","score":1}],
				"answers":[],"infoboxes":[{"infobox":"Go"}],"unresponsive_engines":[["google","timeout"],["bing","CAPTCHA"]]}`,
			urls:         []string{"https://go.dev/", "https://en.wikipedia.org/wiki/Go"},
			unresponsive: []UnresponsiveEngine{{"google", "timeout"}, {"bing", "CAPTCHA"}},
		},
		{
			name: "self links dropped, other ports kept",
			body: `{"results":[
				{"url":"http://127.0.0.1:8888/preferences","title":"Preferences"},
				{"url":"HTTP://127.0.0.1:8888/stats?engine=x","title":"Stats"},
				{"url":"http://127.0.0.1:9999/other","title":"Another service"}]}`,
			self: "127.0.0.1:8888",
			urls: []string{"http://127.0.0.1:9999/other"},
		},
		{
			name: "default ports compare equal",
			body: `{"results":[{"url":"https://searx.example.org:443/about","title":"About"},{"url":"https://searx.example.org.evil.example/","title":"x"}]}`,
			self: "searx.example.org:443",
			urls: []string{"https://searx.example.org.evil.example/"},
		},
		{
			name: "odd entries skipped, duplicates dropped",
			body: `{"results":[{"url":5},{"url":"ftp://example.org/f"},{"url":""},{"title":"no url"},
				{"url":"https://example.org/a","title":7},{"url":"https://example.org/b"},{"url":"https://example.org/b"}],
				"unresponsive_engines":["qwant",{"engine":"brave","error":"too many requests"},[],42]}`,
			urls:         []string{"https://example.org/b"},
			unresponsive: []UnresponsiveEngine{{"qwant", ""}, {"brave", "too many requests"}},
		},
		{
			name: "empty results",
			body: `{"query":"zzz","results":[],"unresponsive_engines":[]}`,
		},
		{name: "HTML page", body: `<!DOCTYPE html><html><body>SearXNG</body></html>`, err: true},
		{name: "JSON without results", body: `{"error":"nope"}`, err: true},
		{name: "null results", body: `{"results":null}`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := parseSearXNG([]byte(tt.body), tt.self)
			if tt.err {
				if !errors.Is(err, errUnrecognised) {
					t.Fatalf("err = %v, want an unrecognised answer", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, r := range page.results {
				urls = append(urls, r.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tt.urls, " ") {
				t.Errorf("urls %v, want %v", urls, tt.urls)
			}
			if len(page.unresponsive) != len(tt.unresponsive) {
				t.Fatalf("unresponsive %v, want %v", page.unresponsive, tt.unresponsive)
			}
			for i := range tt.unresponsive {
				if page.unresponsive[i] != tt.unresponsive[i] {
					t.Errorf("unresponsive[%d] = %v, want %v", i, page.unresponsive[i], tt.unresponsive[i])
				}
			}
		})
	}
}

func TestSearXNGAgainstFakeInstance(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, SelfLinks: true})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	e := mustNew(t, SearXNG, cfg)
	if e.Name() != "web:searxng" || e.Kind() != sources.KindWeb {
		t.Fatalf("Name %q Kind %v", e.Name(), e.Kind())
	}

	res, err := e.SearchResults(context.Background(), "rust programming language", 2)
	if err != nil {
		t.Fatal(err)
	}
	// Rank: Rust's page has all three terms; the Go pages two each.
	want := []string{testDocs[2].URL, testDocs[0].URL}
	if got := docURLs(res.Docs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("results %v, want %v (self link dropped)", got, want)
	}
	if d := res.Docs[0]; d.Title != testDocs[2].Title || d.Text != testDocs[2].Text || d.Score != 3 || d.Source != "web:searxng" {
		t.Errorf("first document %+v", d)
	}
	if q := fs.Queries(); len(q) != 1 || q[0] != "rust programming language" {
		t.Errorf("queries sent %v", q)
	}
	if len(res.Unresponsive) != 0 {
		t.Errorf("unresponsive %v in ok mode", res.Unresponsive)
	}

	fs.SetMode(fakesearch.ModeUnresponsive)
	res, err = e.SearchResults(context.Background(), "go", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unresponsive) != 2 || res.Unresponsive[0].Name != "google" {
		t.Errorf("unresponsive engines %v, want google and bing", res.Unresponsive)
	}
	for _, d := range res.Docs {
		if d.URL == "" || strings.Contains(d.Title, "google") || strings.Contains(d.Title, "bing") {
			t.Errorf("unresponsive engine passed on as a document: %+v", d)
		}
	}
}

func TestSearXNGRequestShape(t *testing.T) {
	var got *url.URL
	var accept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, accept = r.URL, r.Header.Get("Accept")
		w.Write([]byte(`{"results":[]}`))
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/search"} {
		cfg := testConfig(newFakeClock())
		cfg.BaseURL = base
		if _, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "a & b", 3); err != nil {
			t.Fatal(err)
		}
		if got.Path != "/search" || got.Query().Get("q") != "a & b" || got.Query().Get("format") != "json" || accept != "application/json" {
			t.Errorf("base %q: request %v (Accept %q), want GET /search?q=a+%%26+b&format=json", base, got, accept)
		}
	}
}

func TestSearXNGJSONDisabled(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeJSONDisabled})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	cfg.Retries = MaxRetries
	docs, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
	if docs != nil || !errors.Is(err, ErrSearXNGJSONDisabled) || !errors.Is(err, sources.ErrUnavailable) || errors.Is(err, sources.ErrBlocked) {
		t.Fatalf("docs %v err %v, want the JSON-disabled error", docs, err)
	}
	for _, hint := range []string{"json", "search.formats", "settings.yml"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("error %q does not mention %q", err, hint)
		}
	}
	if fs.Requests() != 1 {
		t.Errorf("%d requests, a 403 must not be retried", fs.Requests())
	}
}

func TestSearXNGRateLimitIsBlocked(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeBlocked429})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	_, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
	var blocked *sources.BlockedError
	if !errors.As(err, &blocked) || blocked.Status != http.StatusTooManyRequests || blocked.Engine != "web:searxng" {
		t.Fatalf("err = %v, want a 429 BlockedError from web:searxng", err)
	}
}

func FuzzParseSearXNG(f *testing.F) {
	f.Add([]byte(`{"results":[{"url":"https://go.dev/","title":"Go","content":"c","score":1.5}],"unresponsive_engines":[["google","timeout"]]}`), "127.0.0.1:8888")
	f.Add([]byte(`{"results":[{"url":"http://127.0.0.1:8888/x"},{"url":"https://a.b/\u001b[2J","title":"\u001b]0;t\u0007"}]}`), "127.0.0.1:8888")
	f.Add([]byte(`{"results":[1,"x",null,{}],"unresponsive_engines":[1,[2,3],{"name":"n"}]}`), "")
	f.Add([]byte(`[]`), "")
	f.Fuzz(func(t *testing.T, body []byte, self string) {
		page, err := parseSearXNG(body, self)
		if err != nil {
			return
		}
		checkResults(t, page.results)
		for _, r := range page.results {
			u, _ := url.Parse(r.URL)
			if self != "" && strings.EqualFold(hostWithPort(u), self) {
				t.Errorf("self link %q kept", r.URL)
			}
		}
		for _, ue := range page.unresponsive {
			if ue.Name == "" || ue.Name != cleanLine(ue.Name) || ue.Reason != cleanLine(ue.Reason) {
				t.Errorf("unclean unresponsive engine %+v", ue)
			}
		}
	})
}
