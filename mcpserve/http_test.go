package mcpserve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckListen(t *testing.T) {
	tests := []struct {
		addr, token string
		needsToken  bool
		bad         bool
	}{
		{"127.0.0.1:8765", "", false, false},
		{"localhost:0", "", false, false},
		{"[::1]:8765", "", false, false},
		{"0.0.0.0:8765", "", true, false},
		{":8765", "", true, false},
		{"192.168.1.5:8765", "", true, false},
		{"example.org:8765", "", true, false},
		{"0.0.0.0:8765", "s3cret", false, false},
		{"8765", "", false, true},
		{"127.0.0.1:", "", false, true},
	}
	for _, tt := range tests {
		err := CheckListen(tt.addr, tt.token)
		switch {
		case tt.needsToken && !errors.Is(err, ErrNeedsToken):
			t.Errorf("CheckListen(%q, %q) = %v, want ErrNeedsToken", tt.addr, tt.token, err)
		case tt.bad && (err == nil || errors.Is(err, ErrNeedsToken)):
			t.Errorf("CheckListen(%q) = %v, want a usage error", tt.addr, err)
		case !tt.needsToken && !tt.bad && err != nil:
			t.Errorf("CheckListen(%q, %q) = %v", tt.addr, tt.token, err)
		}
	}
}

// Never-leave corpora are served to an agent on this machine, never to
// other machines.
func TestCheckExposure(t *testing.T) {
	for _, tt := range []struct {
		addr       string
		neverLeave []string
		refused    bool
	}{
		{"127.0.0.1:8765", []string{"notes"}, false},
		{"localhost:0", []string{"notes", "mcp:memory"}, false},
		{"[::1]:8765", []string{"notes"}, false},
		{"0.0.0.0:8765", nil, false},
		{"0.0.0.0:8765", []string{"notes"}, true},
		{":8765", []string{"notes"}, true},
		{"192.168.1.5:8765", []string{"mcp:memory"}, true},
	} {
		err := CheckExposure(tt.addr, tt.neverLeave)
		if got := errors.Is(err, ErrExposesNeverLeave); got != tt.refused {
			t.Errorf("CheckExposure(%q, %q) = %v, want refused %v", tt.addr, tt.neverLeave, err, tt.refused)
		}
		if tt.refused && (!strings.Contains(err.Error(), tt.neverLeave[0]) || !strings.Contains(err.Error(), "127.0.0.1")) {
			t.Errorf("CheckExposure(%q): %q does not name the corpus and the way out", tt.addr, err)
		}
	}
}

// initialize is an MCP initialize request as a browser page or a client
// would POST it.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url, host string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// On loopback: a foreign Host (DNS rebinding) or Origin gets 403, this
// machine's names pass; with a token every request needs it (401).
// Beyond loopback an Origin must be the server itself.
func TestHTTPGuardAndToken(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	tests := []struct {
		name, listen, token, host string
		header                    map[string]string
		want                      int
	}{
		{"loopback", "127.0.0.1:8765", "", "", nil, 200},
		{"localhost by name", "127.0.0.1:8765", "", "localhost:8765", map[string]string{"Origin": "http://localhost:3000"}, 200},
		{"foreign Host", "127.0.0.1:8765", "", "evil.example.com", nil, 403},
		{"foreign Host and Origin", "127.0.0.1:8765", "", "evil.example.com", map[string]string{"Origin": "http://evil.example.com"}, 403},
		{"foreign Origin", "127.0.0.1:8765", "", "", map[string]string{"Origin": "https://evil.example.com"}, 403},
		{"bad Origin", "127.0.0.1:8765", "", "", map[string]string{"Origin": "null"}, 403},
		{"token missing", "127.0.0.1:8765", "s3cret", "", nil, 401},
		{"token wrong", "127.0.0.1:8765", "s3cret", "", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"token right", "127.0.0.1:8765", "s3cret", "", map[string]string{"Authorization": "Bearer s3cret"}, 200},
		// (The test server listens on loopback, where the SDK also refuses
		// a foreign Host whatever the listen address.)
		{"beyond loopback, its own Origin", "0.0.0.0:8765", "s3cret", "localhost:8765", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:8765"}, 200},
		{"beyond loopback, foreign Origin", "0.0.0.0:8765", "s3cret", "localhost:8765", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://evil.example.com"}, 403},
		{"beyond loopback, another port's Origin", "0.0.0.0:8765", "s3cret", "localhost:8765", map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(w.srv.Handler(tt.listen, tt.token))
			defer ts.Close()
			if got := post(t, ts.URL+Path, tt.host, tt.header); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
}

// An SDK client with the token in its requests uses the tools.
func TestHTTPClientWithToken(t *testing.T) {
	w := newTestWorld(t, caseStudy())
	ts := httptest.NewServer(w.srv.Handler("127.0.0.1:8765", "s3cret"))
	defer ts.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + Path,
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out SearchOutput
	decode(t, call(t, context.Background(), cs, "search", map[string]any{"query": "pH"}, nil), &out)
	if len(out.Results) != 1 {
		t.Errorf("search over HTTP: %+v", out)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
