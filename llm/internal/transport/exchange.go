package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// ErrNoEndpoint is matched (errors.Is) by a *NoEndpointError.
var ErrNoEndpoint = errors.New("endpoint not provided by this server")

// NoEndpointError is a 404 or 405 from an endpoint the server lacks (a
// backend tells which server it is from which endpoints answer).
type NoEndpointError struct {
	Backend, Path string
	Status        int
}

func (e *NoEndpointError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Backend, e.Path, ErrNoEndpoint)
}

func (e *NoEndpointError) Is(target error) bool { return target == ErrNoEndpoint }

// Send sends one request to path p below the endpoint's URL: body, when
// not nil, as JSON, accepting accept, with the API key as a bearer token.
func (e *Endpoint) Send(ctx context.Context, method, p string, body any, accept string) (*http.Response, error) {
	req, err := NewJSONRequest(ctx, method, e.Base.JoinPath(p), body, accept)
	if err != nil {
		return nil, err
	}
	setBearer(req, e.Auth)
	return e.HTTP.Do(req)
}

// setBearer sends auth's key, when there is one, as a bearer token.
func setBearer(req *http.Request, auth llm.Auth) {
	if auth.Key != "" {
		req.Header.Set("Authorization", "Bearer "+auth.Key)
	}
}

// DoJSON runs one non-streaming request and decodes its JSON answer into
// out. firstByte bounds the wait for the answer (zero: none beyond ctx).
// An error status is what Refused makes of it; an answer that is not JSON
// is a *NotJSONError.
func (e *Endpoint) DoJSON(ctx context.Context, method, p string, body, out any, firstByte time.Duration) error {
	wctx, wd := Watch(ctx, firstByte, 0)
	defer wd.Stop()
	res, err := e.Send(wctx, method, p, body, "application/json")
	if err != nil {
		return Classify(ctx, e.Backend, e.Addr, wd, err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return e.Refused(method, p, res)
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return Classify(ctx, e.Backend, e.Addr, wd, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &NotJSONError{ServerError: &llm.ServerError{Backend: e.Backend, Status: res.StatusCode,
			Message: fmt.Sprintf("%s %s %v (%v)", method, e.Base.Path+p, ErrNotJSON, err)}}
	}
	return nil
}

// ErrNotJSON is matched (errors.Is) by a *NotJSONError.
var ErrNotJSON = errors.New("answered something that is not JSON")

// NotJSONError is a successful answer that is not JSON (vLLM's /health
// has an empty body; a wrong --llm-url often gives an HTML page). It is a
// *llm.ServerError (errors.As) and matches ErrNotJSON.
type NotJSONError struct{ *llm.ServerError }

func (e *NotJSONError) Unwrap() error        { return e.ServerError }
func (e *NotJSONError) Is(target error) bool { return target == ErrNotJSON }

// Stream POSTs body to p for an event stream and hands the answer, read
// through the stream watchdog (the endpoint's first-byte and idle
// timeouts), to read. An error status is what Refused makes of it; read's
// error comes back as it is when it is one of package llm's typed errors
// (the server said so), and a failed or stalled exchange is mapped by
// Classify.
func (e *Endpoint) Stream(ctx context.Context, p string, body any, read func(res *http.Response, events io.Reader) error) error {
	wctx, wd := Watch(ctx, e.Timeouts.FirstByte, e.Timeouts.Idle)
	defer wd.Stop()
	res, err := e.Send(wctx, http.MethodPost, p, body, "text/event-stream")
	if err != nil {
		return Classify(ctx, e.Backend, e.Addr, wd, err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		return e.Refused(http.MethodPost, p, res)
	}
	if err := read(res, &TickReader{R: res.Body, WD: wd}); err != nil {
		if saidByServer(err) {
			return err
		}
		return Classify(ctx, e.Backend, e.Addr, wd, err)
	}
	if ctx.Err() != nil || wd.Stalled() != nil {
		return Classify(ctx, e.Backend, e.Addr, wd, context.Canceled)
	}
	return nil
}

// saidByServer reports whether err is a typed error of package llm made of
// what the server said.
func saidByServer(err error) bool {
	var se *llm.ServerError
	var le *llm.LoadingError
	var ce *llm.ContextExceededError
	var me *llm.ModelNotFoundError
	return errors.As(err, &se) || errors.As(err, &le) || errors.As(err, &ce) || errors.As(err, &me)
}
