package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/llm/internal/structured"
)

// FuzzStopCutter: whatever the deltas, the emitted text is the whole text
// cut at the first stop, and no emitted delta ends inside a stop.
func FuzzStopCutter(f *testing.F) {
	f.Add("Thought: a\nObserv", "ation: b", "Obs", "c")
	f.Add("Observation:", "", "x", "y")
	f.Add("ab", "cObservation", ":d", "")
	f.Add("ÅÄÖ Ob", "s", "ervation: ", "é")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		stops := []string{"Observation:", "\nEND"}
		cut := newStopCutter(stops)
		var out strings.Builder
		hit := false
		for _, delta := range []string{a, b, c, d} {
			kept, h := cut.Add(delta)
			out.WriteString(kept)
			if h {
				hit = true
				break
			}
		}
		if !hit {
			out.WriteString(cut.Flush())
		}
		all := a + b + c + d
		want, word := fakellm.CutAtStop(all, stops)
		if hit && word == "" || out.String() != want && word != "" || word == "" && out.String() != all {
			t.Fatalf("deltas %q %q %q %q: emitted %q (hit %v), want %q", a, b, c, d, out.String(), hit, want)
		}
	})
}

// FuzzChatStream runs the whole client against arbitrary chat completion
// output: no panic, no hang, and every failure is an llm error type.
func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":2}}}\n\ndata: [DONE]\n\n"), 200, "text/event-stream")
	f.Add([]byte(`{"error":{"message":"This model's maximum context length is 10 tokens.","type":"BadRequestError","code":400}}`), 400, "application/json")
	f.Add([]byte(`{"object":"error","message":"boom","type":"InternalServerError","code":500}`), 500, "application/json")
	f.Add([]byte("data: {\"object\":\"error\",\"message\":\"x\",\"code\":500}\n\n"), 200, "text/event-stream")
	f.Add([]byte(`{"choices":[{"message":{"content":"whole"},"finish_reason":"length"}]}`), 200, "application/json")
	f.Add([]byte("data: not json\n\n"), 200, "text/event-stream")
	f.Add([]byte(`{"detail":[{"msg":"field required"}]}`), 422, "application/json")
	f.Fuzz(func(t *testing.T, body []byte, status int, ctype string) {
		if status < 200 || status > 599 {
			status = 200
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			_, _ = w.Write(body)
		}))
		defer srv.Close()
		c, err := New(srv.URL+"/v1", "m", Auth{Key: "sk-fuzz-key", Var: keyVar})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = c.Generate(ctx, llm.Request{Prompt: "p", Stop: []string{"Observation:"}, Schema: judgeSchema}, func(string) {})
		if ctx.Err() != nil {
			t.Fatalf("hung on status %d body %q", status, body)
		}
		if err == nil {
			return
		}
		if strings.Contains(err.Error(), "sk-fuzz-key") {
			t.Fatalf("key in error %v", err)
		}
		var se *llm.ServerError
		var ce *llm.ContextExceededError
		var me *llm.ModelNotFoundError
		var we *llm.WrongServerError
		if !errors.As(err, &se) && !errors.As(err, &ce) && !errors.As(err, &me) && !errors.As(err, &we) {
			t.Fatalf("untyped error %v (%T)", err, err)
		}
	})
}

// FuzzValidate: any reply against the judge schema, no panic.
func FuzzValidate(f *testing.F) {
	f.Add(`{"analysis":"a","status":true}`)
	f.Add("```json\n[1,{\"a\":null}]\n```")
	f.Fuzz(func(t *testing.T, reply string) {
		_ = structured.Validate(judgeSchema, reply)
		_ = structured.Validate(strictSchema(judgeSchema), reply)
		_ = parseErrorBody([]byte(reply)).contextExceeded(400)
	})
}
