package openai

import (
	"bytes"
	"context"
	"encoding/json"
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

// errNoEndpoint marks a 404/405 from an endpoint the server lacks.
var errNoEndpoint = errors.New("endpoint not provided by this server")

// stream POSTs body to p and feeds every event to fn, under the watchdog.
// A server that answers with one JSON object instead of a stream has it
// fed as a single event.
func (c *Client) stream(ctx context.Context, p string, body any, fn func(sse.Line) (bool, error)) error {
	wctx, wd := transport.Watch(ctx, c.timeouts.FirstByte, c.timeouts.Idle)
	defer wd.Stop()
	res, err := c.send(wctx, http.MethodPost, p, body, "text/event-stream")
	if err != nil {
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	defer res.Body.Close()
	events := &transport.TickReader{R: res.Body, WD: wd}
	if res.StatusCode >= 400 {
		return c.httpError(http.MethodPost, p, res)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		raw, err := io.ReadAll(io.LimitReader(events, sse.MaxEventSize))
		if err == nil {
			_, err = fn(sse.Line{Field: "data", Value: bytes.TrimSpace(raw)})
		}
		if err != nil {
			return c.classify(ctx, wd, err)
		}
		return nil
	}
	if err := sse.ReadEvents(events, fn); err != nil {
		return c.classify(ctx, wd, err)
	}
	if ctx.Err() != nil || wd.Stalled() != nil {
		return transport.Classify(ctx, backend, c.addr, wd, context.Canceled)
	}
	return nil
}

// classify passes the client's own typed errors through and maps the rest.
func (c *Client) classify(ctx context.Context, wd *transport.Watchdog, err error) error {
	var se *llm.ServerError
	var ce *llm.ContextExceededError
	var me *llm.ModelNotFoundError
	if errors.As(err, &se) || errors.As(err, &ce) || errors.As(err, &me) {
		return err
	}
	return transport.Classify(ctx, backend, c.addr, wd, err)
}

func (c *Client) send(ctx context.Context, method, p string, body any, accept string) (*http.Response, error) {
	req, err := transport.NewJSONRequest(ctx, method, c.base.JoinPath(p), body, accept)
	if err != nil {
		return nil, err
	}
	if c.auth.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.auth.Key)
	}
	return c.http.Do(req)
}

// doJSON runs one non-streaming request. firstByte bounds the wait for the
// answer (zero: none beyond ctx).
func (c *Client) doJSON(ctx context.Context, method, p string, body, out any, firstByte time.Duration) error {
	wctx, wd := transport.Watch(ctx, firstByte, 0)
	defer wd.Stop()
	res, err := c.send(wctx, method, p, body, "application/json")
	if err != nil {
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return c.httpError(method, p, res)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &llm.ServerError{Backend: backend, Status: res.StatusCode,
			Message: fmt.Sprintf("GET %s answered something that is not JSON (%v) — check --llm-url: it is the API root, usually ending in /v1", c.pathOf(p), err)}
	}
	return nil
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
			return fmt.Errorf("%s %s: %w", backend, p, errNoEndpoint)
		}
		return &llm.WrongServerError{Backend: backend, Addr: c.addr,
			Evidence: fmt.Sprintf("%s %s answered %d", method, c.pathOf(p), status), Looks: c.looks(res.Request.Context())}
	}
	return &llm.ServerError{Backend: backend, Status: status, Type: e.Type, Message: c.advice(status, e.text())}
}

// advice words a failed answer with what to do.
func (c *Client) advice(status int, msg string) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if c.auth.Key == "" {
			return msg + " — the server wants an API key: set " + KeyVar + " (vLLM: the value of --api-key)"
		}
		return msg + " — the server refused the API key from " + c.auth.Var + ": check it"
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
	status := e.status()
	if ce := c.contextExceeded(e, status); ce != nil {
		return ce
	}
	return &llm.ServerError{Backend: backend, Type: e.Type, Message: "error during generation: " + c.advice(status, e.text())}
}

// redact removes the API key from anything the server says.
func (c *Client) redact(s string) string { return c.auth.Redact(s) }
