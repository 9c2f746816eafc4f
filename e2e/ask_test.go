package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

func caseStudyScript() *fakellm.Script {
	return &fakellm.Script{
		Steps: []string{
			"Thought: I need the chemist who introduced pH first.\nAction: Search_Engine\nAction Input: Danish chemist who introduced pH",
			"Thought: Now the plant ecologist who assisted him.\nAction: Search_Engine\nAction Input: Danish plant ecologist who assisted Sørensen",
			"Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: Carsten Olsen died in 1974.\nImprovement Suggestions: None",
		},
		Judges: []string{
			`{"analysis": "The passage names Sørensen as the chemist.", "status": true}`,
			`{"analysis": "Only the chemist again; nothing about the ecologist.", "status": false}`,
		},
	}
}

// The paper's case study shape through the real binary: local, judge true,
// local, judge false → web, answer — on every backend (openai: the fake as
// an OpenAI-compatible server, vLLM's shapes).
func TestAskCaseStudy(t *testing.T) {
	for _, backend := range []string{"ollama", "llamacpp", "openai"} {
		t.Run(backend, func(t *testing.T) {
			var opts []fakellm.Option
			if backend == "openai" {
				opts = append(opts, fakellm.OpenAI())
			}
			w := newWorld(t, caseStudyScript(), opts...)
			args := []string{"--llm", backend, "--json", caseQuestion}
			if backend == "openai" {
				args = append([]string{"--llm-url", w.llm.URL() + "/v1"}, args...)
			}
			t0 := time.Now()
			out, errOut, code := w.run(w.askArgs(args...)...)
			elapsed := time.Since(t0)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			t.Logf("prefrag ask against the fake %s server: %v", backend, elapsed)
			evs := parseEvents(t, out)
			want := []string{"session", "thought", "action", "retrieval", "selection", "observation",
				"thought", "action", "retrieval", "selection", "retrieval", "observation", "thought", "answer", "final"}
			if got := types(evs); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("events\n got %v\nwant %v", got, want)
			}
			rets := payloadsOf[engine.Retrieval](evs)
			if rets[0].Source != "local:wiki" || rets[1].Source != "local:wiki" || rets[2].Source != "web:searxng" {
				t.Errorf("retrieval sources %q %q %q", rets[0].Source, rets[1].Source, rets[2].Source)
			}
			sel := payloadsOf[engine.Selection](evs)
			if !*sel[0].Status || *sel[1].Status || *sel[1].NextSource != "web:searxng" {
				t.Errorf("selections %+v %+v", sel[0], sel[1])
			}
			obs := payloadsOf[engine.Observation](evs)
			if obs[1].Source != "web:searxng" || len(obs[1].Discarded) == 0 {
				t.Errorf("switched observation %+v", obs[1])
			}
			final := payloadsOf[engine.Final](evs)[0]
			c := final.Counts
			local, web := 0, 0
			for _, r := range rets {
				if strings.HasPrefix(r.Source, "local:") {
					local++
				} else {
					web++
				}
			}
			gens := w.llm.Generations()
			if c.LocalRetrievals != local || c.WebRetrievals != web || c.JudgeCalls != len(sel) || c.LLMCalls != len(gens) || c.UsedRetrievals != 2 {
				t.Errorf("counts %+v do not match events (local %d web %d judges %d) and %d generations", c, local, web, len(sel), len(gens))
			}
			if final.Answer != "1974" || final.Forced {
				t.Errorf("final %+v", final)
			}
			// What a compatible server sees.
			var steps []string
			for _, g := range gens {
				opts := g.Options
				if backend == "ollama" {
					for _, k := range []string{"num_ctx", "temperature", "top_p"} {
						if _, ok := opts[k]; !ok {
							t.Errorf("ollama options lack %s: %v", k, opts)
						}
					}
				}
				if g.Schema != nil {
					if !strings.Contains(string(g.Schema), "analysis") || !strings.Contains(string(g.Schema), "status") {
						t.Errorf("judge schema %s", g.Schema)
					}
					if backend == "llamacpp" && g.Slot != 1 {
						t.Errorf("judge on slot %d, want 1", g.Slot)
					}
					continue
				}
				if !contains(g.Stop, "Observation:") {
					t.Errorf("step request without the Observation: stop: %v", g.Stop)
				}
				if backend == "llamacpp" && g.Endpoint == "/completion" && g.Slot != 0 {
					t.Errorf("step on slot %d, want 0", g.Slot)
				}
				if backend == "openai" {
					b := g.BodyMap()
					if b["max_tokens"] == nil || b["model"] != "fake-model" {
						t.Errorf("openai step request without max_tokens or model: %s", g.Body)
					}
				}
				steps = append(steps, g.Prompt)
			}
			// Each step prompt is the previous one plus new text. Through a
			// chat template only the closing assistant-turn marker after the
			// prompt differs, so the server's cache still covers the rest.
			for i := 1; i < len(steps); i++ {
				prev, cur := steps[i-1], steps[i]
				shared := commonPrefix(prev, cur)
				if backend == "ollama" && shared != len(prev) || len(prev)-shared > 64 {
					t.Errorf("step prompt %d shares only %d of the previous %d bytes", i, shared, len(prev))
				}
			}
			// The stored session prints exactly what ask printed.
			id := evs[0].Session
			shown, _, code := w.run("sessions", "show", id, "--json")
			if code != 0 || shown != out {
				t.Errorf("sessions show --json differs from ask --json (exit %d)\n%s\n---\n%s", code, shown, out)
			}
			list, _, _ := w.run("sessions", "list", "--json")
			var s map[string]any
			if err := json.Unmarshal([]byte(strings.SplitN(list, "\n", 2)[0]), &s); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"id", "question", "answer", "label", "status", "model", "started", "finished"} {
				if _, ok := s[k]; !ok {
					t.Errorf("sessions list --json lacks %q", k)
				}
			}
			if s["status"] != "answered" || s["answer"] != "1974" || s["label"] != "CORRECT" {
				t.Errorf("listed session %v", s)
			}
		})
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The reflection path: INCORRECT → supplement from local and web with the
// original question → answer.
func TestAskReflection(t *testing.T) {
	script := &fakellm.Script{Steps: []string{
		"Thought: I cannot tell.\nFinal Answer: Not available\nSelf-Evaluation: INCORRECT\nExplanation: nothing found about the ecologist\nImprovement Suggestions: search for who assisted Sørensen",
		"Thought: The supplement names Carsten Olsen.\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: Olsen died in 1974.",
	}}
	w := newWorld(t, script)
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	want := "session thought answer retrieval retrieval supplement thought answer final"
	if got := strings.Join(types(evs), " "); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	for _, r := range payloadsOf[engine.Retrieval](evs) {
		if r.Query != caseQuestion {
			t.Errorf("supplement query %q is not the question verbatim", r.Query)
		}
	}
	if q := w.search.Queries(); len(q) != 1 || q[0] != caseQuestion {
		t.Errorf("web saw %v", q)
	}
	sup := payloadsOf[engine.Supplement](evs)[0]
	if len(sup.DocIDs) < 2 {
		t.Errorf("supplement docs %v", sup.DocIDs)
	}
	final := payloadsOf[engine.Final](evs)[0]
	if final.Answer != "1974" || final.Counts.LocalRetrievals != 1 || final.Counts.WebRetrievals != 1 || final.Counts.Reflections != 1 {
		t.Errorf("final %+v counts %+v", final, final.Counts)
	}
	// The answer's critique stays in the scratchpad for the next step.
	gens := w.llm.Generations()
	if last := gens[len(gens)-1].Prompt; !strings.Contains(last, "search for who assisted Sørensen") || !strings.Contains(last, "Carsten Olsen (1891–1974)") {
		t.Error("second step lacks the critique or the supplement")
	}
}

// Every failure ends with one clear sentence and the right exit code,
// within seconds.
func TestFailures(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	closed := fakellm.ClosedURL(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"server unreachable", []string{"ask", "--llm-url", closed, "--web", "never", "Q?"}, 1, []string{strings.TrimPrefix(closed, "http://"), "ollama serve"}},
		{"llama.cpp unreachable", []string{"ask", "--llm", "llamacpp", "--llm-url", closed, "--web", "never", "Q?"}, 1, []string{"llama-server"}},
		{"model missing", []string{"ask", "--llm-url", w.llm.URL(), "--model", "qwen9:404b", "--web", "never", "Q?"}, 1, []string{"model qwen9:404b not found", "ollama pull qwen9:404b", `the Ollama server has "fake-model:latest"`}},
		{"default model missing", []string{"ask", "--llm-url", w.llm.URL(), "--web", "never", "Q?"}, 1, []string{"not found", `the Ollama server has "fake-model:latest": pass --model with one of them`}},
		{"no question", []string{"ask", "--llm-url", w.llm.URL()}, 2, []string{"needs a question"}},
		{"bad flag value", []string{"ask", "--web", "sometimes", "Q?"}, 2, []string{"--web must be auto, ask or never"}},
		{"unknown flag", []string{"ask", "--frobnicate", "Q?"}, 2, []string{"frobnicate"}},
		{"unknown command", []string{"frobnicate"}, 2, []string{"unknown command"}},
		{"unknown corpus", []string{"ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--corpus", "nope", "--web", "never", "Q?"}, 1, []string{"prefrag index --corpus nope"}},
		{"unknown session", []string{"sessions", "show", "ffffffffff"}, 1, []string{"ffffffffff"}},
		{"index missing path", []string{"index", "/no/such/dir"}, 1, []string{"/no/such/dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			_, errOut, code := w.run(tt.args...)
			if took := time.Since(t0); took > 8*time.Second {
				t.Errorf("took %v", took)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
				t.Errorf("stderr is not one sentence: %q", errOut)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
		})
	}
}

// A blocked web engine is an error event and a note, never a failed run.
func TestWebBlockedKeepsLocal(t *testing.T) {
	w := newWorld(t, caseStudyScript())
	w.search.SetMode("blocked-429")
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, out)
	var warned bool
	for _, e := range payloadsOf[engine.Notice](evs) {
		if !e.Fatal && strings.Contains(e.Message, "block") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no non-fatal blocked error event: %v", payloadsOf[engine.Notice](evs))
	}
	obs := payloadsOf[engine.Observation](evs)[1]
	if obs.Source != "local:wiki" || !strings.Contains(obs.Note, "web unavailable") {
		t.Errorf("observation %+v", obs)
	}
}

func TestCancelledRunKeepsPartialSession(t *testing.T) {
	slow := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		return fakellm.Reply{Text: strings.Repeat("thinking ", 400), ChunkDelay: 20 * time.Millisecond}
	})
	w := newWorld(t, slow)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := w.command(ctx, w.askArgs("--json", "--web", "never", "Q?")...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf) // the session event
	cmd.Process.Signal(interruptSignal)
	rest := make([]byte, 1<<16)
	m, _ := readAll(stdout, rest)
	cmd.Wait()
	out := string(buf[:n]) + string(rest[:m])
	evs := parseEvents(t, out)
	if len(evs) < 2 || evs[len(evs)-1].Type() != "final" || !evs[len(evs)-1].Payload.(engine.Final).Cancelled {
		t.Fatalf("a cancelled run must end with a cancelled final event: %v", types(evs))
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d", code)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	if !strings.Contains(list, `"status":"cancelled"`) {
		t.Errorf("sessions list: %s", list)
	}
	_ = engine.EventFinal
}
