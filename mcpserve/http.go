package mcpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// ErrNeedsToken is matched by CheckListen's refusal of an address beyond
// this machine without a token.
var ErrNeedsToken = errors.New("a non-loopback address needs a token")

// ErrExposesNeverLeave is matched by CheckExposure's refusal to serve
// never-leave corpora to other machines.
var ErrExposesNeverLeave = errors.New("never-leave corpora cannot be served beyond this machine")

// CheckListen checks an --http address before anything is opened: a host
// and a port, and a token unless the host is loopback (127.0.0.1, ::1,
// localhost), so that nothing on the network reaches the user's corpus
// and model without it.
func CheckListen(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--http takes HOST:PORT (e.g. 127.0.0.1:8765), not %q", addr)
	}
	if !IsLoopback(host) && token == "" {
		return fmt.Errorf("%w: --http %s would accept connections from other machines; give a token (--token, mcp_token in the config file or PREFRAG_MCP_TOKEN), or listen on 127.0.0.1", ErrNeedsToken, addr)
	}
	return nil
}

// CheckExposure refuses to serve never-leave corpora beyond loopback:
// search, fetch, ask and the session resources give their passages to the
// client, which over a non-loopback address is on another machine (the
// kinds table's rule: an http peer leaves the machine). neverLeave are the
// user's never-leave names, resolved.
func CheckExposure(addr string, neverLeave []string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || IsLoopback(host) || len(neverLeave) == 0 {
		return nil
	}
	return fmt.Errorf("%w: --http %s answers other machines, and the passages of never-leave %s would leave this one through search, fetch, ask and the session resources; listen on 127.0.0.1 (an agent on this machine), or take them off never_leave",
		ErrExposesNeverLeave, addr, strings.Join(neverLeave, ", "))
}

// IsLoopback reports whether host (a name or an address, as in a Host
// header or a listen address) is this machine's loopback: localhost or a
// loopback IP. "" and 0.0.0.0 (every interface) are not.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves MCP over streamable HTTP at Path on ln until ctx ends;
// then it stops accepting, cancels the runs still going (kept as cancelled
// sessions) and returns.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	srv := &http.Server{Handler: s.Handler(ln.Addr().String(), token), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// The runs going end as cancelled sessions and their calls return;
	// then the connections close (a client's open event stream would
	// keep a graceful shutdown waiting).
	s.shutdown()
	srv.Close()
	return nil
}

// Handler is the HTTP handler for a server listening on addr: the MCP
// endpoint at Path behind the Host/Origin guard and, when token is set,
// the bearer token check (401 without it).
func (s *Server) Handler(addr, token string) http.Handler {
	h := http.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, PropagateRequestCancellation: true,
			// A client that loses the stream of a long ask resumes it
			// (Last-Event-ID) without losing progress or the result.
			EventStore: mcp.NewMemoryEventStore(nil)}))
	if token != "" {
		h = auth.RequireBearerToken(tokenVerifier(token), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	host, _, _ := net.SplitHostPort(addr)
	mux := http.NewServeMux()
	mux.Handle(Path, guard(IsLoopback(host), h))
	return mux
}

// tokenVerifier accepts exactly token (compared in constant time).
func tokenVerifier(token string) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
}

// guard refuses (403) what a web page could send through the user's
// browser. On a loopback address, a Host that is not loopback is a DNS
// rebinding attack (a foreign name resolving to 127.0.0.1), and an Origin
// that is not loopback is a foreign page. Beyond loopback (with a token),
// an Origin must be the server's own Host.
func guard(loopback bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := refused(loopback, r); why != "" {
			http.Error(w, "prefrag mcp: "+why, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refused says why a request is refused, "" when it is not.
func refused(loopback bool, r *http.Request) string {
	if loopback && !IsLoopback(hostOnly(r.Host)) {
		return fmt.Sprintf("Host %q is not this machine's loopback address (DNS rebinding?)", r.Host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil || u.Host == "":
		return fmt.Sprintf("Origin %q is not an origin", origin)
	case loopback && !IsLoopback(u.Hostname()):
		return fmt.Sprintf("Origin %q is not on this machine", origin)
	case !loopback && !strings.EqualFold(u.Host, r.Host):
		return fmt.Sprintf("Origin %q is not this server (%s)", origin, r.Host)
	}
	return ""
}

// hostOnly is a Host header without its port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
