// Package web searches the web for the engine: DuckDuckGo's html endpoint,
// a SearXNG instance's JSON API, or the Brave Search API. Every engine is a
// *Engine built by New and implements engine.Source (Name "web:<engine>",
// Kind sources.KindWeb).
//
// A search goes through, in order: the results cache (when one is
// configured), offline mode (only the cache may answer), the per-host
// circuit breaker, the per-host minimum interval between requests, the
// request itself (per-request timeout, at most two retries on timeouts and
// 5xx, never on a block), parsing, and the domain allow/deny lists. When
// page fetching is on, the top results' pages are then fetched and their
// main text replaces the snippet.
//
// A refusal (HTTP 429, a bot-challenge page, …) is a *sources.BlockedError,
// never an empty result. Transport trouble, timeouts, misconfigured
// instances and offline cache misses are *sources.UnavailableError. Only a
// cancelled context comes back as the context's own error.
package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// Engine names accepted by New.
const (
	DuckDuckGo = "duckduckgo"
	SearXNG    = "searxng"
	Brave      = "brave"
)

// Default endpoints.
const (
	DefaultDuckDuckGoURL = "https://html.duckduckgo.com/html/"
	DefaultBraveURL      = "https://api.search.brave.com/res/v1/web/search"
)

// DefaultUserAgent names prefrag and its project page; it carries no
// contact address.
const DefaultUserAgent = "prefrag/0.1 (terminal research assistant; +https://github.com/prefrag/prefrag)"

// Defaults applied by New to zero fields of Config.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultRetries          = 1
	MaxRetries              = 2
	DefaultBackoff          = 500 * time.Millisecond
	DefaultBreakerThreshold = 3
	DefaultBreakerCooldown  = 5 * time.Minute
	// DuckDuckGo rate-limits bursts quickly; two seconds between requests
	// to the same host keeps an interactive session well under its limits.
	DefaultDuckDuckGoInterval = 2 * time.Second
	// The Brave free plan allows one request per second.
	DefaultInterval = 1 * time.Second
)

// Config holds every knob of a web engine. The zero value is usable for
// DuckDuckGo and Brave (with APIKey); SearXNG needs BaseURL.
type Config struct {
	// BaseURL is the endpoint: DuckDuckGo's html endpoint (default
	// DefaultDuckDuckGoURL), the SearXNG instance's URL (required;
	// "/search" is appended unless already there) or Brave's API URL
	// (default DefaultBraveURL).
	BaseURL string
	// APIKey is the Brave Search subscription token. It is sent only in the
	// X-Subscription-Token header and never printed: Secret redacts itself
	// in every format.
	APIKey Secret
	// UserAgent defaults to DefaultUserAgent.
	UserAgent string
	// Timeout bounds each request, body included (default 10s).
	Timeout time.Duration
	// Retries after a timeout or a 5xx answer: 0 means the default (1),
	// a negative value means none, at most MaxRetries. Blocks are never
	// retried.
	Retries int
	// Backoff is the wait before the first retry, doubled for the second
	// (default 500ms).
	Backoff time.Duration
	// MinInterval is the minimum time between two requests to the search
	// host, shared by every engine of the process that uses the same Guard:
	// 0 means the default (2s for DuckDuckGo, 1s otherwise), negative none.
	MinInterval time.Duration
	// BreakerThreshold consecutive blocks from a host open its circuit for
	// BreakerCooldown; while open, Search answers a BlockedError without
	// sending anything. Defaults 3 and 5 minutes; a negative threshold
	// disables the breaker.
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// Allow, when not empty, keeps only results from these domains; Deny
	// drops results from these domains and wins over Allow. An entry
	// "example.org" matches example.org and every subdomain; "*.example.org",
	// ".example.org" and full URLs are accepted too.
	Allow []string
	Deny  []string
	// Fetch configures the optional fetch of result pages (off by default).
	Fetch FetchConfig
	// Cache, when set, is asked first and filled after every successful
	// search (results before the allow/deny lists, so changing the lists
	// needs no new request). TTLs are the cache's business.
	Cache Cache
	// Offline lets only the cache answer: no request is sent, a miss is an
	// error matching ErrOfflineMiss (and sources.ErrUnavailable). It
	// requires Cache.
	Offline bool
	// Guard holds per-host request spacing and circuit state. Nil means
	// the process-wide guard, so separate engines (and sessions) of one
	// process share the limits.
	Guard *HostGuard
	// Logger receives warnings (unresponsive SearXNG engines, cache
	// failures, pages that could not be fetched). Nil discards them.
	Logger *slog.Logger
}

// FetchConfig limits the fetch of result pages.
type FetchConfig struct {
	// Enabled turns fetching on; the top k results' pages are fetched in
	// parallel and their main text replaces the snippet. A page that
	// cannot be fetched keeps its snippet.
	Enabled bool
	// MaxBytes read per page (default 2 MiB); the rest is ignored.
	MaxBytes int64
	// MaxChars of main text kept per page (default 4000).
	MaxChars int
	// Timeout per page (default 8s).
	Timeout time.Duration
	// MinInterval between two page requests to one host: 0 means 1s,
	// negative none.
	MinInterval time.Duration
	// AllowPrivate permits pages on loopback, private and link-local
	// addresses. Off, such addresses are refused at dial time (a search
	// result must not make prefrag call services on the analyst's network).
	AllowPrivate bool
}

// Default fetch limits.
const (
	DefaultFetchMaxBytes    = 2 << 20
	DefaultFetchMaxChars    = 4000
	DefaultFetchTimeout     = 8 * time.Second
	DefaultFetchMinInterval = 1 * time.Second
)

// Secret is a credential. It prints as "[redacted]" with fmt (%v, %+v, %#v,
// %s, %q), slog and encoding/json, so a Config can be logged safely.
type Secret string

const redacted = "[redacted]"

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString redacts %#v too.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// LogValue redacts the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON redacts the secret in JSON.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", s.String())), nil }

// Reveal returns the credential itself, for the one header that needs it.
func (s Secret) Reveal() string { return string(s) }

// ErrInvalidConfig is matched by every configuration error of New.
var ErrInvalidConfig = errors.New("invalid web search configuration")

// settings is a Config with defaults applied and values checked.
type settings struct {
	Config
	endpoint *url.URL
	allow    domainList
	deny     domainList
}

func (c Config) resolve(engine string) (settings, EngineSpec, error) {
	fail := func(format string, args ...any) (settings, EngineSpec, error) {
		return settings{}, EngineSpec{}, fmt.Errorf("%w: %s: %s", ErrInvalidConfig, engine, fmt.Sprintf(format, args...))
	}
	spec, ok := LookupEngine(engine)
	if !ok {
		return fail("unknown engine (one of %s)", strings.Join(EngineNames(), ", "))
	}
	u, problem := c.endpointFor(spec)
	if problem != "" {
		return fail("%s", problem)
	}
	s := settings{Config: c, endpoint: u}
	if problem := s.defaultRequests(spec); problem != "" {
		return fail("%s", problem)
	}
	s.defaultFetch()
	if s.Offline && s.Cache == nil {
		return fail("offline mode needs a results cache")
	}
	var err error
	if s.allow, err = parseDomainList(c.Allow); err != nil {
		return fail("allow list: %v", err)
	}
	if s.deny, err = parseDomainList(c.Deny); err != nil {
		return fail("deny list: %v", err)
	}
	if s.Guard == nil {
		s.Guard = processGuard
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	return s, spec, nil
}

// endpointFor is the engine's search URL (the configured one, else the
// engine's default), or what is wrong with the configuration.
func (c Config) endpointFor(spec EngineSpec) (*url.URL, string) {
	base := strings.TrimSpace(c.BaseURL)
	if base == "" {
		base = spec.DefaultURL
	}
	if base == "" {
		msg := "the engine needs its URL"
		if spec.URLFlag != "" {
			msg += " (--" + spec.URLFlag + ")"
		}
		return nil, msg
	}
	if spec.NeedsKey() && strings.TrimSpace(c.APIKey.Reveal()) == "" {
		return nil, "the engine needs an API key"
	}
	u, ok := endpointURL(base)
	if !ok {
		return nil, fmt.Sprintf("the URL %q is not an http(s) address", base)
	}
	return u, ""
}

// defaultRequests fills in the defaults of the search requests (user
// agent, timeout, retries, pacing, circuit breaker) and says what is wrong
// with the values given, "" when nothing is.
func (s *settings) defaultRequests(spec EngineSpec) string {
	if s.UserAgent == "" {
		s.UserAgent = DefaultUserAgent
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Timeout < 0 {
		return "timeout must be positive"
	}
	switch {
	case s.Retries == 0:
		s.Retries = DefaultRetries
	case s.Retries < 0:
		s.Retries = 0
	case s.Retries > MaxRetries:
		return fmt.Sprintf("at most %d retries, not %d", MaxRetries, s.Retries)
	}
	if s.Backoff <= 0 {
		s.Backoff = DefaultBackoff
	}
	switch {
	case s.MinInterval == 0:
		s.MinInterval = spec.MinInterval
	case s.MinInterval < 0:
		s.MinInterval = 0
	}
	if s.BreakerThreshold == 0 {
		s.BreakerThreshold = DefaultBreakerThreshold
	}
	if s.BreakerCooldown <= 0 {
		s.BreakerCooldown = DefaultBreakerCooldown
	}
	return ""
}

// defaultFetch fills in the defaults of page fetching.
func (s *settings) defaultFetch() {
	if s.Fetch.MaxBytes <= 0 {
		s.Fetch.MaxBytes = DefaultFetchMaxBytes
	}
	if s.Fetch.MaxChars <= 0 {
		s.Fetch.MaxChars = DefaultFetchMaxChars
	}
	if s.Fetch.Timeout <= 0 {
		s.Fetch.Timeout = DefaultFetchTimeout
	}
	switch {
	case s.Fetch.MinInterval == 0:
		s.Fetch.MinInterval = DefaultFetchMinInterval
	case s.Fetch.MinInterval < 0:
		s.Fetch.MinInterval = 0
	}
}
