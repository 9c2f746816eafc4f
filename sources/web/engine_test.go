package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources"
)

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		engine string
		cfg    Config
		want   string // in the error; "" for success
	}{
		{DuckDuckGo, Config{}, ""},
		{" DuckDuckGo ", Config{}, ""},
		{SearXNG, Config{BaseURL: "http://127.0.0.1:8888"}, ""},
		{Brave, Config{APIKey: "k"}, ""},
		{"google", Config{}, "unknown engine"},
		{SearXNG, Config{}, "--searxng-url"},
		{SearXNG, Config{BaseURL: "searx.example.org"}, "not an http(s) address"},
		{DuckDuckGo, Config{BaseURL: "ftp://x"}, "not an http(s) address"},
		{DuckDuckGo, Config{Retries: 3}, "at most 2 retries"},
		{DuckDuckGo, Config{Timeout: -time.Second}, "timeout"},
		{DuckDuckGo, Config{Offline: true}, "offline mode needs a results cache"},
		{DuckDuckGo, Config{Allow: []string{"exa mple.org"}}, "allow list"},
		{DuckDuckGo, Config{Deny: []string{"https://"}}, "deny list"},
	}
	for _, tt := range tests {
		e, err := New(tt.engine, tt.cfg)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("New(%q): %v", tt.engine, err)
		case tt.want == "" && e.Name() != "web:"+strings.ToLower(strings.TrimSpace(tt.engine)):
			t.Errorf("New(%q).Name() = %q", tt.engine, e.Name())
		case tt.want != "" && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("New(%q, %+v) error %v, want one mentioning %q", tt.engine, tt.cfg, err, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	ddg := mustNew(t, DuckDuckGo, Config{})
	if ddg.s.endpoint.String() != DefaultDuckDuckGoURL || ddg.s.MinInterval != DefaultDuckDuckGoInterval ||
		ddg.s.Retries != DefaultRetries || ddg.s.Timeout != DefaultTimeout || ddg.s.Guard != processGuard || ddg.s.Fetch.Enabled {
		t.Errorf("DuckDuckGo defaults: %+v", ddg.s)
	}
	sx := mustNew(t, SearXNG, Config{BaseURL: "https://searx.example.org/", Retries: -1, MinInterval: -1})
	if sx.s.endpoint.String() != "https://searx.example.org/search" || sx.s.Retries != 0 || sx.s.MinInterval != 0 {
		t.Errorf("SearXNG settings: endpoint %s retries %d interval %s", sx.s.endpoint, sx.s.Retries, sx.s.MinInterval)
	}
}

func TestUserAgentNamesPrefrag(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.DuckDuckGoURL()
	if _, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), "go", 1); err != nil {
		t.Fatal(err)
	}
	ua := fs.LastHeader().Get("User-Agent")
	if !strings.Contains(ua, "prefrag") || !strings.Contains(ua, "https://github.com/prefrag/prefrag") || strings.Contains(ua, "@") {
		t.Errorf("User-Agent %q: want prefrag, its project URL and no contact address", ua)
	}
}

func TestBlankQuerySendsNothing(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.DuckDuckGoURL()
	docs, err := mustNew(t, DuckDuckGo, cfg).Search(context.Background(), " \t\x1b[2J ", 5)
	if docs != nil || err != nil || fs.Requests() != 0 {
		t.Errorf("docs %v err %v requests %d, want nothing", docs, err, fs.Requests())
	}
}

func TestTimeoutsAreRetriedAndBounded(t *testing.T) {
	tests := []struct {
		retries  int
		requests int
	}{
		{-1, 1},
		{0, 2}, // the default: one retry
		{1, 2},
		{2, 3},
	}
	for _, tt := range tests {
		fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeSlow, SlowDelay: time.Minute})
		clock := newFakeClock()
		cfg := testConfig(clock)
		cfg.BaseURL = fs.URL()
		cfg.Timeout = 50 * time.Millisecond
		cfg.Retries = tt.retries
		docs, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
		if docs != nil || !errors.Is(err, ErrTimeout) || !errors.Is(err, sources.ErrUnavailable) || errors.Is(err, sources.ErrBlocked) {
			t.Errorf("retries %d: docs %v err %v, want a timeout", tt.retries, docs, err)
		}
		if n := fs.Requests(); n != tt.requests {
			t.Errorf("retries %d: %d requests, want %d", tt.retries, n, tt.requests)
		}
		// Backoff: 10ms before the first retry, 20ms before the second.
		var waits []time.Duration
		start := newFakeClock().Now()
		for _, w := range clock.WakeUps() {
			waits = append(waits, w.Sub(start))
			start = w
		}
		want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}[:tt.requests-1]
		if !slices.Equal(waits, want) {
			t.Errorf("retries %d: backoff waits %v, want %v", tt.retries, waits, want)
		}
		fs.Close()
	}
}

func TestServerErrorsAreRetried(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	cfg.Retries = 2
	e := mustNew(t, SearXNG, cfg)

	fs.FailNext(2)
	docs, err := e.Search(context.Background(), "go", 5)
	if err != nil || len(docs) == 0 || fs.Requests() != 3 {
		t.Fatalf("after two 503s: docs %d err %v requests %d, want success on the third", len(docs), err, fs.Requests())
	}

	fs.SetMode(fakesearch.ModeServerError)
	_, err = e.Search(context.Background(), "rust", 5)
	if !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(err.Error(), "HTTP 500") || fs.Requests() != 6 {
		t.Errorf("err %v requests %d, want HTTP 500 after 3 attempts", err, fs.Requests())
	}
}

func TestOtherFailuresAreUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String()
	ln.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()

	for name, base := range map[string]string{"connection refused": closedURL, "HTTP 404": notFound.URL} {
		cfg := testConfig(newFakeClock())
		cfg.BaseURL = base
		_, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
		var ue *sources.UnavailableError
		if !errors.As(err, &ue) || ue.Source != "web:searxng" || errors.Is(err, sources.ErrBlocked) {
			t.Errorf("%s: err %v, want UnavailableError from web:searxng", name, err)
		}
		// An engine that cannot be reached is said in a sentence that names
		// it and what to check, not as Go's request error (which repeats
		// the whole URL, query included).
		if name == "connection refused" {
			host := strings.TrimPrefix(closedURL, "http://")
			if msg := err.Error(); !strings.Contains(msg, "cannot reach "+host+" (connect: connection refused)") || strings.Contains(msg, "q=go") || strings.Contains(msg, `Get "`) {
				t.Errorf("unreachable engine: %q", msg)
			}
		}
	}
}

func TestCircuitBreaker(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeBlocked429})
	defer fs.Close()
	clock := newFakeClock()
	cfg := testConfig(clock)
	cfg.BaseURL = fs.DuckDuckGoURL()
	cfg.BreakerThreshold = 2
	cfg.BreakerCooldown = time.Minute
	e := mustNew(t, DuckDuckGo, cfg)
	other := mustNew(t, DuckDuckGo, cfg) // another engine of the process, same guard

	search := func(e *Engine) (reason string, err error) {
		_, err = e.Search(context.Background(), "go", 5)
		var b *sources.BlockedError
		if errors.As(err, &b) {
			return b.Reason, err
		}
		return "", err
	}
	steps := []struct {
		name     string
		engine   *Engine
		mode     fakesearch.Mode
		advance  time.Duration
		requests int    // total so far
		reason   string // in the BlockedError; "-" for success
	}{
		{"first block", e, fakesearch.ModeBlocked429, 0, 1, "HTTP 429"},
		{"second block opens the circuit", e, fakesearch.ModeBlocked429, 0, 2, "after 2 consecutive blocks no request goes to"},
		{"open: nothing sent", e, fakesearch.ModeOK, 0, 2, "circuit open after 2 consecutive blocks"},
		{"open for the other engine too", other, fakesearch.ModeOK, 30 * time.Second, 2, "until 03:05:05 (in 30s)"},
		{"after the cool-down one request goes through", e, fakesearch.ModeBlocked429, 31 * time.Second, 3, "after 3 consecutive blocks"},
		{"blocked again: open again at once", e, fakesearch.ModeOK, 0, 3, "circuit open"},
		{"success after the next cool-down closes it", e, fakesearch.ModeOK, time.Minute, 4, "-"},
		{"one block does not reopen it", other, fakesearch.ModeBlocked429, 0, 5, "HTTP 429"},
		{"success resets the count", e, fakesearch.ModeOK, 0, 6, "-"},
		{"so one more block does not open it either", e, fakesearch.ModeBlocked429, 0, 7, "HTTP 429"},
	}
	for _, st := range steps {
		clock.Advance(st.advance)
		fs.SetMode(st.mode)
		reason, err := search(st.engine)
		switch {
		case st.reason == "-" && err != nil:
			t.Errorf("%s: %v, want success", st.name, err)
		case st.reason != "-" && (!errors.Is(err, sources.ErrBlocked) || !strings.Contains(reason, st.reason)):
			t.Errorf("%s: err %v, want a block saying %q", st.name, err, st.reason)
		}
		if fs.Requests() != st.requests {
			t.Errorf("%s: %d requests so far, want %d", st.name, fs.Requests(), st.requests)
		}
	}
}

func TestBreakerCanBeDisabled(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeBlocked429})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.DuckDuckGoURL()
	cfg.BreakerThreshold = -1
	e := mustNew(t, DuckDuckGo, cfg)
	for range 5 {
		e.Search(context.Background(), "go", 5)
	}
	if fs.Requests() != 5 {
		t.Errorf("%d requests, want every one sent with the breaker off", fs.Requests())
	}
}

// TestMinIntervalSpacing records, on the fake clock, when each request
// reaches the server: requests to one host start at least MinInterval
// apart, across engines sharing the guard.
func TestMinIntervalSpacing(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	clock := newFakeClock()
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, clock.Now())
		mu.Unlock()
		fs.ServeHTTP(w, r)
	}))
	defer srv.Close()

	cfg := testConfig(clock)
	cfg.BaseURL = srv.URL + "/html/"
	cfg.MinInterval = 2 * time.Second
	a := mustNew(t, DuckDuckGo, cfg)
	cfg.BaseURL = srv.URL // same host, another engine
	b := mustNew(t, SearXNG, cfg)
	t0 := clock.Now()
	for i, e := range []*Engine{a, a, b, a} {
		if _, err := e.Search(context.Background(), []string{"go", "rust", "gopher", "language"}[i], 5); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Time{t0, t0.Add(2 * time.Second), t0.Add(4 * time.Second), t0.Add(6 * time.Second)}
	if !slices.EqualFunc(arrivals, want, time.Time.Equal) {
		t.Errorf("arrivals %v, want %v", arrivals, want)
	}
}

func TestHostGuardSpacesConcurrentWaiters(t *testing.T) {
	clock := newFakeClock()
	g := NewHostGuard(clock)
	t0 := clock.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.Wait(context.Background(), "h:1", time.Second); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// The first waiter goes at once; the others wake at 1s steps.
	got := clock.WakeUps()
	slices.SortFunc(got, time.Time.Compare)
	want := []time.Time{t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(3 * time.Second), t0.Add(4 * time.Second)}
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("wake-ups %v, want %v", got, want)
	}
	// Another host is not held up.
	before := len(clock.WakeUps())
	g.Wait(context.Background(), "other:1", time.Second)
	if len(clock.WakeUps()) != before {
		t.Error("a different host waited")
	}
}

func TestCancellation(t *testing.T) {
	t.Run("during the request", func(t *testing.T) {
		fs := fakesearch.New(fakesearch.Options{Docs: testDocs, Mode: fakesearch.ModeSlow, SlowDelay: time.Minute})
		defer fs.Close()
		cfg := testConfig(newFakeClock())
		cfg.BaseURL = fs.URL()
		cfg.Timeout = time.Minute
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := mustNew(t, SearXNG, cfg).Search(ctx, "go", 5)
		if !errors.Is(err, context.Canceled) || errors.Is(err, sources.ErrUnavailable) {
			t.Errorf("err %v, want context.Canceled only", err)
		}
		if fs.Requests() != 1 {
			t.Errorf("%d requests: a cancelled search must not be retried", fs.Requests())
		}
	})
	t.Run("while waiting for the interval", func(t *testing.T) {
		fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
		defer fs.Close()
		cfg := testConfig(newFakeClock())
		cfg.Guard = NewHostGuard(nil) // real clock
		cfg.BaseURL = fs.URL()
		cfg.MinInterval = time.Hour
		e := mustNew(t, SearXNG, cfg)
		if _, err := e.Search(context.Background(), "go", 5); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := e.Search(ctx, "rust", 5)
		if !errors.Is(err, context.Canceled) || fs.Requests() != 1 {
			t.Errorf("err %v requests %d, want context.Canceled and no second request", err, fs.Requests())
		}
	})
}

func TestCacheAndOffline(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cache := NewMemoryCache(time.Hour)
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	cfg.Cache = cache
	online := mustNew(t, SearXNG, cfg)

	first, err := online.SearchResults(context.Background(), "Go programming", 2)
	if err != nil || first.FromCache || fs.Requests() != 1 {
		t.Fatalf("first search: %+v err %v requests %d", first, err, fs.Requests())
	}
	again, err := online.SearchResults(context.Background(), "  go   PROGRAMMING ", 3)
	if err != nil || !again.FromCache || fs.Requests() != 1 {
		t.Fatalf("same normalised query: FromCache %v err %v requests %d, want a cache hit", again.FromCache, err, fs.Requests())
	}
	if len(again.Docs) != 3 || again.Docs[0].URL != first.Docs[0].URL {
		t.Errorf("cached answer %v, want 3 docs (k applies after the cache) starting %s", docURLs(again.Docs), first.Docs[0].URL)
	}

	cfg.Offline = true
	offline := mustNew(t, SearXNG, cfg)
	docs, err := offline.Search(context.Background(), "go programming", 2)
	if err != nil || len(docs) != 2 {
		t.Errorf("offline hit: %v %v", docs, err)
	}
	docs, err = offline.Search(context.Background(), "never asked", 2)
	if docs != nil || !errors.Is(err, ErrOfflineMiss) || !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(err.Error(), "never asked") {
		t.Errorf("offline miss: docs %v err %v", docs, err)
	}
	if fs.Requests() != 1 {
		t.Errorf("%d requests, offline mode must send none", fs.Requests())
	}
}

func TestOfflineSendsNoRequest(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	for _, engine := range []string{DuckDuckGo, SearXNG, Brave} {
		cfg := testConfig(newFakeClock())
		cfg.BaseURL = fs.URL()
		cfg.APIKey = "k"
		cfg.Cache = NewMemoryCache(0)
		cfg.Offline = true
		cfg.Fetch.Enabled = true
		_, err := mustNew(t, engine, cfg).Search(context.Background(), "go", 5)
		if !errors.Is(err, ErrOfflineMiss) {
			t.Errorf("%s: err %v, want ErrOfflineMiss", engine, err)
		}
	}
	if fs.Requests() != 0 {
		t.Errorf("%d requests reached the server", fs.Requests())
	}
}

func TestMemoryCacheTTL(t *testing.T) {
	c := NewMemoryCache(time.Minute)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	ctx := context.Background()
	docs := []sources.Document{{ID: "u", URL: "u"}}
	if err := c.Put(ctx, "k", docs); err != nil {
		t.Fatal(err)
	}
	docs[0].ID = "changed by the caller"
	now = now.Add(59 * time.Second)
	got, ok, err := c.Get(ctx, "k")
	if !ok || err != nil || got[0].ID != "u" {
		t.Errorf("before expiry: %v %v %v", got, ok, err)
	}
	now = now.Add(time.Second)
	if _, ok, _ := c.Get(ctx, "k"); ok || c.Len() != 0 {
		t.Errorf("entry alive at its TTL (len %d)", c.Len())
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Put(cancelled, "k", docs); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v", err)
	}
}

func TestCacheKey(t *testing.T) {
	if CacheKey("web:duckduckgo", " Go\tLang ") != CacheKey("web:duckduckgo", "go lang") {
		t.Error("normalised queries differ")
	}
	if CacheKey("web:duckduckgo", "go") == CacheKey("web:searxng", "go") {
		t.Error("engines share a key")
	}
	if PageKey("https://a/") == CacheKey("", "https://a/") {
		t.Error("page and search keys collide")
	}
}

// failingCache fails every call.
type failingCache struct{}

func (failingCache) Get(context.Context, string) ([]sources.Document, bool, error) {
	return nil, false, errors.New("disk full")
}
func (failingCache) Put(context.Context, string, []sources.Document) error {
	return errors.New("disk full")
}

func TestCacheTroubleIsNotFatal(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	cfg.Cache = failingCache{}
	docs, err := mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
	if err != nil || len(docs) == 0 {
		t.Errorf("online search with a broken cache: %v %v", docs, err)
	}
	cfg.Offline = true
	_, err = mustNew(t, SearXNG, cfg).Search(context.Background(), "go", 5)
	if !errors.Is(err, ErrOfflineMiss) || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("offline with a broken cache: %v", err)
	}
}

func TestAllowDenyLists(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	all := []string{testDocs[0].URL, testDocs[1].URL, testDocs[2].URL, testDocs[3].URL}
	tests := []struct {
		name        string
		allow, deny []string
		want        []string
	}{
		{"no lists", nil, nil, all},
		{"allow a domain and its subdomains", []string{"wikipedia.org"}, nil, []string{all[0], all[2]}},
		{"allow by URL and wildcard", []string{"https://go.dev/x", "*.example.org"}, nil, []string{all[1], all[3]}},
		{"deny", nil, []string{"EN.Wikipedia.org."}, []string{all[1], all[3]}},
		{"deny wins over allow", []string{"wikipedia.org", "go.dev"}, []string{".wikipedia.org"}, []string{all[1]}},
		{"suffix is not a subdomain", []string{"dev"}, []string{"o.dev"}, []string{all[1]}},
	}
	cache := NewMemoryCache(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(newFakeClock())
			cfg.BaseURL = fs.URL()
			cfg.Allow, cfg.Deny = tt.allow, tt.deny
			cfg.Cache = cache // shared: the cache keeps unfiltered results
			res, err := mustNew(t, SearXNG, cfg).SearchResults(context.Background(), "go programming language rodents", 10)
			if err != nil {
				t.Fatal(err)
			}
			got := docURLs(res.Docs)
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) || res.Filtered != len(all)-len(want) {
				t.Errorf("kept %v (filtered %d), want %v", got, res.Filtered, want)
			}
			for i, d := range res.Docs {
				if d.Score <= 0 {
					t.Errorf("doc %d has score %v", i, d.Score)
				}
			}
		})
	}
	if fs.Requests() != 1 {
		t.Errorf("%d requests: the lists must apply to cached results", fs.Requests())
	}
}

func TestQuerySentVerbatim(t *testing.T) {
	fs := fakesearch.New(fakesearch.Options{Docs: testDocs})
	defer fs.Close()
	cfg := testConfig(newFakeClock())
	cfg.BaseURL = fs.URL()
	e := mustNew(t, SearXNG, cfg)
	for _, q := range []string{"Who designed Go  at Google?", "  tabs\tand\nnewlines \x1b[31mred\x1b[0m "} {
		if _, err := e.Search(context.Background(), q, 3); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Who designed Go  at Google?", "tabs\tand\nnewlines red"}
	if got := fs.Queries(); !slices.Equal(got, want) {
		t.Errorf("queries sent %q, want %q", got, want)
	}
}
