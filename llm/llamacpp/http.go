package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/transport"
)

func (c *Client) streamError(raw []byte) error {
	e := parseErrorBody(raw)
	if e.Code == http.StatusServiceUnavailable {
		return &llm.LoadingError{Backend: backend, Addr: c.addr}
	}
	return e.typed(0, "error during generation: ")
}

// stream POSTs body to p and feeds every event to fn, under the watchdog.
func (c *Client) stream(ctx context.Context, p string, body any, fn func(sseLine) (bool, error)) error {
	wctx, wd := transport.Watch(ctx, c.timeouts.FirstByte, c.timeouts.Idle)
	defer wd.Stop()
	res, err := c.send(wctx, http.MethodPost, p, body, "text/event-stream")
	if err != nil {
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	defer res.Body.Close()
	events := &transport.TickReader{R: res.Body, WD: wd}
	if res.StatusCode >= 400 {
		err := c.httpError(p, res)
		if errors.Is(err, errNoEndpoint) {
			return &llm.ServerError{Backend: backend, Status: res.StatusCode,
				Message: "the server has no POST " + p + " — is this a llama.cpp server?"}
		}
		return err
	}
	err = readEvents(events, fn)
	if err != nil {
		var se *llm.ServerError
		var le *llm.LoadingError
		if errors.As(err, &se) || errors.As(err, &le) {
			return err
		}
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	if ctx.Err() != nil || wd.Stalled() != nil {
		return transport.Classify(ctx, backend, c.addr, wd, context.Canceled)
	}
	return nil
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

// errNotJSON marks a 2xx answer that is not JSON (vLLM's /health has an
// empty body).
var errNotJSON = errors.New("answered something that is not JSON")

// notJSONError is the *llm.ServerError of such an answer, matching
// errNotJSON.
type notJSONError struct{ *llm.ServerError }

func (e notJSONError) Is(target error) bool { return target == errNotJSON }
func (e notJSONError) Unwrap() error        { return e.ServerError }

// httpError maps an error status of endpoint p.
func (c *Client) httpError(p string, res *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	e := parseErrorBody(raw)
	switch {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Errorf("%s %s: %w", backend, p, errNoEndpoint)
	case res.StatusCode == http.StatusServiceUnavailable:
		return &llm.LoadingError{Backend: backend, Addr: c.addr}
	}
	e.Message = c.auth.Redact(e.Message)
	err := e.typed(res.StatusCode, "")
	if se, ok := err.(*llm.ServerError); ok && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden) {
		se.Message += c.keyAdvice()
	}
	return err
}

// keyAdvice says what to do about a refused request for an API key.
func (c *Client) keyAdvice() string {
	if c.auth.Key == "" {
		return " — the server wants an API key: set " + KeyVar + " (or " + FallbackKeyVar + ") to the value of llama-server's --api-key"
	}
	return " — the server refused the API key from " + c.auth.Var + ": check it against llama-server's --api-key"
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
		return c.httpError(p, res)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return transport.Classify(ctx, backend, c.addr, wd, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return notJSONError{&llm.ServerError{Backend: backend, Status: res.StatusCode, Message: fmt.Sprintf("%s %v: %v", p, errNotJSON, err)}}
	}
	return nil
}
