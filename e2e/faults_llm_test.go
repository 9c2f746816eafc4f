package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// LLM server faults through the real binary: every one ends in bounded
// time with one clear sentence, the right exit status and no secret.

func (w *world) timed(args ...string) (stdout, stderr string, code int, elapsed time.Duration) {
	w.t.Helper()
	t0 := time.Now()
	stdout, stderr, code = w.run(args...)
	return stdout, stderr, code, time.Since(t0)
}

// noWebArgs point ask at the fake LLM with the web off.
func (w *world) noWebArgs(extra ...string) []string {
	return append([]string{"ask", "--llm-url", w.llm.URL(), "--web", "never"}, extra...)
}

func oneSentence(t *testing.T, stderr string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "prefrag: ") {
		t.Errorf("stderr is not one line from prefrag:\n%s", stderr)
	}
	return lines[len(lines)-1]
}

func TestFaultServerHangsBeforeHeaders(t *testing.T) {
	for _, backend := range []string{"ollama", "llamacpp"} {
		t.Run(backend, func(t *testing.T) {
			w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "Final Answer: too late"}}}},
				fakellm.Latency(10*time.Minute))
			_, errOut, code, elapsed := w.timed(w.noWebArgs("--llm", backend, "--model", "fake-model", "--llm-timeout", "2s", caseQuestion)...)
			t.Logf("%s: a server that never answers ended the run after %s (--llm-timeout 2s, one retry)", backend, elapsed.Round(time.Millisecond))
			msg := oneSentence(t, errOut)
			t.Logf("%s: %s", backend, msg)
			if code != 1 || !strings.Contains(msg, "no answer within 2s") {
				t.Errorf("exit %d, stderr %q", code, msg)
			}
			if elapsed > 30*time.Second {
				t.Errorf("took %s", elapsed)
			}
		})
	}
}

func TestFaultServerStreamsForever(t *testing.T) {
	for _, backend := range []string{"ollama", "llamacpp"} {
		t.Run(backend, func(t *testing.T) {
			w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "and so on ", Endless: true}}}})
			out, errOut, code, elapsed := w.timed(w.noWebArgs("--llm", backend, "--model", "fake-model", "--json", caseQuestion)...)
			t.Logf("%s: a server streaming forever ended the run after %s", backend, elapsed.Round(time.Millisecond))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if elapsed > 30*time.Second {
				t.Errorf("took %s", elapsed)
			}
			evs := parseEvents(t, out)
			final := payloadsOf[engine.Final](evs)
			if len(final) != 1 || !final[0].Forced || len(final[0].Answer) > 1200*32 {
				t.Fatalf("final %+v", final)
			}
			notices := 0
			for _, e := range payloadsOf[engine.Notice](evs) {
				if strings.Contains(e.Message, "generation limit (1024 tokens)") && !e.Fatal {
					notices++
				}
			}
			gens := w.llm.Generations()
			if notices != 2 || len(gens) != 2 {
				t.Errorf("%d generation-limit notices, %d generations; want 2 and 2 (step, forced answer; no corrective retry)", notices, len(gens))
			}
			c := final[0].Counts
			t.Logf("%s: answer %d bytes, output_tokens %d", backend, len(final[0].Answer), c.OutputTokens)
			if c.OutputTokens < 2*1024 {
				t.Errorf("output_tokens %d", c.OutputTokens)
			}
		})
	}
}

func TestFaultContextExceededIsNotRetried(t *testing.T) {
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "Final Answer: never"}}}},
		fakellm.ContextLength(512), fakellm.Slots(2), fakellm.EnforceContext())
	_, errOut, code, elapsed := w.timed(w.noWebArgs("--llm", "llamacpp", "--model", "fake-model", caseQuestion)...)
	msg := oneSentence(t, errOut)
	t.Logf("context overflow: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), msg)
	if code != 1 || !strings.Contains(msg, "does not fit") || !strings.Contains(msg, "256 tokens per slot") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	// The slot's size is known (/props): a prompt that cannot fit is never
	// sent (issue 21), so never retried either.
	if n := len(w.llm.Generations()); n != 0 || !strings.Contains(msg, "not sent") {
		t.Errorf("%d generation requests, want none", n)
	}
}

func TestFaultNotOllama(t *testing.T) {
	w := newWorld(t, nil)
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	_, errOut, code, elapsed := w.timed("ask", "--llm-url", other.URL, "--web", "never", caseQuestion)
	msg := oneSentence(t, errOut)
	t.Logf("non-Ollama server: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), msg)
	if code != 1 || !strings.Contains(msg, "does not look like Ollama") || strings.Contains(msg, "ollama pull") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}

func TestFaultPasswordNeverPrinted(t *testing.T) {
	const pw = "s3cretpw"
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "Final Answer: 1974\nSelf-Evaluation: CORRECT"}}}})
	withPW := func(u string) string { return strings.Replace(u, "http://", "http://alice:"+pw+"@", 1) }
	var seen []string
	for _, u := range []string{withPW(fakellm.ClosedURL(t)), withPW(w.llm.URL())} {
		out, errOut, code := w.run("ask", "--llm-url", u, "--model", "fake-model", "--web", "never", "--json", caseQuestion)
		seen = append(seen, out, errOut)
		if strings.HasPrefix(u, withPW(w.llm.URL())) {
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			evs := parseEvents(t, out)
			id := evs[0].Session
			for _, args := range [][]string{{"sessions", "show", id, "--json"}, {"sessions", "list", "--json"}, {"sessions", "export", id, "--format", "json"}, {"sessions", "export", id, "--format", "md"}} {
				o, e, _ := w.run(args...)
				seen = append(seen, o, e)
			}
		} else if code != 1 || !strings.Contains(errOut, "cannot reach") {
			t.Errorf("unreachable: exit %d %s", code, errOut)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.home, "data", "prefrag.log")); err == nil {
		seen = append(seen, string(b))
	}
	for _, s := range seen {
		if strings.Contains(s, pw) {
			t.Errorf("the password was printed: …%s…", s[max(0, strings.Index(s, pw)-80):min(len(s), strings.Index(s, pw)+20)])
		}
	}
}

func TestLlamaCppServedModelIsRecorded(t *testing.T) {
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: "Final Answer: 1974\nSelf-Evaluation: CORRECT"}}}},
		fakellm.Models("qwen2.5-0.5b-instruct"), fakellm.ContextLength(8192), fakellm.Slots(2))
	out, errOut, code := w.run(w.noWebArgs("--llm", "llamacpp", "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sess := parseEvents(t, out)[0].Payload.(engine.SessionStart)
	if sess.Config == nil || sess.Config.Model != "qwen2.5-0.5b-instruct" || sess.Config.ServerCtx != 4096 {
		t.Errorf("session config %+v", sess.Config)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	if !strings.Contains(list, `"model":"qwen2.5-0.5b-instruct"`) {
		t.Errorf("sessions list: %s", list)
	}
	for _, g := range w.llm.Generations() {
		if n, _ := g.Options["n_predict"].(float64); n != 1024 {
			t.Errorf("n_predict %v, want 1024 (a quarter of the 4096-token slot)", g.Options["n_predict"])
		}
	}
}

func TestFaultRunTimeout(t *testing.T) {
	w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: fakellm.Reply{Text: strings.Repeat("slowly ", 1000)}}}},
		fakellm.ChunkDelay(50*time.Millisecond))
	out, errOut, code, elapsed := w.timed(w.noWebArgs("--model", "fake-model", "--run-timeout", "2s", "--json", caseQuestion)...)
	msg := oneSentence(t, errOut)
	t.Logf("--run-timeout 2s: exit %d after %s: %s", code, elapsed.Round(time.Millisecond), msg)
	if code != 1 || !strings.Contains(msg, "time limit (--run-timeout 2s)") || !strings.Contains(msg, "partial session is saved") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if elapsed > 30*time.Second {
		t.Errorf("took %s", elapsed)
	}
	evs := parseEvents(t, out)
	if f := payloadsOf[engine.Final](evs); len(f) != 1 || !f[0].Cancelled || f[0].Counts.OutputTokens == 0 {
		t.Errorf("final %+v", f)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	if !strings.Contains(list, `"status":"cancelled"`) {
		t.Errorf("sessions list: %s", list)
	}
}
