package llamacpp

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

func (c *Client) streamError(raw []byte) error {
	e := parseErrorBody(raw)
	if e.Status() == http.StatusServiceUnavailable {
		return &llm.LoadingError{Backend: backend, Addr: c.ep.Addr}
	}
	return e.typed(0, "error during generation: ")
}

// stream POSTs body to p and feeds every event to fn, under the watchdog
// (transport.Endpoint.Stream).
func (c *Client) stream(ctx context.Context, p string, body any, fn func(sseLine) (bool, error)) error {
	err := c.ep.Stream(ctx, p, body, func(_ *http.Response, events io.Reader) error { return sse.ReadEvents(events, fn) })
	var ne *transport.NoEndpointError
	if errors.As(err, &ne) {
		return &llm.ServerError{Backend: backend, Status: ne.Status,
			Message: "the server has no POST " + p + " — is this a llama.cpp server?"}
	}
	return err
}

// httpError maps an error status of endpoint p (transport.Endpoint's
// Refused).
func (c *Client) httpError(_, p string, res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	e := parseErrorBody(raw)
	switch {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		return &transport.NoEndpointError{Backend: backend, Path: p, Status: res.StatusCode}
	case res.StatusCode == http.StatusServiceUnavailable:
		return &llm.LoadingError{Backend: backend, Addr: c.ep.Addr}
	}
	e.Message = c.ep.Auth.Redact(e.Message)
	err := e.typed(res.StatusCode, "")
	if se, ok := err.(*llm.ServerError); ok && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		se.Message += c.keyAdvice()
	}
	return err
}

// keyAdvice says what to do about a refused request for an API key.
func (c *Client) keyAdvice() string {
	if c.ep.Auth.Key == "" {
		return " — the server wants an API key: set " + keyVar + " (or " + fallbackKeyVar + ") to the value of llama-server's --api-key"
	}
	return " — the server refused the API key from " + c.ep.Auth.Var + ": check it against llama-server's --api-key"
}
