// Package transport holds the HTTP plumbing both LLM backends share: a client
// whose only fixed limit is the dial timeout, a watchdog that gives up when a
// stream stalls (before its first chunk or between two chunks) without ever
// bounding a long, healthy generation, and the mapping of transport failures
// onto the typed errors of package llm.
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/prefrag/prefrag/llm"
)

// Timeouts are the limits of one client (declared in package llm, where
// the backends' callers set them).
type Timeouts = llm.Timeouts

// Endpoint is what a backend client starts from: the backend's name, the
// server's URL, the same without its password (for messages), an HTTP
// client, the timeouts and the API key to send. Its methods (exchange.go)
// are the HTTP exchanges the OpenAI-shaped backends share.
type Endpoint struct {
	Backend  string
	Base     *url.URL
	Addr     string
	HTTP     *http.Client
	Timeouts Timeouts
	Auth     llm.Auth
	// Refused maps an answer with an error status (400 and up) of
	// endpoint p: each backend reads its server's error bodies. Set it
	// before DoJSON or Stream.
	Refused func(method, p string, res *http.Response) error
}

// Open parses baseURL (a bare host gets defaultPort) and applies opts to
// the default timeouts. A bad URL is an error naming the backend, with any
// password redacted. It does not contact the server.
func Open(backend, baseURL, defaultPort string, opts []llm.Option) (Endpoint, error) {
	base, err := ParseBaseURL(baseURL, defaultPort)
	if err != nil {
		return Endpoint{}, fmt.Errorf("%s: %s", backend, strings.ReplaceAll(err.Error(), baseURL, llm.RedactURL(baseURL)))
	}
	cfg := llm.ClientConfig{Timeouts: llm.DefaultTimeouts()}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return Endpoint{Backend: backend, Base: base, Addr: llm.RedactURL(base.String()), HTTP: NewHTTPClient(cfg.Dial), Timeouts: cfg.Timeouts, Auth: cfg.Auth}, nil
}

// ParseBaseURL accepts "host", "host:port" or a full http(s) URL and returns
// the URL without a trailing slash. A bare host gets http:// and defaultPort.
func ParseBaseURL(raw, defaultPort string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("empty server address")
	}
	if !strings.Contains(s, "://") {
		hostport, rest, _ := strings.Cut(s, "/")
		if _, _, err := net.SplitHostPort(hostport); err != nil {
			hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), defaultPort)
		}
		s = "http://" + hostport
		if rest != "" {
			s += "/" + rest
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("server address %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("server address %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("server address %q has no host", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// NewHTTPClient returns a client with a dial timeout and no overall timeout:
// stalls are the watchdog's business, cancellation the context's.
func NewHTTPClient(dialTimeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          8,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// StallError says the server sent nothing for too long.
type StallError struct {
	Waited    time.Duration
	FirstByte bool // no chunk had arrived yet
}

func (e *StallError) Error() string {
	if e.FirstByte {
		return fmt.Sprintf("no answer within %s of sending the request", e.Waited)
	}
	return fmt.Sprintf("the stream stalled: nothing received for %s", e.Waited)
}

// Watchdog cancels a request's context when a stream stalls.
type Watchdog struct {
	cancel context.CancelCauseFunc
	idle   time.Duration

	mu      sync.Mutex
	timer   *time.Timer
	started bool
	stopped bool
	fired   *StallError
}

// Watch derives a context from parent that is cancelled when no Tick arrives
// within firstByte, and then whenever two Ticks are more than idle apart.
// A zero duration disables that limit. Stop must be called when done.
func Watch(parent context.Context, firstByte, idle time.Duration) (context.Context, *Watchdog) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &Watchdog{cancel: cancel, idle: idle}
	if firstByte > 0 {
		w.timer = time.AfterFunc(firstByte, func() { w.fire(firstByte, true) })
	}
	return ctx, w
}

func (w *Watchdog) fire(d time.Duration, first bool) {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.fired = &StallError{Waited: d, FirstByte: first}
	err := w.fired
	w.mu.Unlock()
	w.cancel(err)
}

// Tick records that a chunk arrived and restarts the idle limit.
func (w *Watchdog) Tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.fired != nil {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.started = true
	if w.idle > 0 {
		idle := w.idle
		w.timer = time.AfterFunc(idle, func() { w.fire(idle, false) })
	} else {
		w.timer = nil
	}
}

// Stop releases the timer and the derived context.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}

// Stalled returns the stall that cancelled the request, or nil.
func (w *Watchdog) Stalled() *StallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// IsDialError reports whether err means no connection could be opened.
func IsDialError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// Classify maps a failed HTTP exchange onto the llm error types:
//   - the caller's own cancellation or deadline comes back as that context
//     error (errors.Is(err, context.Canceled) holds);
//   - a stall detected by the watchdog is a *llm.ServerError;
//   - a failed dial is a *llm.UnreachableError;
//   - anything else (connection reset, EOF mid-stream) is a *llm.ServerError.
func Classify(parent context.Context, backend, addr string, wd *Watchdog, err error) error {
	if err == nil {
		return nil
	}
	if parent.Err() != nil {
		return fmt.Errorf("%s: %w", backend, parent.Err())
	}
	if wd != nil {
		if stall := wd.Stalled(); stall != nil {
			return &llm.ServerError{Backend: backend, Message: stall.Error() + " — the server may be overloaded or stuck; if it is only slow, raise --llm-timeout (llm_timeout)"}
		}
	}
	if IsDialError(err) {
		return &llm.UnreachableError{Backend: backend, Addr: addr, Err: err}
	}
	var se *llm.ServerError
	var ue *llm.UnreachableError
	var me *llm.ModelNotFoundError
	var le *llm.LoadingError
	if errors.As(err, &se) || errors.As(err, &ue) || errors.As(err, &me) || errors.As(err, &le) {
		return err
	}
	// A connection that was reset or broke off: a server killed mid-run
	// does that to the connections it had (a pooled one too), and then
	// refuses new ones. Ask the address what it does now.
	if Gone(addr) {
		return &llm.UnreachableError{Backend: backend, Addr: addr, Err: unwrapURLError(err)}
	}
	return &llm.ServerError{Backend: backend, Message: "the connection failed or broke off (" + unwrapURLError(err).Error() + ") — the server may have crashed"}
}

// goneDialTimeout bounds the dial that tells a dead server from one that
// only dropped a connection.
const goneDialTimeout = 2 * time.Second

// Gone reports whether nothing accepts connections at a base URL any more
// (a fresh dial is refused or times out).
func Gone(addr string) bool {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(u.Hostname(), port), goneDialTimeout)
	if err != nil {
		return true
	}
	_ = conn.Close()
	return false
}

// CheckError maps the failure of a health check (or another short request
// bounded by the check timeout cctx carries): when that timeout fired (not
// the caller's), the server was either not there — a dial now fails: it
// cannot be reached — or there and silent: a *llm.TimeoutError naming the
// limit. Anything else goes through Classify.
func CheckError(parent, cctx context.Context, backend, addr string, limit time.Duration, err error) error {
	if parent.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		if Gone(addr) {
			return &llm.UnreachableError{Backend: backend, Addr: addr, Err: fmt.Errorf("no answer within %s", limit)}
		}
		return &llm.TimeoutError{Backend: backend, Addr: addr, Waited: limit}
	}
	return err
}

// IsTransportError reports whether err came from the connection rather than
// from the server's words: a net/http request error, a network error, or a
// body that ended early.
func IsTransportError(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}

// unwrapURLError drops net/http's `Post "http://…":` prefix, which repeats
// the address the error message names anyway.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// DefaultOutputCap bounds a reply whose request set no generation limit
// (NumPredict 0): no legitimate reply of a 16k-token context is longer.
const DefaultOutputCap = 16384

// bytesPerToken is the most text one token is allowed to carry before the
// byte count, not the token count, ends a runaway reply (a server sending
// megabytes in a few chunks).
const bytesPerToken = 32

// OutputLimit enforces a request's generation limit on the client side, for
// servers that ignore num_predict/n_predict or stream forever. It counts
// streamed chunks (one token each on Ollama and llama.cpp) and bytes, with
// some slack so that a server honouring the limit always stops first.
type OutputLimit struct {
	maxChunks, maxBytes int
	chunks, bytes       int
	over                bool
}

// NewOutputLimit returns the limit for a request's NumPredict (<= 0: the
// DefaultOutputCap).
func NewOutputLimit(numPredict int) *OutputLimit {
	n := numPredict
	if n <= 0 {
		n = DefaultOutputCap
	}
	return &OutputLimit{maxChunks: n + n/8 + 8, maxBytes: max(n*bytesPerToken, 4096)}
}

// Add counts one streamed delta and returns the part of it that may still
// be kept: all of it while the reply is within the limit, a prefix (maybe
// empty) once it goes past it. Over reports the latter.
func (l *OutputLimit) Add(delta string) string {
	if l.over {
		return ""
	}
	l.chunks++
	if l.chunks > l.maxChunks {
		l.over = true
		return ""
	}
	if l.bytes+len(delta) > l.maxBytes {
		l.over = true
		keep := delta[:l.maxBytes-l.bytes]
		for len(keep) > 0 && !utf8.ValidString(keep) {
			keep = keep[:len(keep)-1]
		}
		l.bytes += len(keep)
		return keep
	}
	l.bytes += len(delta)
	return delta
}

// Over reports whether the reply went past the limit; the client must then
// stop reading and close the stream.
func (l *OutputLimit) Over() bool { return l.over }

// Chunks is the number of chunks counted, an estimate of the tokens
// generated when the server never sent its own count.
func (l *OutputLimit) Chunks() int { return l.chunks }

// TickReader tells its watchdog about every byte that arrives: bytes, not
// headers, prove progress (some servers send headers at once and the first
// event only after evaluating the prompt).
type TickReader struct {
	R  io.Reader
	WD *Watchdog
}

func (t *TickReader) Read(p []byte) (int, error) {
	n, err := t.R.Read(p)
	if n > 0 {
		t.WD.Tick()
	}
	return n, err
}

// NewJSONRequest builds a request to u whose body, when not nil, is body
// encoded as JSON, accepting accept.
func NewJSONRequest(ctx context.Context, method string, u *url.URL, body any, accept string) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	return req, nil
}
