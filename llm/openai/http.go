package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/sse"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

// stream POSTs body to p and feeds every event to fn, under the watchdog
// (transport.Endpoint.Stream). A server that answers with one JSON object
// instead of a stream has it fed as a single event.
func (c *Client) stream(ctx context.Context, p string, body any, fn func(sse.Line) (bool, error)) error {
	return c.ep.Stream(ctx, p, body, func(res *http.Response, events io.Reader) error {
		if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
			raw, err := io.ReadAll(io.LimitReader(events, sse.MaxEventSize))
			if err == nil {
				_, err = fn(sse.Line{Field: "data", Value: bytes.TrimSpace(raw)})
			}
			return err
		}
		return sse.ReadEvents(events, fn)
	})
}

// doJSON runs one non-streaming request (transport.Endpoint.DoJSON); an
// answer that is not JSON says where the API root usually is.
func (c *Client) doJSON(ctx context.Context, method, p string, body, out any, firstByte time.Duration) error {
	err := c.ep.DoJSON(ctx, method, p, body, out, firstByte)
	var nj *transport.NotJSONError
	if errors.As(err, &nj) {
		nj.Message += " — check --llm-url: it is the API root, usually ending in /v1"
	}
	return err
}

// httpError maps an error answer of endpoint p onto the llm error types,
// with what to do about it.
func (c *Client) httpError(method, p string, res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	e := parseErrorBody(raw)
	e.Message = c.redact(e.Message)
	status := res.StatusCode
	if ce := c.contextExceeded(e, status); ce != nil {
		return ce
	}
	if status == http.StatusNotFound && p == "/chat/completions" && e.namesModel() {
		c.mu.Lock()
		served := append([]string(nil), c.served...)
		model := c.model
		c.mu.Unlock()
		return &llm.ModelNotFoundError{Backend: backend, Model: model, Served: served}
	}
	if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
		if p == "/models" {
			return &transport.NoEndpointError{Backend: backend, Path: p, Status: status}
		}
		return &llm.WrongServerError{Backend: backend, Addr: c.ep.Addr,
			Evidence: fmt.Sprintf("%s %s answered %d", method, c.pathOf(p), status), Looks: c.looks(res.Request.Context())}
	}
	return &llm.ServerError{Backend: backend, Status: status, Type: e.Type, Message: c.advice(status, e.Text())}
}

// advice words a failed answer with what to do.
func (c *Client) advice(status int, msg string) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if c.ep.Auth.Key == "" {
			return msg + " — the server wants an API key: set " + keyVar + " (vLLM: the value of --api-key)"
		}
		return msg + " — the server refused the API key from " + c.ep.Auth.Var + ": check it"
	case status == http.StatusTooManyRequests:
		return msg + " — the server is rate-limiting requests: wait and try again, or raise the limit of the server or proxy"
	case status == http.StatusServiceUnavailable:
		return msg + " — the server is not ready (still starting or overloaded): wait and try again"
	case status >= 500:
		return msg + " — the server failed: see its log"
	}
	return msg
}

// streamError maps an error object sent inside a stream.
func (c *Client) streamError(raw []byte) error {
	e := parseErrorBody(raw)
	e.Message = c.redact(e.Message)
	status := e.Status()
	if ce := c.contextExceeded(e, status); ce != nil {
		return ce
	}
	return &llm.ServerError{Backend: backend, Type: e.Type, Message: "error during generation: " + c.advice(status, e.Text())}
}

// redact removes the API key from anything the server says.
func (c *Client) redact(s string) string { return c.ep.Auth.Redact(s) }
