package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Real servers' behaviours through the real binary (issue 19, item 7 and
// two messages of item 5).

// llama-server refuses the judge's json_schema with 400 "Failed to
// initialize samplers: std::exception": the run goes on with a plain JSON
// object and answers.
func TestLlamaServerRefusesTheJudgeSchema(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.SamplerRefusal())
	out, errOut, code := w.run(w.askArgs("--llm", "llamacpp", "--web", "auto", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if final := payloadsOf[engine.Final](parseEvents(t, out)); len(final) != 1 || final[0].Answer != "1974" {
		t.Fatalf("final %+v", final)
	}
	refused, object := 0, 0
	for _, g := range w.llm.Generations() {
		switch {
		case g.Status == 400:
			refused++
		case string(g.Schema) == `{"type":"object"}`:
			object++
		}
	}
	if refused != 1 || object < 2 {
		t.Errorf("%d refused judge requests (want 1: the fallback is remembered), %d asked for a plain object", refused, object)
	}
}

// A server killed in the middle of a run, whichever backend speaks to it,
// cannot be reached; nothing says
// "connection reset by peer".
func TestKilledServerCannotBeReached(t *testing.T) {
	for _, backend := range []string{"ollama", "llamacpp", "openai"} {
		t.Run(backend, func(t *testing.T) {
			w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: strings.Repeat("thinking ", 40)}}}}, fakellm.KillAfter(5))
			_, errOut, code := w.run(w.noWebArgs("--llm", backend, "--model", "fake-model", caseQuestion)...)
			msg := oneSentence(t, errOut)
			if code != 1 || !strings.Contains(msg, "cannot reach the "+backend+" server") || strings.Contains(msg, "reset by peer") {
				t.Errorf("exit %d, stderr %q", code, msg)
			}
		})
	}
}

// `llama-server --api-key`: the key comes from LLAMA_API_KEY (or
// PREFRAG_LLAMACPP_API_KEY); without it the message names the variable.
func TestLlamacppAPIKeyFromTheEnvironment(t *testing.T) {
	const key = "test-key-not-a-secret-42"
	w := newWorld(t, caseStudyScript(), fakellm.RequireAPIKey(key))
	args := w.noWebArgs("--llm", "llamacpp", caseQuestion)
	_, errOut, code := w.run(args...)
	if msg := oneSentence(t, errOut); code != 1 || !strings.Contains(msg, "PREFRAG_LLAMACPP_API_KEY") {
		t.Errorf("without a key: exit %d, %q", code, msg)
	}
	out, errOut, code := w.runEnv([]string{"LLAMA_API_KEY=" + key}, args...)
	if code != 0 || !strings.Contains(out, "1974") {
		t.Fatalf("with LLAMA_API_KEY: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) {
		t.Error("the key was printed")
	}
}

// --llm llamacpp pointed at Ollama says so and which flag to pass, instead
// of running on the first model Ollama lists.
func TestLlamacppPointedAtOllama(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.AsOllama(), fakellm.Models("tinygo"))
	_, errOut, code := w.run(w.noWebArgs("--llm", "llamacpp", caseQuestion)...)
	if msg := oneSentence(t, errOut); code != 1 || !strings.Contains(msg, "--llm ollama") {
		t.Errorf("exit %d, %q", code, msg)
	}
	if n := len(w.llm.Generations()); n != 0 {
		t.Errorf("%d generations ran on Ollama", n)
	}
}

// --llm openai --model tinygo against Ollama's /v1, which lists
// "tinygo:latest", runs.
func TestOpenAIBackendOnOllamaImpliedTag(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.AsOllama(), fakellm.Models("tinygo"))
	out, errOut, code := w.run("ask", "--llm", "openai", "--llm-url", w.llm.URL()+"/v1", "--model", "tinygo", "--web", "never", caseQuestion)
	if code != 0 || !strings.Contains(out, "1974") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// An empty model list gets its own sentence.
func TestEmptyModelListMessage(t *testing.T) {
	w := newWorld(t, caseStudyScript(), fakellm.AsOllama(), fakellm.Models())
	_, errOut, code := w.run("ask", "--llm", "openai", "--llm-url", w.llm.URL()+"/v1", "--web", "never", caseQuestion)
	if msg := oneSentence(t, errOut); code != 1 || !strings.Contains(msg, "lists no model") || strings.Contains(msg, "several") {
		t.Errorf("exit %d, %q", code, msg)
	}
}

// llm_timeout = "1ns" against a live server is a timeout that names the
// setting, not "cannot reach … start it".
func TestLLMTimeoutThatFires(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	for _, how := range []string{"flag", "config"} {
		t.Run(how, func(t *testing.T) {
			args := w.noWebArgs("--model", "fake-model", caseQuestion)
			if how == "flag" {
				args = w.noWebArgs("--model", "fake-model", "--llm-timeout", "1ns", caseQuestion)
			} else {
				w.config("llm_timeout = \"1ns\"\n")
				defer w.config("")
			}
			_, errOut, code := w.run(args...)
			msg := oneSentence(t, errOut)
			if code != 1 || !strings.Contains(msg, "within 1ns") || !strings.Contains(msg, "llm_timeout") || strings.Contains(msg, "start it") || strings.Contains(msg, "cannot reach") {
				t.Errorf("exit %d, %q", code, msg)
			}
		})
	}
}

// A follow-up whose rewrite hit its token limit is searched as typed, with
// a notice; the cut rewrite is never the question.
func TestRewriteCutAtItsLimit(t *testing.T) {
	cs := caseStudyScript()
	script := &queue{}
	script.add(cs.Steps, cs.Judges)
	r := &runawayOnce{next: script}
	w := newWorld(t, r)
	if _, errOut, code := w.run(w.askArgs("--web", "never", caseQuestion)...); code != 0 {
		t.Fatalf("first question: %s", errOut)
	}
	script.add(followUpSteps("[1]")[1:], nil)
	r.arm.Store(true)
	out, errOut, code := w.run(w.askArgs("--web", "never", "--json", "--continue", "last", followUp)...)
	if code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", code, errOut)
	}
	evs := parseEvents(t, out)
	rw := ofType(evs, "rewrite")
	if len(rw) != 1 || rw[0].Payload.(engine.Rewrite).Rewritten != followUp {
		t.Fatalf("rewrite events %+v", rw)
	}
	found := false
	for _, e := range payloadsOf[engine.Notice](evs) {
		if !e.Fatal && strings.Contains(e.Message, "rewrite was cut at its limit") && strings.Contains(e.Message, "as typed") {
			found = true
		}
	}
	if !found {
		t.Errorf("no notice of the cut rewrite: %+v", ofType(evs, "error"))
	}
	for _, g := range w.llm.Generations() {
		if strings.Contains(g.Prompt, "Where did Carsten Olsen work and") && !strings.Contains(g.Prompt, "Standalone") && g.Options["num_predict"] == nil {
			t.Errorf("the cut rewrite reached a prompt: %q", g.Prompt[:min(len(g.Prompt), 200)])
		}
	}
}

// runawayOnce answers the first step call after arm with a model that
// never stops (cut by the server at the rewrite's limit), then defers.
type runawayOnce struct {
	next fakellm.Responder
	arm  atomic.Bool
}

func (r *runawayOnce) Respond(c fakellm.Call) fakellm.Reply {
	if c.Kind() == fakellm.KindStep && r.arm.CompareAndSwap(true, false) {
		return fakellm.Reply{Text: "Where did Carsten Olsen work and ", Runaway: true}
	}
	return r.next.Respond(c)
}

// config writes the config file (empty text: none).
func (w *world) config(text string) {
	w.t.Helper()
	dir := filepath.Join(w.home, "config", "prefrag")
	if text == "" {
		_ = os.Remove(filepath.Join(dir, "config.toml"))
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}
