package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/llm"
)

// endpoint is an Endpoint of a server whose answers are those of h.
func endpoint(t *testing.T, h http.HandlerFunc) *Endpoint {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ep, err := Open("llamacpp", srv.URL, "8080", []llm.Option{llm.WithAuth(llm.Auth{Key: "k-123", Var: "KEY"})})
	if err != nil {
		t.Fatal(err)
	}
	ep.Refused = func(method, p string, res *http.Response) error {
		return &NoEndpointError{Backend: ep.Backend, Path: p, Status: res.StatusCode}
	}
	return &ep
}

// The exchanges both OpenAI-shaped backends make: the key as a bearer
// token, an error status through the backend's Refused, an answer that is
// not JSON typed as such, and a stream whose reader's typed errors come
// back as the server said them while anything else is classified.
func TestExchanges(t *testing.T) {
	t.Parallel()
	ep := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k-123" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/json":
			io.WriteString(w, `{"ok":true}`)
		case "/html":
			io.WriteString(w, "<html>")
		case "/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: 1\n\n")
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	ctx := context.Background()
	var out struct{ OK bool }
	if err := ep.DoJSON(ctx, http.MethodGet, "/json", nil, &out, 0); err != nil || !out.OK {
		t.Fatalf("DoJSON: %v %+v", err, out)
	}
	err := ep.DoJSON(ctx, http.MethodGet, "/html", nil, &out, 0)
	var se *llm.ServerError
	if !errors.Is(err, ErrNotJSON) || !errors.As(err, &se) || !strings.Contains(err.Error(), "GET /html answered something that is not JSON") {
		t.Errorf("not JSON: %v", err)
	}
	var ne *NoEndpointError
	if err := ep.DoJSON(ctx, http.MethodGet, "/none", nil, &out, 0); !errors.Is(err, ErrNoEndpoint) || !errors.As(err, &ne) || ne.Status != 404 {
		t.Errorf("no endpoint: %v", err)
	}

	said := &llm.ContextExceededError{Backend: "llamacpp", NCtx: 4096}
	if err := ep.Stream(ctx, "/stream", nil, func(*http.Response, io.Reader) error { return said }); err != said {
		t.Errorf("a typed error of the reader: %v, want it as it is", err)
	}
	err = ep.Stream(ctx, "/stream", nil, func(*http.Response, io.Reader) error { return io.ErrUnexpectedEOF })
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "broke off") {
		t.Errorf("a broken stream: %v (%T)", err, err)
	}
	var got string
	if err := ep.Stream(ctx, "/stream", map[string]int{"n": 1}, func(_ *http.Response, r io.Reader) error {
		b, err := io.ReadAll(r)
		got = string(b)
		return err
	}); err != nil || got != "data: 1\n\n" {
		t.Errorf("stream: %v %q", err, got)
	}
}
