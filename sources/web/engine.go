package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// ErrTimeout is matched when an engine did not answer within the
// per-request timeout, retries included. It also matches
// sources.ErrUnavailable.
var ErrTimeout = errors.New("web search timed out")

// errUnrecognised wraps answers that cannot be read as the engine's
// format; it reaches callers inside a *sources.UnavailableError.
var errUnrecognised = errors.New("unrecognised answer")

// maxAnswerBytes bounds what is read of a search answer.
const maxAnswerBytes = 8 << 20

// result is one hit as an engine reported it.
type result struct {
	URL     string
	Title   string
	Snippet string
	// Score is the engine's own score, 0 when it gives none.
	Score float64
}

// parsedPage is one answer of an engine.
type parsedPage struct {
	results      []result
	unresponsive []UnresponsiveEngine
	// truncated: the answer went past maxAnswerBytes and was cut.
	truncated bool
}

// backend is what differs between engines.
type backend interface {
	newRequest(ctx context.Context, endpoint *url.URL, query string) (*http.Request, error)
	// statusError interprets a status other than 200 (and may for 200):
	// a *sources.BlockedError for refusals, another error for
	// engine-specific failures, nil to let the generic handling decide.
	statusError(name string, status int, body []byte) error
	// parse reads a 200 answer. A bot-challenge page is a
	// *sources.BlockedError.
	parse(name string, body []byte) (parsedPage, error)
}

// Engine is one configured web search engine. It implements engine.Source
// and is safe for concurrent use.
type Engine struct {
	name    string // "web:<engine>"
	s       settings
	backend backend
	host    string // guard key of the search endpoint
	client  *http.Client
	pages   *http.Client
}

// Results is a search's outcome with what Search leaves out.
type Results struct {
	Docs []sources.Document
	// FromCache is set when the cache answered and nothing was sent.
	FromCache bool
	// Unresponsive lists the engines a SearXNG instance reported as
	// failing for this query (empty on a cache hit).
	Unresponsive []UnresponsiveEngine
	// Filtered counts results removed by the allow/deny lists.
	Filtered int
	// Truncated is set when the engine's answer went past the size limit
	// and was cut: Docs are what could be read before the cut.
	Truncated bool
}

// New builds the engine named engineName (a row of the engine table:
// DuckDuckGo, SearXNG or Brave) from cfg, filling its zero fields with the documented defaults. Errors
// match ErrInvalidConfig.
func New(engineName string, cfg Config) (*Engine, error) {
	engineName = strings.ToLower(strings.TrimSpace(engineName))
	s, spec, err := cfg.resolve(engineName)
	if err != nil {
		return nil, err
	}
	b := spec.backend(&s)
	return &Engine{
		name:    sources.WebName(spec.Name).String(),
		s:       s,
		backend: b,
		host:    hostWithPort(s.endpoint),
		client:  &http.Client{CheckRedirect: limitRedirects},
		pages:   newPageClient(s.Fetch.AllowPrivate),
	}, nil
}

// Name is "web:duckduckgo", "web:searxng" or "web:brave".
func (e *Engine) Name() string { return e.name }

// Kind is sources.KindWeb.
func (e *Engine) Kind() sources.Kind { return sources.KindWeb }

// Search returns the top k results for query (k < 1: all of them), best
// first. Each document has ID, URL and Locator set to the page's URL,
// Source set to Name() and Score set to the engine's score or 1/rank.
// A blank query returns nothing without a request.
//
// An answer cut at the size limit is a *sources.TruncatedError (matching
// sources.ErrTruncated); when some results could be read before the cut,
// they are returned with that error. Documents served from the cache have
// Cached set and CachedAt the time they were fetched.
func (e *Engine) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	docs, _, err := e.SearchCached(ctx, query, k)
	return docs, err
}

// SearchCached is Search that also says whether the answer came from the
// cache, an empty one included (engine.CachingSource).
func (e *Engine) SearchCached(ctx context.Context, query string, k int) ([]sources.Document, bool, error) {
	res, err := e.SearchResults(ctx, query, k)
	if err == nil && res.Truncated {
		err = &sources.TruncatedError{Engine: e.name, Limit: maxAnswerBytes, Results: len(res.Docs)}
	}
	return res.Docs, res.FromCache, err
}

// SearchResults is Search with the details a UI may show.
func (e *Engine) SearchResults(ctx context.Context, query string, k int) (Results, error) {
	// The query goes out as given, less escape sequences and control
	// characters (the reflection supplement sends the question verbatim).
	query = strings.TrimSpace(textsafe.ForTerminal(query))
	if query == "" {
		return Results{}, ctx.Err()
	}
	var res Results
	key := CacheKey(e.name, query)
	docs, hit, cacheErr := e.cacheGet(ctx, key)
	if err := ctx.Err(); err != nil {
		return Results{}, e.cancelled(err)
	}
	switch {
	case hit:
		res.FromCache = true
		for i := range docs {
			docs[i].Cached = true
		}
	case e.s.Offline:
		cause := fmt.Errorf("%w for %q (offline mode sends no request)", ErrOfflineMiss, query)
		if cacheErr != nil {
			cause = fmt.Errorf("%w for %q: reading the cache failed: %v", ErrOfflineMiss, query, cacheErr)
		}
		return Results{}, &sources.UnavailableError{Source: e.name, Err: cause}
	default:
		page, err := e.ask(ctx, query)
		if err != nil {
			return Results{}, err
		}
		docs = e.documents(page.results)
		res.Unresponsive = page.unresponsive
		res.Truncated = page.truncated
		for _, u := range page.unresponsive {
			e.s.Logger.Warn("SearXNG engine unresponsive", "source", e.name, "engine", u.Name, "reason", u.Reason)
		}
		// A cut answer is not cached: it would pass for a whole one later.
		if e.s.Cache != nil && !page.truncated {
			if err := e.s.Cache.Put(ctx, key, stamped(docs, e.s.Guard.clock.Now())); err != nil {
				e.s.Logger.Warn("web cache: storing results failed", "source", e.name, "err", err)
			}
		}
	}
	kept := docs[:0:0]
	for _, d := range docs {
		if e.s.permits(d.URL) {
			kept = append(kept, d)
		} else {
			res.Filtered++
		}
	}
	if k > 0 && len(kept) > k {
		kept = kept[:k]
	}
	for i := range kept {
		if kept[i].Score <= 0 {
			kept[i].Score = 1 / float64(i+1)
		}
	}
	if e.s.Fetch.Enabled {
		if err := e.fetchPages(ctx, kept); err != nil {
			return Results{}, err
		}
	}
	res.Docs = kept
	return res, nil
}

// documents turns an engine's results into documents as cached: the
// engine's own score, 0 when it has none (Search fills in 1/rank).
func (e *Engine) documents(results []result) []sources.Document {
	docs := make([]sources.Document, 0, len(results))
	for _, r := range results {
		docs = append(docs, sources.Document{
			ID:      r.URL,
			Title:   r.Title,
			Text:    r.Snippet,
			URL:     r.URL,
			Source:  e.name,
			Score:   r.Score,
			Locator: r.URL,
		})
	}
	return docs
}

// stamped is a copy of docs as stored in the cache: each carries the time
// it was fetched, so a later hit can say how old it is.
func stamped(docs []sources.Document, at time.Time) []sources.Document {
	out := make([]sources.Document, len(docs))
	for i, d := range docs {
		d.CachedAt = at.UTC()
		out[i] = d
	}
	return out
}

func (e *Engine) cacheGet(ctx context.Context, key string) ([]sources.Document, bool, error) {
	if e.s.Cache == nil {
		return nil, false, nil
	}
	docs, ok, err := e.s.Cache.Get(ctx, key)
	if err != nil {
		if ctx.Err() == nil {
			e.s.Logger.Warn("web cache: reading failed", "source", e.name, "err", err)
		}
		return nil, false, err
	}
	return docs, ok, nil
}

// ask sends the query, retrying timeouts and 5xx answers a bounded number
// of times, and records blocks and successes with the guard.
func (e *Engine) ask(ctx context.Context, query string) (parsedPage, error) {
	g := e.s.Guard
	for attempt := 0; ; attempt++ {
		if err := e.circuitOpen(); err != nil {
			return parsedPage{}, err
		}
		if err := g.Wait(ctx, e.host, e.s.MinInterval); err != nil {
			return parsedPage{}, e.cancelled(err)
		}
		if err := e.circuitOpen(); err != nil {
			return parsedPage{}, err
		}
		status, body, truncated, err := e.roundTrip(ctx, query)
		if ctx.Err() != nil {
			return parsedPage{}, e.cancelled(ctx.Err())
		}
		var failure error
		switch {
		case err != nil && isTimeout(err):
			failure = &sources.UnavailableError{Source: e.name, Err: fmt.Errorf(
				"%w: no answer from %s within %s (%d attempts)", ErrTimeout, e.s.endpoint.Host, e.s.Timeout, attempt+1)}
		case err != nil:
			return parsedPage{}, &sources.UnavailableError{Source: e.name, Err: e.unreachable(err)}
		case status >= 500:
			failure = &sources.UnavailableError{Source: e.name, Err: fmt.Errorf(
				"HTTP %d from %s (%d attempts)", status, e.s.endpoint.Host, attempt+1)}
		default:
			return e.interpret(status, body, truncated)
		}
		if attempt >= e.s.Retries {
			return parsedPage{}, failure
		}
		if err := g.clock.SleepUntil(ctx, g.clock.Now().Add(e.s.Backoff<<attempt)); err != nil {
			return parsedPage{}, e.cancelled(err)
		}
	}
}

// unreachableError is a request that reached no engine: its host and the
// network's reason, without the request's URL (which repeats the query).
type unreachableError struct {
	host, cause string
	err         error
}

func (u *unreachableError) Error() string {
	return "cannot reach " + u.host + " (" + u.cause + "): check that the engine runs and its URL"
}

func (u *unreachableError) Unwrap() error { return u.err }

// unreachable words a transport failure: "cannot reach HOST (connect:
// connection refused): …". The error it wraps still matches.
func (e *Engine) unreachable(err error) error {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	var op *net.OpError
	if errors.As(cause, &op) && op.Err != nil {
		cause = op.Err
	}
	return &unreachableError{host: e.s.endpoint.Host, cause: cause.Error(), err: err}
}

// interpret turns a non-5xx answer into results or an error.
// A truncated answer that yields no result is a *sources.TruncatedError,
// whatever the parse made of the cut text.
func (e *Engine) interpret(status int, body []byte, truncated bool) (parsedPage, error) {
	err := e.backend.statusError(e.name, status, body)
	if err == nil && status != http.StatusOK {
		if status == http.StatusTooManyRequests {
			err = &sources.BlockedError{Engine: e.name, Status: status, Reason: "HTTP 429"}
		} else {
			err = &sources.UnavailableError{Source: e.name, Err: fmt.Errorf(
				"unexpected HTTP %d from %s; check the engine URL", status, e.s.endpoint.Host)}
		}
	}
	var page parsedPage
	if err == nil {
		page, err = e.backend.parse(e.name, body)
	}
	var blocked *sources.BlockedError
	switch {
	case truncated && status == http.StatusOK && !errors.As(err, &blocked) && (err != nil || len(page.results) == 0):
		return parsedPage{}, &sources.TruncatedError{Engine: e.name, Limit: maxAnswerBytes}
	case errors.As(err, &blocked):
		e.noteBlock(blocked)
		return parsedPage{}, blocked
	case err != nil:
		var unavailable *sources.UnavailableError
		if errors.As(err, &unavailable) {
			return parsedPage{}, err
		}
		return parsedPage{}, &sources.UnavailableError{Source: e.name, Err: err}
	}
	e.s.Guard.recordSuccess(e.host)
	page.truncated = truncated
	return page, nil
}

// noteBlock counts a block and says in its reason when the circuit opened.
func (e *Engine) noteBlock(b *sources.BlockedError) {
	if e.s.BreakerThreshold < 0 {
		return
	}
	n, until := e.s.Guard.recordBlock(e.host, e.s.BreakerThreshold, e.s.BreakerCooldown)
	if until.IsZero() {
		return
	}
	b.Reason += fmt.Sprintf("; after %d consecutive blocks no request goes to %s until %s",
		n, e.s.endpoint.Host, until.Format("15:04:05"))
	e.s.Logger.Warn("web circuit open", "source", e.name, "host", e.s.endpoint.Host, "until", until)
}

// circuitOpen is a BlockedError while the search host's circuit is open.
func (e *Engine) circuitOpen() error {
	if e.s.BreakerThreshold < 0 {
		return nil
	}
	until, blocks, open := e.s.Guard.circuit(e.host)
	if !open {
		return nil
	}
	wait := until.Sub(e.s.Guard.clock.Now()).Round(time.Second)
	return &sources.BlockedError{Engine: e.name, Reason: fmt.Sprintf(
		"circuit open after %d consecutive blocks: no request goes to %s until %s (in %s)",
		blocks, e.s.endpoint.Host, until.Format("15:04:05"), wait)}
}

// roundTrip sends one request under the per-request timeout and reads the
// answer's body, at most maxAnswerBytes of it (after decompression);
// truncated says there was more.
func (e *Engine) roundTrip(ctx context.Context, query string) (status int, body []byte, truncated bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.s.Timeout)
	defer cancel()
	req, err := e.backend.newRequest(ctx, e.s.endpoint, query)
	if err != nil {
		return 0, nil, false, err
	}
	req.Header.Set("User-Agent", e.s.UserAgent)
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, false, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return 0, nil, false, err
	}
	if len(body) > maxAnswerBytes {
		body, truncated = body[:maxAnswerBytes], true
	}
	return resp.StatusCode, body, truncated, nil
}

func (e *Engine) cancelled(err error) error {
	return fmt.Errorf("%s: %w", e.name, err)
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// limitRedirects allows three redirects.
func limitRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("more than 3 redirects")
	}
	return nil
}
