package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 27: counts that are the server's own, in any language. The fake
// counts tokens per script as a small model's tokenizer does (Chinese 5.9
// and figures 2.24 times runes/4) and handles a prompt over the context as
// Ollama 0.34.4 does: it refuses it when the request sends "truncate":
// false, and cuts it (to num_ctx − (num_ctx − 4)/2 tokens) when the request
// does not or the server is older (IgnoreTruncate), or on its /v1.

// scriptCorpus indexes one of the fake's corpora ("chinese", "figures",
// "english") as corpus name.
func scriptCorpus(t *testing.T, w *world, corpus string) {
	t.Helper()
	names, texts := fakellm.Corpus(corpus)
	dir := filepath.Join(w.home, corpus)
	os.MkdirAll(dir, 0o755)
	for _, n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte(texts[n]), 0o644)
	}
	if _, errOut, code := w.run("index", "--corpus", corpus, dir); code != 0 {
		t.Fatalf("index %s: %s", corpus, errOut)
	}
}

// cutQuery is a corpus's two searches.
var cutQuery = map[string][2]string{
	"chinese": {"石拱桥 洪水", "茶叶 贸易"},
	"figures": {"year total change", "reservoir inflow"},
	"english": {"stone bridge", "tea trade"},
}

// twoSearchModel searches twice, then answers citing [1]; it condenses
// observations when asked, and its answer says so when the instructions
// at the head of its prompt were cut away.
func twoSearchModel(corpus string) fakellm.Responder {
	q := cutQuery[corpus]
	return fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		switch {
		case c.Kind() == fakellm.KindJudge:
			return fakellm.Reply{Text: `{"analysis": "relevant", "status": true}`}
		case strings.HasPrefix(c.Prompt, "You are condensing"):
			return fakellm.Reply{Text: "The earlier documents say the bridge was built in 1587 [1]."}
		case !strings.Contains(c.Prompt, "Final Answer"):
			return fakellm.Reply{Text: "Thought: my instructions are gone.\nFinal Answer: BUILT ON A CUT PROMPT\nSelf-Evaluation: CORRECT"}
		case strings.Contains(c.Prompt, "Action Input: "+q[1]):
			return fakellm.Reply{Text: "Thought: enough.\nFinal Answer: as the documents say [1].\nSelf-Evaluation: CORRECT\nExplanation: found"}
		case strings.Contains(c.Prompt, "Action Input: "+q[0]):
			return fakellm.Reply{Text: "Thought: more.\nAction: Search_Engine\nAction Input: " + q[1]}
		}
		return fakellm.Reply{Text: "Thought: search.\nAction: Search_Engine\nAction Input: " + q[0]}
	})
}

// fatalNotice is the run's fatal error event, if any.
func fatalNotice(evs []engine.Event) (engine.Notice, bool) {
	for _, ev := range ofType(evs, "error") {
		if p := ev.Payload.(engine.Notice); p.Fatal {
			return p, true
		}
	}
	return engine.Notice{}, false
}

// noCutAnswer fails the test when an answer built on a cut prompt was
// presented, or a generation the server cut went unnoticed.
func noCutAnswer(t *testing.T, w *world, evs []engine.Event, out string) (cuts int) {
	t.Helper()
	if strings.Contains(out, "BUILT ON A CUT PROMPT") {
		t.Errorf("a reply to a cut prompt was shown")
	}
	for _, g := range w.llm.Generations() {
		if g.KeptTokens > 0 {
			cuts++
		}
	}
	said := 0
	for _, ev := range ofType(evs, "error") {
		if strings.Contains(ev.Payload.(engine.Notice).Message, "cut the") {
			said++
		}
	}
	if said < cuts {
		t.Errorf("%d prompts cut, %d said", cuts, said)
	}
	return cuts
}

// Chinese and figure-heavy corpora against Ollama at --num-ctx 2048 (the
// issue measured -k 2; here -k 6 and a prompt budget of the whole context,
// --refine-budget 100, where counting by runes/4 sends prompts the server
// refuses): prefrag counts the prompts as the server does, so it fits them
// itself — passages left out, observations condensed, said in notices and
// refinement events — and no prompt reaches the context; the answer is the
// model's.
func TestContextFittedInAnyScript(t *testing.T) {
	for _, corpus := range []string{"chinese", "figures"} {
		t.Run(corpus, func(t *testing.T) {
			w := newWorld(t, twoSearchModel(corpus), fakellm.AsOllama(), fakellm.TruncateLikeOllama(), fakellm.CountByScript())
			scriptCorpus(t, w, corpus)
			out, errOut, code := w.run("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--web", "never", "--corpus", corpus,
				"--num-ctx", "2048", "--refine-budget", "100", "-k", "6", "--json", "What does the record say?")
			evs := parseEvents(t, out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			noCutAnswer(t, w, evs, out)
			for _, g := range w.llm.Generations() {
				if g.Status != 200 || g.KeptTokens > 0 {
					t.Errorf("a prompt reached the server's context: HTTP %d, %d tokens", g.Status, g.PromptTokens)
				}
			}
			fitted := len(ofType(evs, "refinement"))
			for _, ev := range ofType(evs, "error") {
				if strings.Contains(ev.Payload.(engine.Notice).Message, "to fit the context") {
					fitted++
				}
			}
			if fitted == 0 {
				t.Errorf("nothing was fitted: the test tested nothing")
			}
			finals := ofType(evs, "final")
			if len(finals) != 1 || !strings.Contains(finals[0].Payload.(engine.Final).Answer, "as the documents say") {
				t.Errorf("final %v", finals)
			}
		})
	}
}

// A tokenizer that reads Chinese and digits more densely than prefrag's
// estimate assumes (twice, four times): at --num-ctx 4096 with a prompt
// budget of the whole context (--refine-budget 100) and -k 4 or 6, the server
// refuses a step prompt prefrag thought fitted (Ollama honouring
// "truncate": false) or cuts it (an older Ollama). Either way prefrag
// learns the real size, leaves passages out and sends the prompt once
// more, saying so; the reply to a cut prompt is never shown as an answer.
func TestContextRefusedOrCutThenFitted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		corpus string
		dense  float64
		k      string
		older  bool
	}{
		{"chinese refused", "chinese", 2, "4", false},
		{"figures refused", "figures", 4, "6", false},
		{"chinese cut by an older Ollama", "chinese", 2, "4", true},
		{"figures cut by an older Ollama", "figures", 4, "6", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []fakellm.Option{fakellm.AsOllama(), fakellm.TruncateLikeOllama(), fakellm.DenseScripts(tc.dense)}
			if tc.older {
				opts = append(opts, fakellm.IgnoreTruncate())
			}
			w := newWorld(t, twoSearchModel(tc.corpus), opts...)
			scriptCorpus(t, w, tc.corpus)
			out, errOut, code := w.run("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--web", "never", "--corpus", tc.corpus,
				"--num-ctx", "4096", "--refine-budget", "100", "-k", tc.k, "--json", "What does the record say?")
			evs := parseEvents(t, out)
			cuts := noCutAnswer(t, w, evs, out)
			refused := 0
			for _, g := range w.llm.Generations() {
				if g.Status == 400 {
					refused++
				}
			}
			if tc.older && cuts == 0 || !tc.older && refused == 0 {
				t.Fatalf("%d prompts refused, %d cut: the test tested nothing", refused, cuts)
			}
			sentAgain := 0
			for _, ev := range ofType(evs, "error") {
				if p := ev.Payload.(engine.Notice); !p.Fatal && strings.Contains(p.Message, "prefrag shortened it") {
					sentAgain++
				}
			}
			finals := ofType(evs, "final")
			if code != 0 || sentAgain == 0 || len(finals) != 1 || !strings.Contains(finals[0].Payload.(engine.Final).Answer, "as the documents say") {
				t.Errorf("exit %d, %d prompts sent again, %d finals: %s", code, sentAgain, len(finals), errOut)
			}
		})
	}
}

// A follow-up that pastes 3,200 Chinese characters cannot be fitted into
// --num-ctx 2048: it is refused before it is sent, naming --num-ctx; the
// run's calls and tokens are counted, and the counts line says it failed.
func TestContextRefusedNamingTheSetting(t *testing.T) {
	w := newWorld(t, twoSearchModel("chinese"), fakellm.AsOllama(), fakellm.TruncateLikeOllama(), fakellm.CountByScript())
	scriptCorpus(t, w, "chinese")
	_, texts := fakellm.Corpus("chinese")
	var paste strings.Builder
	for paste.Len() < 3*3200 {
		for _, text := range texts {
			paste.WriteString(text)
		}
	}
	pasted := string([]rune(paste.String())[:3200])
	out, errOut, code := w.run("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--web", "never", "--corpus", "chinese",
		"--num-ctx", "2048", "-k", "2", "请总结下面这段文字：\n"+pasted)
	if code != 1 || !strings.Contains(errOut, "does not fit the context of 2048 tokens") || !strings.Contains(errOut, "--num-ctx") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "the run failed") || strings.Contains(out, "BUILT ON A CUT PROMPT") {
		t.Errorf("the counts line does not say the run failed:\n%s", out)
	}
	for _, g := range w.llm.Generations() {
		if strings.Contains(g.Prompt, pasted[:200]) {
			t.Errorf("the prompt with the pasted text was sent (%d tokens)", g.PromptTokens)
		}
	}
	// The same pasted as a follow-up (the case: its rewrite prompt
	// was cut and the rewrite used): neither the rewrite nor the step
	// prompt is sent, and the follow-up fails naming --num-ctx.
	if _, errOut, code := w.run("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--web", "never", "--corpus", "chinese",
		"--num-ctx", "2048", "-k", "2", "What does the record say?"); code != 0 {
		t.Fatalf("turn 1: exit %d: %s", code, errOut)
	}
	out, errOut, code = w.run("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--web", "never", "--corpus", "chinese",
		"--num-ctx", "2048", "-k", "2", "--json", "--continue", "last", "请总结下面这段文字：\n"+pasted)
	if code != 1 || !strings.Contains(errOut, "--num-ctx") || strings.Contains(out, "BUILT ON A CUT PROMPT") {
		t.Fatalf("follow-up: exit %d, stderr %q", code, errOut)
	}
	for _, g := range w.llm.Generations() {
		if strings.Contains(g.Prompt, pasted[:200]) {
			t.Errorf("a prompt with the pasted follow-up was sent (%d tokens)", g.PromptTokens)
		}
	}
	if f, failed := fatalNotice(parseEvents(t, out)); !failed || f.Counts == nil {
		t.Errorf("the follow-up's fatal error %+v carries no counts", f)
	}
}

// Ollama's /v1: a native request loaded the runner at 16,384 and /api/ps
// says so, but a /v1 request reloads it at 4,096 a slot. prefrag counts
// with 4,096 from the start, so its prompts fit; a tokenizer that reads
// Chinese twice as densely as prefrag assumes gets a prompt cut, which is
// said with the context the request really ran with (4,096, never
// 16,384), fitted and sent again, and never used as an answer.
func TestOllamaV1ContextOfTheRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dense float64
	}{{"counted right: fitted", 1}, {"denser tokenizer: cut, said, fitted", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, twoSearchModel("chinese"), fakellm.AsOllama(), fakellm.TruncateLikeOllama(), fakellm.DenseScripts(tc.dense))
			scriptCorpus(t, w, "chinese")
			load, err := httpPost(w.llm.URL()+"/api/chat", `{"model":"fake-model","stream":false,"messages":[{"role":"user","content":"hi"}],"options":{"num_ctx":16384}}`)
			if err != nil || load != 200 {
				t.Fatalf("loading the runner at 16384: %d %v", load, err)
			}
			out, errOut, code := w.run("ask", "--llm", "openai", "--llm-url", w.llm.URL()+"/v1", "--model", "fake-model", "--web", "never",
				"--corpus", "chinese", "--refine-budget", "100", "-k", "4", "--json", "What does the record say?")
			evs := parseEvents(t, out)
			cuts := noCutAnswer(t, w, evs, out)
			for _, ev := range ofType(evs, "error") {
				if m := ev.Payload.(engine.Notice).Message; strings.Contains(m, "16384") {
					t.Errorf("a message names the context of the native load: %q", m)
				}
			}
			if strings.Contains(errOut, "16384") {
				t.Errorf("stderr names the context of the native load: %q", errOut)
			}
			if code != 0 || len(ofType(evs, "final")) != 1 {
				t.Errorf("exit %d: %s", code, errOut)
			}
			if tc.dense == 1 {
				if cuts != 0 {
					t.Errorf("%d prompts cut", cuts)
				}
				return
			}
			if cuts == 0 {
				t.Fatalf("no prompt was cut: the test tested nothing")
			}
			for _, ev := range ofType(evs, "error") {
				if m := ev.Payload.(engine.Notice).Message; strings.Contains(m, "cut the") && !strings.Contains(m, "4096 tokens") {
					t.Errorf("the cut is not said with the context the request ran with: %q", m)
				}
			}
		})
	}
}

// httpPost posts a JSON body and returns the status.
func httpPost(url, body string) (int, error) {
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}
