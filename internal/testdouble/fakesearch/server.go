// Package fakesearch is a local HTTP server standing in for web search
// engines in tests: SearXNG's JSON API (/search), DuckDuckGo's html
// endpoint (/html/) and the Brave Search API (/res/v1/web/search), over a
// fixed list of documents ranked by simple term overlap, so tests can
// predict what comes back. Modes make it misbehave the way real engines
// do: rate limits, bot challenges, slowness, empty answers, a SearXNG
// instance with JSON output disabled or with failing upstream engines,
// answers too large to read whole and decompression bombs.
//
// Documents without a URL are served by the server itself at /doc/<n>
// (n counting from 0), as small HTML pages with navigation around a <main>
// element, for tests of page fetching.
//
// Control endpoints under /_fakesearch/ (not counted as requests) let a
// test drive a server running in another process: GET or POST
// /_fakesearch/mode?set=<mode>, GET /_fakesearch/requests.
package fakesearch

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Mode selects how the search endpoints answer. Document pages (/doc/<n>)
// always answer normally.
type Mode string

const (
	// ModeOK answers with ranked results.
	ModeOK Mode = "ok"
	// ModeBlocked429 answers HTTP 429 Too Many Requests.
	ModeBlocked429 Mode = "blocked-429"
	// ModeBlocked403 answers HTTP 403 Forbidden.
	ModeBlocked403 Mode = "blocked-403"
	// ModeBlocked202 answers HTTP 202 with the bot-challenge page, as
	// DuckDuckGo does when it suspects a bot.
	ModeBlocked202 Mode = "blocked-202"
	// ModeAnomaly answers HTTP 200 with the bot-challenge page.
	ModeAnomaly Mode = "anomaly"
	// ModeSlow waits Options.SlowDelay (or until the client gives up),
	// then answers as ModeOK.
	ModeSlow Mode = "slow"
	// ModeEmpty answers a well-formed page with no results.
	ModeEmpty Mode = "empty"
	// ModeJSONDisabled makes /search answer 403, as a SearXNG instance
	// without json in search.formats does; other endpoints answer as ModeOK.
	ModeJSONDisabled Mode = "json-disabled"
	// ModeUnresponsive adds failing upstream engines to SearXNG answers
	// (unresponsive_engines); results are as in ModeOK.
	ModeUnresponsive Mode = "unresponsive"
	// ModeServerError answers HTTP 500.
	ModeServerError Mode = "server-error"
	// ModeTruncated answers ModeOK's results with TruncatedPadding bytes
	// inserted after the first DuckDuckGo result (before every JSON
	// result), so a client reading at most 8 MiB loses the rest.
	ModeTruncated Mode = "truncated"
	// ModeGzipBomb answers like ModeTruncated, padded to BombSize and sent
	// gzip-compressed (Content-Encoding: gzip): a decompression bomb.
	ModeGzipBomb Mode = "gzip-bomb"
)

// Modes lists every mode.
func Modes() []Mode {
	return []Mode{ModeOK, ModeBlocked429, ModeBlocked403, ModeBlocked202, ModeAnomaly, ModeSlow,
		ModeEmpty, ModeJSONDisabled, ModeUnresponsive, ModeServerError, ModeTruncated, ModeGzipBomb}
}

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, 0, len(Modes()))
	for _, m := range Modes() {
		names = append(names, string(m))
	}
	return "", fmt.Errorf("unknown mode %q (one of %s)", s, strings.Join(names, ", "))
}

// Paths of the endpoints.
const (
	DuckDuckGoPath = "/html/"
	SearXNGPath    = "/search"
	BravePath      = "/res/v1/web/search"
	DocPathPrefix  = "/doc/"
	controlPrefix  = "/_fakesearch/"
)

// Options configure a Server.
type Options struct {
	// Docs are the searchable documents.
	Docs []Doc
	// Mode is the initial mode (default ModeOK).
	Mode Mode
	// DuckDuckGoPage, when set, is the html endpoint's answer to every
	// query in ModeOK (for example a real captured result page); otherwise
	// pages are generated from Docs.
	DuckDuckGoPage []byte
	// AnomalyPage is the bot-challenge page (default: a small generated
	// page with DuckDuckGo's challenge markers).
	AnomalyPage []byte
	// SlowDelay is how long ModeSlow waits (default 3s).
	SlowDelay time.Duration
	// PageSize is the most results per answer (default 10).
	PageSize int
	// SnippetChars cuts snippets to about this many characters at a word
	// boundary (0: the whole text).
	SnippetChars int
	// Ads puts an advertisement first on generated DuckDuckGo pages.
	Ads bool
	// SelfLinks puts a result pointing back at the server first in SearXNG
	// answers, as instances sometimes do.
	SelfLinks bool
	// BraveKey, when set, is the only X-Subscription-Token accepted.
	BraveKey string
}

// Server is a running fake search engine. It is safe for concurrent use.
type Server struct {
	opts Options
	srv  *httptest.Server
	done chan struct{}

	mu         sync.Mutex
	mode       Mode
	requests   int
	queries    []string
	lastHeader http.Header
	failNext   int
	closeOnce  sync.Once
}

// New starts a server on 127.0.0.1 at a free port.
func New(opts Options) *Server {
	s := newServer(opts)
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Start()
	return s
}

// Listen starts a server on addr (host:port; port 0 picks a free one).
func Listen(addr string, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer(opts)
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	return s, nil
}

func newServer(opts Options) *Server {
	if opts.Mode == "" {
		opts.Mode = ModeOK
	}
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = 3 * time.Second
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 10
	}
	if opts.AnomalyPage == nil {
		opts.AnomalyPage = []byte(generatedAnomalyPage)
	}
	return &Server{opts: opts, mode: opts.Mode, done: make(chan struct{})}
}

// URL is the server's base URL (http://127.0.0.1:<port>), which is also
// the SearXNG instance URL.
func (s *Server) URL() string { return s.srv.URL }

// DuckDuckGoURL is the html endpoint's URL.
func (s *Server) DuckDuckGoURL() string { return s.srv.URL + DuckDuckGoPath }

// BraveURL is the Brave API endpoint's URL.
func (s *Server) BraveURL() string { return s.srv.URL + BravePath }

// Close stops the server; slow answers in progress end at once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.srv.Close()
}

// Done is closed when Close starts.
func (s *Server) Done() <-chan struct{} { return s.done }

// SetMode switches how the search endpoints answer.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// Mode is the current mode.
func (s *Server) Mode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// FailNext makes the next n search requests answer 503 whatever the mode,
// for retry tests.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = n
}

// Requests counts every request received, page fetches included, control
// endpoints excluded.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Queries lists the queries the search endpoints received, in order.
func (s *Server) Queries() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.queries...)
}

// LastHeader is a copy of the last counted request's header.
func (s *Server) LastHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastHeader.Clone()
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		s.serveControl(w, r)
		return
	}
	search := r.URL.Path == SearXNGPath || r.URL.Path == BravePath ||
		r.URL.Path == DuckDuckGoPath || r.URL.Path == strings.TrimSuffix(DuckDuckGoPath, "/")
	query := r.FormValue("q")
	s.mu.Lock()
	s.requests++
	s.lastHeader = r.Header.Clone()
	mode := s.mode
	fail := false
	if search {
		s.queries = append(s.queries, query)
		if s.failNext > 0 {
			s.failNext--
			fail = true
		}
	}
	s.mu.Unlock()

	if strings.HasPrefix(r.URL.Path, DocPathPrefix) {
		s.serveDoc(w, r)
		return
	}
	if !search {
		http.NotFound(w, r)
		return
	}
	if fail {
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	}
	if s.misbehave(w, r, mode) {
		return
	}
	if mode == ModeTruncated || mode == ModeGzipBomb {
		s.serveOversize(w, r, query, mode)
		return
	}
	switch r.URL.Path {
	case SearXNGPath:
		s.serveSearXNG(w, r, query, mode)
	case BravePath:
		s.serveBrave(w, r, query, mode)
	default:
		s.serveDuckDuckGo(w, query, mode)
	}
}

// misbehave answers for the failure modes and reports whether it did.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request, mode Mode) bool {
	switch mode {
	case ModeBlocked429:
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	case ModeBlocked403:
		http.Error(w, "Forbidden", http.StatusForbidden)
	case ModeServerError:
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	case ModeBlocked202:
		writeHTML(w, http.StatusAccepted, s.opts.AnomalyPage)
	case ModeAnomaly:
		writeHTML(w, http.StatusOK, s.opts.AnomalyPage)
	case ModeJSONDisabled:
		if r.URL.Path != SearXNGPath {
			return false
		}
		http.Error(w, "Forbidden", http.StatusForbidden)
	case ModeSlow:
		t := time.NewTimer(s.opts.SlowDelay)
		defer t.Stop()
		select {
		case <-t.C:
			return false
		case <-r.Context().Done():
		case <-s.done:
		}
	default:
		return false
	}
	return true
}

func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, controlPrefix) {
	case "mode":
		if set := r.FormValue("set"); set != "" {
			m, err := ParseMode(set)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			s.SetMode(m)
		}
		writeJSON(w, http.StatusOK, map[string]string{"mode": string(s.Mode())})
	case "requests":
		writeJSON(w, http.StatusOK, map[string]any{"requests": s.Requests(), "queries": s.Queries()})
	default:
		http.NotFound(w, r)
	}
}

func writeHTML(w http.ResponseWriter, status int, page []byte) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(page)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
