package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

// TestParseDuckDuckGoRealPages parses result pages in the html endpoint's
// layout: the project's own page (testdata, with an ad, redirect links, a
// repeated result and untidy text) always, and the real captured pages of
// shared/data/web-fixtures where they exist.
func TestParseDuckDuckGoRealPages(t *testing.T) {
	tests := []struct {
		name       string
		shared     string // the shared fixture the page comes from; "" for the project's own
		page       func(t *testing.T) []byte
		count, ads int
		firstURL   string
		firstTitle string
		firstText  string
	}{
		{
			name:       "own page, query how do honeybees communicate",
			page:       func(t *testing.T) []byte { return ownPage(t, "ddg_results.html") },
			count:      8,
			ads:        1,
			firstURL:   "https://en.wikipedia.org/wiki/Waggle_dance",
			firstTitle: "Waggle dance - Wikipedia",
			firstText:  "The waggle dance is a figure-of-eight movement by which a forager honeybee tells her nestmates",
		},
		{
			name:       "lofi capture, query foo",
			shared:     "lofi_duckduckgo_html.html",
			page:       func(t *testing.T) []byte { return fixture(t, "lofi_duckduckgo_html.html") },
			count:      10,
			firstURL:   "https://en.wikipedia.org/wiki/Foo_Fighters",
			firstTitle: "Foo Fighters - Wikipedia",
			firstText:  "Foo Fighters are a rock band formed in 1994 by former Nirvana drummer Dave Grohl.",
		},
		{
			name:   "langchaingo recorded exchange, query golang programming language",
			shared: "langchaingo_ddg_html.httprr",
			page: func(t *testing.T) []byte {
				return readHTTPRR(t, fixture(t, "langchaingo_ddg_html.httprr"))[0].body
			},
			count:      10,
			firstURL:   "https://go.dev/",
			firstTitle: "The Go Programming Language",
			firstText:  "Go is an open source programming language that makes it simple to build secure, scalable systems.",
		},
	}
	for _, tt := range tests {
		if !sharedFixtureHere(t, tt.shared) {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			page, err := parseDuckDuckGo(tt.page(t))
			if err != nil {
				t.Fatal(err)
			}
			if page.challenge || !page.recognised {
				t.Fatalf("challenge=%v recognised=%v, want a recognised result page", page.challenge, page.recognised)
			}
			if len(page.results) != tt.count {
				t.Fatalf("%d results, want %d: %v", len(page.results), tt.count, page.results)
			}
			if page.ads != tt.ads {
				t.Errorf("%d ads counted, want %d", page.ads, tt.ads)
			}
			first := page.results[0]
			if first.URL != tt.firstURL || first.Title != tt.firstTitle || first.Snippet != tt.firstText && !strings.HasPrefix(first.Snippet, tt.firstText) {
				t.Errorf("first result = %+v, want URL %q title %q text starting %q", first, tt.firstURL, tt.firstTitle, tt.firstText)
			}
			checkResults(t, page.results)
		})
	}
}

// checkResults asserts what must hold for every parsed result: absolute
// http(s) URLs outside DuckDuckGo, no duplicates, clean one-line text.
func checkResults(t *testing.T, results []result) {
	t.Helper()
	seen := make(map[string]bool)
	for _, r := range results {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("result URL %q is not an absolute http(s) URL", r.URL)
		}
		if strings.Contains(r.URL, "duckduckgo.com/l/") || strings.Contains(r.URL, "y.js") {
			t.Errorf("result URL %q is a DuckDuckGo redirect or ad", r.URL)
		}
		if seen[r.URL] {
			t.Errorf("duplicate result %q", r.URL)
		}
		seen[r.URL] = true
		if r.Title == "" {
			t.Errorf("result %q has no title", r.URL)
		}
		for _, s := range []string{r.Title, r.Snippet} {
			if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) || s != strings.TrimSpace(s) {
				t.Errorf("unclean text %q", s)
			}
		}
	}
}

// TestDuckDuckGoReplaysRecordedExchange serves a recorded answer to the
// engine: the project's own (its result page, with the headers DuckDuckGo
// sends) always, the exchange recorded by langchaingo where shared/data
// exists.
func TestDuckDuckGoReplaysRecordedExchange(t *testing.T) {
	tests := []struct {
		name, shared, query string
		exchange            func(t *testing.T) exchange
		wantURLs            []string
	}{
		{
			name: "own page", query: "how do honeybees communicate",
			exchange: func(t *testing.T) exchange { return ownExchange(t, "how do honeybees communicate", "ddg_results.html") },
			wantURLs: []string{
				"https://en.wikipedia.org/wiki/Waggle_dance",
				"https://beelab.example.edu/research/dance-language",
				"https://www.pollinators.example.org/articles/bee-pheromones",
				"https://gardening.example.net/q/why-do-bees-buzz",
				"https://kids.example.com/science/bees",
			},
		},
		{
			name: "langchaingo", shared: "langchaingo_ddg_html.httprr", query: "golang programming language",
			exchange: func(t *testing.T) exchange { return readHTTPRR(t, fixture(t, "langchaingo_ddg_html.httprr"))[0] },
			wantURLs: []string{
				"https://go.dev/",
				"https://en.wikipedia.org/wiki/Go_(programming_language)",
				"https://www.geeksforgeeks.org/go-language/golang-tutorial-learn-go-programming-language/",
			},
		},
	}
	for _, tt := range tests {
		if !sharedFixtureHere(t, tt.shared) {
			continue
		}
		t.Run(tt.name, func(t *testing.T) { replayExchange(t, tt.exchange(t), tt.query, tt.wantURLs) })
	}
}

func replayExchange(t *testing.T, ex exchange, query string, wantURLs []string) {
	var gotQuery url.Values
	var gotUA string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotUA = r.URL.Query(), r.UserAgent()
		if r.Method != ex.req.Method || r.URL.Path != ex.req.URL.Path {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		for k, v := range ex.resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(ex.resp.StatusCode)
		w.Write(ex.body)
	}))
	defer srv.Close()

	cfg := testConfig(newFakeClock())
	cfg.BaseURL = srv.URL + "/html/"
	e := mustNew(t, DuckDuckGo, cfg)
	docs, err := e.Search(context.Background(), query, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := ex.req.URL.Query().Get("q"); gotQuery.Get("q") != want {
		t.Errorf("sent q=%q, the recorded request had %q", gotQuery.Get("q"), want)
	}
	if !strings.Contains(gotUA, "prefrag") {
		t.Errorf("User-Agent %q does not name prefrag", gotUA)
	}
	if len(docs) != 5 {
		t.Fatalf("%d documents, want k=5", len(docs))
	}
	for i, want := range wantURLs {
		d := docs[i]
		if d.URL != want || d.ID != want || d.Locator != want {
			t.Errorf("doc %d: URL %q ID %q Locator %q, want %q", i, d.URL, d.ID, d.Locator, want)
		}
		if d.Source != "web:duckduckgo" {
			t.Errorf("doc %d: Source %q", i, d.Source)
		}
		if wantScore := 1 / float64(i+1); d.Score != wantScore {
			t.Errorf("doc %d: Score %v, want 1/rank = %v", i, d.Score, wantScore)
		}
	}
}

// TestDuckDuckGoBotChallengeIsBlocked reads bot-challenge pages: the
// project's own always, the real captured one where shared/data exists.
func TestDuckDuckGoBotChallengeIsBlocked(t *testing.T) {
	t.Run("own page", func(t *testing.T) { botChallengeIsBlocked(t, ownPage(t, "ddg_anomaly.html")) })
	if sharedFixtureHere(t, "celina_ddg_lite_anomaly.html") {
		t.Run("celina capture", func(t *testing.T) { botChallengeIsBlocked(t, fixture(t, "celina_ddg_lite_anomaly.html")) })
	}
}

func botChallengeIsBlocked(t *testing.T, anomaly []byte) {
	page, err := parseDuckDuckGo(anomaly)
	if err != nil {
		t.Fatal(err)
	}
	if !page.challenge || len(page.results) != 0 {
		t.Fatalf("challenge=%v results=%d, want a detected challenge", page.challenge, len(page.results))
	}
	for _, tt := range []struct {
		mode   fakesearch.Mode
		status int
	}{
		{fakesearch.ModeAnomaly, 0},
		{fakesearch.ModeBlocked202, http.StatusAccepted},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			fs := fakesearch.New(fakesearch.Options{Docs: testDocs, AnomalyPage: anomaly, Mode: tt.mode})
			defer fs.Close()
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = fs.DuckDuckGoURL()
			docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "does caffeine affect sleep", 5)
			var blocked *sources.BlockedError
			if !errors.As(err, &blocked) || !errors.Is(err, sources.ErrBlocked) {
				t.Fatalf("err = %v, want a BlockedError", err)
			}
			if blocked.Status != tt.status || blocked.Engine != "web:duckduckgo" {
				t.Errorf("BlockedError %+v, want status %d from web:duckduckgo", blocked, tt.status)
			}
			if docs != nil {
				t.Errorf("documents %v returned with a block", docs)
			}
		})
	}
}

func TestDuckDuckGoBlockedStatuses(t *testing.T) {
	for _, status := range []int{http.StatusAccepted, http.StatusForbidden, http.StatusTeapot, http.StatusTooManyRequests} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests++
				w.WriteHeader(status)
			}))
			defer srv.Close()
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = srv.URL + "/html/"
			cfg.Retries = MaxRetries
			_, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "anything", 5)
			var blocked *sources.BlockedError
			if !errors.As(err, &blocked) || blocked.Status != status {
				t.Fatalf("err = %v, want a BlockedError with status %d", err, status)
			}
			if requests != 1 {
				t.Errorf("%d requests, a block must never be retried", requests)
			}
		})
	}
	for _, mode := range []fakesearch.Mode{fakesearch.ModeBlocked429, fakesearch.ModeBlocked403, fakesearch.ModeBlocked202, fakesearch.ModeAnomaly} {
		t.Run("fakesearch "+string(mode), func(t *testing.T) {
			fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: mode})
			defer fs.Close()
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = fs.DuckDuckGoURL()
			docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "go programming", 5)
			if !errors.Is(err, sources.ErrBlocked) || docs != nil {
				t.Fatalf("docs %v, err %v; want a block", docs, err)
			}
		})
	}
}

func TestDuckDuckGoGeneratedPages(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Ads: true})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.DuckDuckGoURL()
	e := mustNew(t, DuckDuckGo, cfg)

	docs, err := e.Search(context.Background(), "Go programming language", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{testDocs[0].URL, testDocs[1].URL, testDocs[2].URL}
	if got := docURLs(docs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("results %v, want %v (ad dropped, ranked by term overlap)", got, want)
	}

	fs.SetMode(fakesearch.ModeEmpty)
	docs, err = e.Search(context.Background(), "Go programming language", 10)
	if err != nil || len(docs) != 0 {
		t.Errorf("empty page: docs %v err %v, want none and no error", docs, err)
	}
}

func TestParseDuckDuckGoSyntheticPages(t *testing.T) {
	organic := `<div class="result results_links web-result"><h2 class="result__title">
		<a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fa&amp;rut=1">Title <b>A</b></a></h2>
		<a class="result__snippet" href="x">Snippet	of
		A</a></div>`
	tests := []struct {
		name       string
		body       string
		urls       []string
		ads        int
		challenge  bool
		recognised bool
	}{
		{
			name:       "organic result",
			body:       `<div id="links" class="results">` + organic + `</div>`,
			urls:       []string{"https://example.org/a"},
			recognised: true,
		},
		{
			name: "ads by class, badge and y.js link",
			body: `<div id="links" class="results">
				<div class="result result--ad"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fshop.example%2F">Shop</a></div>
				<div class="result"><span class="badge--ad">Ad</span><a class="result__a" href="https://shop.example/2">Shop 2</a></div>
				<div class="result"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=shop.example&amp;u3=x">Shop 3</a></div>
				<div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad%3D1">Shop 4</a></div>
				` + organic + `</div>`,
			urls:       []string{"https://example.org/a"},
			ads:        4,
			recognised: true,
		},
		{
			name:       "duplicate and unusable links",
			body:       `<div class="results">` + organic + organic + `<div class="result"><a class="result__a" href="javascript:alert(1)">x</a></div><div class="result"><a class="result__a" href="/html/?q=more">more</a></div></div>`,
			urls:       []string{"https://example.org/a"},
			recognised: true,
		},
		{
			name:       "no results notice",
			body:       `<div class="no-results">No results.</div>`,
			recognised: true,
		},
		{
			name: "some other page",
			body: `<html><body><h1>Welcome to nginx!</h1></body></html>`,
		},
		{
			name:       "captcha widget",
			body:       `<form><div class="g-recaptcha" data-sitekey="x"></div></form>`,
			challenge:  true,
			recognised: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := parseDuckDuckGo([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, r := range page.results {
				urls = append(urls, r.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tt.urls, " ") || page.ads != tt.ads ||
				page.challenge != tt.challenge || page.recognised != tt.recognised {
				t.Errorf("got urls %v ads %d challenge %v recognised %v; want %v %d %v %v",
					urls, page.ads, page.challenge, page.recognised, tt.urls, tt.ads, tt.challenge, tt.recognised)
			}
			checkResults(t, page.results)
		})
	}
	page, _ := parseDuckDuckGo([]byte(tests[0].body))
	if r := page.results[0]; r.Title != "Title A" || r.Snippet != "Snippet of A" {
		t.Errorf("title %q snippet %q, want whitespace collapsed", r.Title, r.Snippet)
	}
}

func TestParseDuckDuckGoStripsEscapes(t *testing.T) {
	body := "<div class=\"results\"><div class=\"result\"><a class=\"result__a\" href=\"https://example.org/\">Evil\x1b]0;pwned\x07 title\x1b[2J</a>" +
		"<a class=\"result__snippet\">text\u202e reversed\u009b31m red</a></div></div>"
	page, err := parseDuckDuckGo([]byte(body))
	if err != nil || len(page.results) != 1 {
		t.Fatalf("results %v err %v", page.results, err)
	}
	r := page.results[0]
	if r.Title != "Evil title" {
		t.Errorf("title %q", r.Title)
	}
	if strings.ContainsAny(r.Snippet, "\x1b\u009b\u202e") {
		t.Errorf("snippet %q keeps control characters", r.Snippet)
	}
}

func TestDuckDuckGoUnrecognisedPageIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><body><h1>Welcome to nginx!</h1></body></html>"))
	}))
	defer srv.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = srv.URL
	_, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "q", 3)
	if !errors.Is(err, sources.ErrUnavailable) || !errors.Is(err, errUnrecognised) || errors.Is(err, sources.ErrBlocked) {
		t.Fatalf("err = %v, want an unavailable, unrecognised-page error", err)
	}
}

func TestUnwrapDuckDuckGoLink(t *testing.T) {
	tests := []struct {
		href   string
		target string
		ad, ok bool
	}{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FFoo_Fighters&rut=87019", "https://en.wikipedia.org/wiki/Foo_Fighters", false, true},
		{"https://duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DeBG7P%2DK%2Dr1Y&rut=3", "https://www.youtube.com/watch?v=eBG7P-K-r1Y", false, true},
		{"/l/?uddg=http%3A%2F%2Fexample.org%2Fa%20b&rut=x", "http://example.org/a%20b", false, true},
		{"//duckduckgo.com/l?uddg=https%3A%2F%2Fexample.org%2F", "https://example.org/", false, true},
		{"  https://example.org/direct  ", "https://example.org/direct", false, true},
		{"https://duckduckgo.com/y.js?ad_domain=x&u3=https%3A%2F%2Fbing.com%2Faclick", "", true, false},
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad_domain%3Dx", "", true, false},
		{"//duckduckgo.com/l/?rut=abc", "", false, false},
		{"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", "", false, false},
		{"//duckduckgo.com/l/?uddg=%2F%2Fno-scheme.example", "", false, false},
		{"/html/?q=next", "", false, false},
		{"javascript:alert(1)", "", false, false},
		{"mailto:someone@example.org", "", false, false},
		{"https://user:pass@example.org/", "", false, false},
		{"", "", false, false},
		{"%zz", "", false, false},
	}
	for _, tt := range tests {
		target, ad, ok := unwrapDuckDuckGoLink(tt.href)
		if target != tt.target || ad != tt.ad || ok != tt.ok {
			t.Errorf("unwrap(%q) = %q, ad %v, ok %v; want %q, %v, %v", tt.href, target, ad, ok, tt.target, tt.ad, tt.ok)
		}
	}
}

func FuzzUnwrapDuckDuckGoLink(f *testing.F) {
	for _, s := range []string{
		"//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F&rut=1",
		"https://duckduckgo.com/y.js?ad_domain=x",
		"/l/?uddg=http%3A%2F%2F%5B%3A%3A1%5D%2F",
		"https://example.org/a?b=c#d",
		"//duckduckgo.com/l/?uddg=%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, href string) {
		target, ad, ok := unwrapDuckDuckGoLink(href)
		if ad && ok {
			t.Fatalf("%q both ad and ok", href)
		}
		if !ok {
			if target != "" {
				t.Fatalf("%q: target %q without ok", href, target)
			}
			return
		}
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("%q unwrapped to %q, not an absolute http(s) URL", href, target)
		}
		if strings.ContainsFunc(target, unicode.IsControl) {
			t.Fatalf("%q unwrapped to %q with control characters", href, target)
		}
	})
}

func FuzzParseDuckDuckGo(f *testing.F) {
	f.Add([]byte(`<div id="links" class="results"><div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F">T</a><a class="result__snippet">S</a></div></div>`))
	f.Add([]byte(`<div class="result result--ad"><a class="result__a" href="https://duckduckgo.com/y.js">ad</a></div>`))
	f.Add([]byte(`<form id="challenge-form" action="//duckduckgo.com/anomaly.js"></form>`))
	f.Add([]byte("<div class=result><a class=result__a href=http://x.y/>\x1b[31m</a>"))
	for _, name := range []string{"lofi_duckduckgo_html.html", "celina_ddg_lite_anomaly.html"} {
		if b, err := readOptionalFixture(name); err == nil {
			f.Add(b)
		}
	}
	for _, name := range []string{"ddg_results.html", "ddg_no_results.html", "ddg_anomaly.html"} {
		f.Add(ownPage(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := parseDuckDuckGo(body)
		if err != nil {
			return
		}
		if len(page.results) > 0 && !page.recognised {
			t.Fatal("results on an unrecognised page")
		}
		checkResults(t, page.results)
	})
}

func TestEscapeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.org/a?b=c":              "https://example.org/a?b=c",
		"https://0?\x89":                         "https://0?%89",
		"https://de.wikipedia.org/wiki/Sørensen": "https://de.wikipedia.org/wiki/S%C3%B8rensen",
		"https://x.y/a b\x1b[31m":                "https://x.y/a%20b%1B[31m",
	} {
		if got := escapeURL(in); got != want {
			t.Errorf("escapeURL(%q) = %q, want %q", in, got, want)
		}
	}
}
