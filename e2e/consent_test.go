package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
)

// The tests of this file check that nothing leaves the machine unasked:
// no corpus means no web query without an opt-in; deleting the pinned
// corpus leaves none pinned (and none searched); the reflection
// supplement's web query obeys --web ask and --never-leave.

// rawEvents parses JSON Lines into maps, so that fields added to the event
// contract are read as the binary wrote them.
func rawEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON event line: %q: %v", sc.Text(), err)
		}
		evs = append(evs, m)
	}
	return evs
}

func rawOfType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

// emptyWorld is a home with no corpus at all, with its own fakes.
func emptyWorld(t *testing.T, r fakellm.Responder) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir()}
	w.llm = fakellm.New(t, r)
	w.search = fakesearch.New(fakesearch.Options{Docs: webDocs})
	t.Cleanup(w.search.Close)
	w.docs = filepath.Join(w.home, "docs")
	os.MkdirAll(w.docs, 0o755)
	w.addConfig(chosenWeb)
	return w
}

// searchThenAnswer searches once and answers CORRECT (no reflection).
func searchThenAnswer() *fakellm.Script {
	return &fakellm.Script{Steps: []string{
		"Thought: I need to look it up.\nAction: Search_Engine\nAction Input: confidential merger plan of our company",
		"Thought: I now know the final answer\nFinal Answer: unknown\nSelf-Evaluation: CORRECT",
	}}
}

const privateQuestion = "What is the confidential merger plan of our company?"

// Item 1: with no corpus at all, `ask` (default --web auto) sends not one
// request to the search engine; the header and a non-fatal notice say that
// nothing is searched and how to opt in. --web-only, or web_only = true in
// the config, opts in: the web is searched and the notice names it.
func TestNoCorpusSendsNoWebQueryWithoutOptIn(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		config     string
		wantWeb    bool
		wantNotice []string
	}{
		{"default auto is not consent", nil, "", false, []string{"no local corpus is searched", "there is none yet", "--web-only", "web_only = true"}},
		{"--web-only opts in", []string{"--web-only"}, "", true, []string{"no local corpus is searched", "searching the web only (web:searxng)"}},
		{"web_only in the config opts in", nil, "web_only = true\n", true, []string{"searching the web only (web:searxng)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := emptyWorld(t, searchThenAnswer())
			if tt.config != "" {
				w.addConfig(tt.config)
			}
			args := append(w.askArgs(tt.args...), "--json", privateQuestion)
			out, errOut, code := w.run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			reqs := w.search.Requests()
			t.Logf("search engine requests: %d (queries %q)", reqs, w.search.Queries())
			if tt.wantWeb && reqs == 0 {
				t.Fatal("opted in, but the web was not searched")
			}
			if !tt.wantWeb && reqs != 0 {
				t.Fatalf("the search engine received %d request(s) %q without an opt-in", reqs, w.search.Queries())
			}
			evs := rawEvents(t, out)
			if len(evs) < 2 || evs[1]["type"] != "error" || evs[1]["fatal"] != false {
				t.Fatalf("the second event must be a non-fatal notice: %v", evs[:min(2, len(evs))])
			}
			for _, want := range tt.wantNotice {
				if !strings.Contains(str(evs[1], "message"), want) {
					t.Errorf("notice %q lacks %q", str(evs[1], "message"), want)
				}
			}
		})
	}
	t.Run("text header", func(t *testing.T) {
		w := emptyWorld(t, searchThenAnswer())
		out, errOut, code := w.run(append(w.askArgs(), privateQuestion)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		head := strings.SplitN(out, "\n", 3)
		if len(head) < 3 || !strings.Contains(head[1], "no corpus (none yet)") || !strings.Contains(head[1], "web off (no corpus; --web-only not given)") {
			t.Errorf("header does not say what is searched:\n%s", out)
		}
		if !strings.Contains(out, "warning: no local corpus is searched") || w.search.Requests() != 0 {
			t.Errorf("notice missing or web searched (%d requests):\n%s", w.search.Requests(), out)
		}
	})
}

// Item 2: the first corpus is pinned automatically; `corpora rm` needs
// --yes off a terminal; removing the pinned corpus promotes no other, and
// the next `ask` searches no corpus (and, with no opt-in, not the web),
// saying so; `corpora unpin` leaves nothing pinned.
func TestRemovingThePinnedCorpusPinsNothing(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{Steps: []string{
		"Thought: look\nAction: Search_Engine\nAction Input: Sørensen pH",
		"Thought: done\nFinal Answer: unknown\nSelf-Evaluation: CORRECT",
		"Thought: look\nAction: Search_Engine\nAction Input: Sørensen pH",
		"Thought: done\nFinal Answer: 1939\nSelf-Evaluation: CORRECT",
	}})
	w.write("sorensen.md", "# Sørensen\n\nSørensen introduced the concept of pH.\n")
	out, errOut, code := w.run("index", "--corpus", "wiki", w.docs)
	if code != 0 || !strings.Contains(out, "corpus wiki is pinned") {
		t.Fatalf("first index (exit %d) does not say it pinned wiki:\n%s%s", code, out, errOut)
	}
	out, _, code = w.run("index", "--corpus", "notes", w.docs)
	if code != 0 || strings.Contains(out, "is pinned") {
		t.Fatalf("second index pinned notes or failed (exit %d):\n%s", code, out)
	}
	pinned := func() []string {
		t.Helper()
		out, errOut, code := w.run("corpora", "--json")
		if code != 0 {
			t.Fatalf("corpora --json: %s", errOut)
		}
		var names []string
		for _, c := range rawEvents(t, out) {
			if c["pinned"] == true {
				names = append(names, str(c, "name"))
			}
		}
		return names
	}
	if p := pinned(); len(p) != 1 || p[0] != "wiki" {
		t.Fatalf("pinned = %v, want [wiki]", p)
	}

	// No terminal, no --yes: nothing is deleted.
	_, errOut, code = w.run("corpora", "rm", "wiki")
	if code != 2 || !strings.Contains(errOut, "--yes") {
		t.Fatalf("rm without --yes: exit %d, %q; want 2 and a hint at --yes", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(w.home, "data", "corpora", "wiki")); err != nil {
		t.Fatalf("wiki was deleted without --yes: %v", err)
	}
	out, errOut, code = w.run("corpora", "rm", "wiki", "--yes")
	if code != 0 || !strings.Contains(out, "no other corpus takes its place") {
		t.Fatalf("rm --yes: exit %d\n%s%s", code, out, errOut)
	}
	if p := pinned(); len(p) != 0 {
		t.Fatalf("after rm of the pinned corpus, pinned = %v, want none", p)
	}

	out, errOut, code = w.run(append(w.askArgs(), "--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	evs := rawEvents(t, out)
	for _, r := range rawOfType(evs, "retrieval") {
		t.Errorf("searched %s although nothing is pinned and no --corpus was given", str(r, "source"))
	}
	if w.search.Requests() != 0 {
		t.Errorf("the web was searched (%d requests) without an opt-in", w.search.Requests())
	}
	cfg, _ := evs[0]["config"].(map[string]any)
	if cfg["corpus_choice"] != "none-pinned" {
		t.Errorf("session config = %v", cfg)
	}
	if msg := str(evs[1], "message"); evs[1]["fatal"] != false || !strings.Contains(msg, "none is pinned") || !strings.Contains(msg, "prefrag corpora pin NAME") {
		t.Errorf("notice = %v", evs[1])
	}

	// Pin, then unpin: nothing pinned again.
	if _, errOut, code := w.run("corpora", "pin", "notes"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code = w.run("corpora", "unpin")
	if code != 0 || !strings.Contains(out, "unpinned notes") {
		t.Fatalf("unpin: exit %d\n%s%s", code, out, errOut)
	}
	if p := pinned(); len(p) != 0 {
		t.Fatalf("after unpin, pinned = %v", p)
	}
	// --corpus still searches a named corpus.
	out, errOut, code = w.run(append(w.askArgs(), "--json", "--corpus", "notes", "--web", "never", caseQuestion)...)
	if code != 0 {
		t.Fatalf("ask --corpus: exit %d: %s", code, errOut)
	}
	if r := rawOfType(rawEvents(t, out), "retrieval"); len(r) != 1 || str(r[0], "source") != "local:notes" {
		t.Errorf("ask --corpus notes retrievals = %v", r)
	}
}

// Item 2 on a terminal: `corpora rm` asks, and only "y" deletes.
func TestCorporaRmAsksOnATerminal(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	w.write("a.md", "# A\n\nSomething.\n")
	if _, errOut, code := w.run("index", "--corpus", "notes", w.docs); code != 0 {
		t.Fatal(errOut)
	}
	gone := func() bool {
		_, err := os.Stat(filepath.Join(w.home, "data", "corpora", "notes"))
		return os.IsNotExist(err)
	}
	for _, answer := range []string{"n", "y"} {
		s := startTmux(t, w, w.home, "corpora", "rm", "notes")
		s.waitFor("prompt", 15*time.Second, "Delete corpus notes", "pinned corpus", "[y/N]")
		s.text(answer)
		s.keys("Enter")
		exited(t, s)
		if gone() != (answer == "y") {
			t.Fatalf("answer %q: corpus gone = %v", answer, gone())
		}
	}
}

// Item 3: the reflection supplement (after an answer judged weak) sends the
// question verbatim with no judge decision, as in the paper, but obeys
// --never-leave and --web ask like any web query, and its searches are
// marked as the reflection's.
func TestReflectionSupplementObeysWebConsent(t *testing.T) {
	weakThenDone := func() *fakellm.Script {
		return &fakellm.Script{Steps: []string{
			"Thought: I think I know.\nFinal Answer: 1939\nSelf-Evaluation: INCORRECT\nExplanation: a guess\nImprovement Suggestions: search",
			"Thought: I now know the final answer\nFinal Answer: 1974\nSelf-Evaluation: CORRECT",
		}}
	}
	tests := []struct {
		name     string
		args     []string
		wantWeb  int
		wantNote string
	}{
		{"--never-leave holds it back headless", []string{"--never-leave", "wiki"}, 0, "never-leave"},
		{"--web ask holds it back headless", []string{"--web", "ask"}, 0, "has no one to ask for consent"},
		{"--web auto sends the question verbatim", nil, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, weakThenDone())
			out, errOut, code := w.run(append(w.askArgs(tt.args...), "--json", caseQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			qs := w.search.Queries()
			if len(qs) != tt.wantWeb {
				t.Fatalf("web queries %q, want %d", qs, tt.wantWeb)
			}
			if tt.wantWeb > 0 && qs[0] != caseQuestion {
				t.Errorf("the reflection must send the question verbatim, sent %q", qs[0])
			}
			evs := rawEvents(t, out)
			sup := rawOfType(evs, "supplement")
			if len(sup) != 1 || !strings.Contains(str(sup[0], "note"), tt.wantNote) || (tt.wantNote == "" && str(sup[0], "note") != "") {
				t.Errorf("supplement = %v, want note %q", sup, tt.wantNote)
			}
			rets := rawOfType(evs, "retrieval")
			if len(rets) != 1+tt.wantWeb {
				t.Fatalf("retrievals = %v", rets)
			}
			for _, r := range rets {
				if r["reflection"] != true || str(r, "query") != caseQuestion {
					t.Errorf("retrieval not marked as the reflection's: %v", r)
				}
			}
		})
	}
	t.Run("text output", func(t *testing.T) {
		w := newWorld(t, weakThenDone())
		out, errOut, code := w.run(append(w.askArgs("--never-leave", "wiki"), caseQuestion)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "Reflection search · LOCAL wiki") || !strings.Contains(out, "never-leave") {
			t.Errorf("text output does not show the reflection's search and why the web was not used:\n%s", out)
		}
	})
}

// Item 1 in the TUI: with no corpus the status line says the web is off,
// and a question sends nothing to the search engine.
func TestTUINoCorpusSendsNoWebQuery(t *testing.T) {
	w := emptyWorld(t, searchThenAnswer())
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL()}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("first run", 15*time.Second, "Welcome to prefrag")
	s.keys("Escape")
	s.waitFor("start", 15*time.Second, "web off: no corpus", "web_only = true")
	s.text(privateQuestion)
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Final answer", "no local corpus is searched")
	if n := w.search.Requests(); n != 0 {
		t.Errorf("the TUI sent %d request(s) to the search engine without an opt-in: %q", n, w.search.Queries())
	}
}
