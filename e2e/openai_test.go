package e2e

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

const openaiKey = "sk-e2e-test-key-5f3a9c"

// runWithEnv runs the binary with extra environment variables.
func (w *world) runWithEnv(extra []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := w.command(ctx, args...)
	cmd.Env = append(cmd.Env, extra...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code == 0 {
		w.t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// An OpenAI-compatible server that refuses response_format json_schema
// (as some chat templates make it) and wants an API key: the judge falls
// back to json_object once and still decides the case study's two
// switches; the served model is adopted without --model; the key reaches
// the server and nowhere else.
func TestAskOpenAISchemaRefusedAndAPIKey(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.OpenAI(), fakellm.RefuseJSONSchema(), fakellm.RequireAPIKey(openaiKey))
	args := []string{"ask", "--llm", "openai", "--llm-url", w.llm.URL() + "/v1",
		"--web-engine", "searxng", "--searxng-url", w.search.URL(), "--json", caseQuestion}

	// Without the key: one sentence saying which variable to set.
	_, errOut, code := w.run(args...)
	if code == 0 || !strings.Contains(errOut, "PREFRAG_OPENAI_API_KEY") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Fatalf("without the key: exit %d, stderr %q", code, errOut)
	}

	t0 := time.Now()
	out, errOut, code := w.runWithEnv([]string{"PREFRAG_OPENAI_API_KEY=" + openaiKey}, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	t.Logf("ask against the schema-refusing OpenAI fake: %v", time.Since(t0))
	evs := parseEvents(t, out)
	want := "session thought action retrieval selection observation thought action retrieval selection retrieval observation thought answer final"
	if got := strings.Join(types(evs), " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	sel := payloadsOf[engine.Selection](evs)
	if !*sel[0].Status || *sel[1].Status || *sel[1].NextSource != "web:searxng" {
		t.Errorf("selections %+v %+v", sel[0], sel[1])
	}
	for _, ev := range evs {
		if ev.Type() == "warning" {
			t.Errorf("warning %+v", ev.Payload)
		}
	}
	final := payloadsOf[engine.Final](evs)[0]
	if final.Answer != "1974" {
		t.Errorf("final %+v", final)
	}
	// usage.prompt_tokens_details.cached_tokens reaches the counts: each
	// step prompt extends the previous one.
	if c := final.Counts; c.CachedPromptTokens == 0 || c.CachedPromptTokens >= c.PromptTokens {
		t.Errorf("cached %d of %d prompt tokens", c.CachedPromptTokens, c.PromptTokens)
	}
	// json_schema refused once, then json_object for every judge call.
	var formats []string
	for _, r := range w.llm.Requests() {
		if r.Endpoint != "/v1/chat/completions" || r.Status == 401 {
			continue
		}
		if rf, ok := r.BodyMap()["response_format"].(map[string]any); ok {
			formats = append(formats, rf["type"].(string))
		}
	}
	if strings.Join(formats, " ") != "json_schema json_object json_object" {
		t.Errorf("response formats sent: %v", formats)
	}
	// The served model was adopted and recorded.
	if w.llm.Generations()[0].BodyMap()["model"] != fakellm.DefaultModel {
		t.Errorf("model sent %v", w.llm.Generations()[0].BodyMap()["model"])
	}
	id := evs[0].Session
	list, _, _ := w.run("sessions", "list", "--json")
	if !strings.Contains(list, `"model":"`+fakellm.DefaultModel+`"`) {
		t.Errorf("sessions list: %s", list)
	}
	md := filepath.Join(w.home, "case.md")
	shown, _, _ := w.run("sessions", "show", id, "--json")
	if _, errOut, code := w.run("sessions", "export", id, "--format", "md", "-o", md); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	// The key appears in no output, export, log or stored file.
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "show": shown, "list": list} {
		if strings.Contains(text, openaiKey) {
			t.Errorf("the API key appears in %s", name)
		}
	}
	_ = filepath.WalkDir(w.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(openaiKey)) {
			t.Errorf("the API key is stored in %s", p)
		}
		return nil
	})
}

// The start-up failures of --llm openai are one sentence saying what to do.
func TestAskOpenAIFailures(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.OpenAI(), fakellm.Models("Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"))
	closed := fakellm.ClosedURL(t)
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"unreachable", []string{"--llm-url", closed + "/v1"}, []string{strings.TrimPrefix(closed, "http://"), "vllm serve"}},
		{"wrong model", []string{"--llm-url", w.llm.URL() + "/v1", "--model", "qwen2.5:7b"},
			[]string{"model qwen2.5:7b not found", `"Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"`, "--model"}},
		{"several served, none given", []string{"--llm-url", w.llm.URL() + "/v1"}, []string{"serves several", `"Qwen/Qwen2.5-7B-Instruct"`}},
		{"not the API root", []string{"--llm-url", w.llm.URL() + "/api", "--model", "Qwen/Qwen2.5-7B-Instruct"}, []string{"does not look like an OpenAI-compatible server", "/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"ask", "--llm", "openai", "--web", "never"}, tt.args...)
			t0 := time.Now()
			_, errOut, code := w.run(append(args, "Q?")...)
			if took := time.Since(t0); took > 8*time.Second {
				t.Errorf("took %v", took)
			}
			t.Logf("stderr: %s", errOut)
			if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("exit %d, stderr %q", code, errOut)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
		})
	}
	if n := len(w.llm.Generations()); n != 0 {
		t.Errorf("%d generations sent", n)
	}
}

// A server that ignores max_tokens and streams forever: the client's own
// limit ends each call, as on the other backends.
func TestFaultOpenAIStreamsForever(t *testing.T) {
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "and so on ", Endless: true}}}}, fakellm.OpenAI())
	out, errOut, code, elapsed := w.timed("ask", "--llm", "openai", "--llm-url", w.llm.URL()+"/v1", "--web", "never", "--json", caseQuestion)
	t.Logf("a server streaming forever ended the run after %s", elapsed.Round(time.Millisecond))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if elapsed > 30*time.Second {
		t.Errorf("took %s", elapsed)
	}
	evs := parseEvents(t, out)
	final := payloadsOf[engine.Final](evs)
	if len(final) != 1 || !final[0].Forced {
		t.Fatalf("final %+v", final)
	}
	notices := 0
	for _, e := range payloadsOf[engine.Notice](evs) {
		if strings.Contains(e.Message, "generation limit (1024 tokens)") && !e.Fatal {
			notices++
		}
	}
	if gens := w.llm.Generations(); notices != 2 || len(gens) != 2 {
		t.Errorf("%d generation-limit notices, %d generations; want 2 and 2", notices, len(gens))
	}
	if c := final[0].Counts; c.OutputTokens < 2*1024 {
		t.Errorf("output_tokens %d", c.OutputTokens)
	}
}

// A prompt longer than the served model's context (max_model_len from
// GET /v1/models) stops the run with one sentence, and is never sent.
func TestFaultOpenAIContextExceeded(t *testing.T) {
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "Final Answer: never"}}}},
		fakellm.OpenAI(), fakellm.ContextLength(256), fakellm.EnforceContext())
	_, errOut, code, elapsed := w.timed("ask", "--llm", "openai", "--llm-url", w.llm.URL()+"/v1", "--web", "never", caseQuestion)
	msg := oneSentence(t, errOut)
	t.Logf("context overflow: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), msg)
	if code != 1 || !strings.Contains(msg, "does not fit") || !strings.Contains(msg, "context of 256 tokens") || !strings.Contains(msg, "--max-model-len") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if n := len(w.llm.Generations()); n != 0 || !strings.Contains(msg, "not sent") {
		t.Errorf("%d generation requests, want none", n)
	}
}
