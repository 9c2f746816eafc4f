package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file check that privacy is a property of the thread
// (a follow-up keeps the strictest privacy of its earlier turns unless it
// loosens it with a flag of its own) and that the web policy is a choice
// the user makes (until then: ask, which headless sends nothing).

const (
	vaultSecret   = "hunter2-ZEBRA"
	vaultQuestion = "What is the vault password?"
	vaultFollowUp = "and who else knows it?"
	vaultRewrite  = "Who else knows the vault password " + vaultSecret + "?"
)

// judgeSays is a judge reply.
func judgeSays(status bool) string {
	if status {
		return `{"analysis":"the notes name it","status":true}`
	}
	return `{"analysis":"the notes do not say who else knows it","status":false}`
}

// vaultWorld is a home with a corpus "notes" holding a password.
func vaultWorld(t *testing.T, script *queue) *world {
	t.Helper()
	w := newWorld(t, script)
	notes := filepath.Join(w.home, "notes")
	os.MkdirAll(notes, 0o755)
	if err := os.WriteFile(filepath.Join(notes, "vault.txt"), []byte("Vault access. The vault password is "+vaultSecret+"; only Ada and the facilities manager hold it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := w.run("index", "--corpus", "notes", notes); code != 0 {
		t.Fatalf("index notes: %d\n%s\n%s", code, out, errOut)
	}
	return w
}

// vaultTurn1 answers from the notes (the judge finds them enough: no web).
func vaultTurn1(script *queue) {
	script.add([]string{
		"Thought: The notes may say.\nAction: Search_Engine\nAction Input: vault password",
		"Thought: I know it.\nFinal Answer: The vault password is " + vaultSecret + " [1].\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
	}, []string{judgeSays(true)})
}

// vaultTurn2 is a follow-up whose rewrite quotes the password, whose step
// query carries it, whose judge wants the web and whose weak first answer
// makes the reflection search the rewritten question verbatim.
func vaultTurn2(script *queue) {
	script.add([]string{
		"Standalone question: " + vaultRewrite,
		"Thought: Search who holds it.\nAction: Search_Engine\nAction Input: who knows " + vaultSecret,
		"Thought: Not sure.\nFinal Answer: Ada [1]\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: others may\nImprovement Suggestions: search more",
		"Thought: Enough.\nFinal Answer: Ada and the facilities manager [1].\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
	}, []string{judgeSays(false), judgeSays(false)})
}

// TestThreadKeepsNeverLeave: turn 1 ran with --never-leave notes; turn 2
// (`--continue last` without the flag, in a config that says web = auto)
// has a rewrite quoting the password from a notes passage. Not one request
// reaches the web engine in turn 2 (step, reflection), the rewrite event
// says the never-leave corpus was kept from the thread, and the text
// output's turn header says so too.
func TestThreadKeepsNeverLeave(t *testing.T) {
	for _, mode := range []string{"json", "text"} {
		t.Run(mode, func(t *testing.T) {
			script := &queue{}
			w := vaultWorld(t, script)
			vaultTurn1(script)
			args := w.askArgs("--corpus", "notes", "--never-leave", "notes", "--json", vaultQuestion)
			out, errOut, code := w.run(args...)
			if code != 0 {
				t.Fatalf("turn 1: exit %d\n%s", code, errOut)
			}
			first := rawEvents(t, out)
			if p, _ := first[0]["privacy"].(map[string]any); p == nil || !strings.Contains(strings.Join(anyStrings(p["never_leave"]), ","), "notes") {
				t.Errorf("turn 1's session event does not say what privacy applies: %v", first[0]["privacy"])
			}
			before := w.search.Requests()
			if before != 0 {
				t.Fatalf("turn 1 sent %d web request(s): %q", before, w.search.Queries())
			}

			vaultTurn2(script)
			extra := []string{"--continue", "last"}
			if mode == "json" {
				extra = append(extra, "--json")
			}
			out2, errOut, code := w.run(w.askArgs(append(extra, vaultFollowUp)...)...)
			if code != 0 {
				t.Fatalf("turn 2: exit %d\n%s", code, errOut)
			}
			if n := w.search.Requests() - before; n != 0 {
				t.Fatalf("turn 2 sent %d request(s) to the web engine %q: the thread's never-leave corpus was dropped", n, w.search.Queries())
			}
			if mode == "text" {
				if !strings.Contains(out2, "Privacy: web auto · never-leave notes (kept from earlier turns: never-leave)") {
					t.Errorf("the turn header does not say the thread's privacy applies:\n%s", out2)
				}
				return
			}
			second := rawEvents(t, out2)
			if len(second) == 0 || second[0]["type"] != "rewrite" || !strings.Contains(str(second[0], "rewritten"), vaultSecret) {
				t.Fatalf("turn 2 does not open with a rewrite quoting the passage: %v", second[:min(1, len(second))])
			}
			p, _ := second[0]["privacy"].(map[string]any)
			if p == nil || strings.Join(anyStrings(p["never_leave"]), ",") != "notes" || strings.Join(anyStrings(p["kept"]), ",") != "never_leave" {
				t.Errorf("the rewrite event does not say the never-leave corpus was kept: %v", second[0]["privacy"])
			}
			var held int
			for _, ev := range second {
				if strings.Contains(str(ev, "note"), "never-leave") {
					held++
				}
			}
			if held < 2 {
				t.Errorf("the step and the reflection should both say the web was held back for the never-leave corpus; %d did", held)
			}
		})
	}
}

// TestThreadLoosensOnlyExplicitly: turn 1 ran with --web never; turn 2
// without the flag (config: web = auto) keeps never and sends nothing;
// turn 3 with --web auto loosens it for that turn (the web is searched)
// and the rewrite event records what was loosened. --never-leave "" on a
// turn loosens a never-leave corpus the same way.
func TestThreadLoosensOnlyExplicitly(t *testing.T) {
	script := &queue{}
	w := vaultWorld(t, script)
	vaultTurn1(script)
	if _, errOut, code := w.run(w.askArgs("--corpus", "notes", "--web", "never", "--json", vaultQuestion)...); code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errOut)
	}
	turn := func(n int, flags ...string) (map[string]any, int) {
		t.Helper()
		vaultTurn2(script)
		before := w.search.Requests()
		args := append(append([]string{"--continue", "last", "--json"}, flags...), vaultFollowUp)
		out, errOut, code := w.run(w.askArgs(args...)...)
		if code != 0 {
			t.Fatalf("turn %d: exit %d\n%s", n, code, errOut)
		}
		evs := rawEvents(t, out)
		if len(evs) == 0 || evs[0]["type"] != "rewrite" {
			t.Fatalf("turn %d: no rewrite event", n)
		}
		p, _ := evs[0]["privacy"].(map[string]any)
		return p, w.search.Requests() - before
	}
	p, sent := turn(2)
	if sent != 0 || p == nil || p["web"] != "never" || strings.Join(anyStrings(p["kept"]), ",") != "web" {
		t.Fatalf("turn 2 without --web: %d web request(s), privacy %v; want 0 and web never kept", sent, p)
	}
	p, sent = turn(3, "--web", "auto")
	if sent == 0 || p == nil || p["web"] != "auto" || strings.Join(anyStrings(p["loosened"]), ",") != "web" {
		t.Fatalf("turn 3 with --web auto: %d web request(s), privacy %v; want the web searched and web loosened", sent, p)
	}
	p, sent = turn(4)
	if sent != 0 || p == nil || p["web"] != "never" {
		t.Fatalf("turn 4 without --web: %d web request(s), privacy %v; a loosening holds for its own turn only", sent, p)
	}

	// Never-leave: kept without the flag, loosened with an empty one.
	script2 := &queue{}
	w2 := vaultWorld(t, script2)
	vaultTurn1(script2)
	if _, errOut, code := w2.run(w2.askArgs("--corpus", "notes", "--never-leave", "notes", "--json", vaultQuestion)...); code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errOut)
	}
	vaultTurn2(script2)
	out, errOut, code := w2.run(w2.askArgs("--continue", "last", "--json", "--never-leave", "", vaultFollowUp)...)
	if code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", code, errOut)
	}
	evs := rawEvents(t, out)
	p, _ = evs[0]["privacy"].(map[string]any)
	if w2.search.Requests() == 0 || p == nil || len(anyStrings(p["never_leave"])) != 0 || strings.Join(anyStrings(p["loosened"]), ",") != "never_leave" {
		t.Fatalf("--never-leave \"\": %d web request(s), privacy %v; want the web searched and never_leave loosened", w2.search.Requests(), p)
	}
}

// TestUnchosenWebPolicySendsNothingHeadless: a fresh home whose config
// names no web policy runs `ask` under "ask": headless, the judge's
// switch sends nothing to the web engine, and one line on stderr says
// how to allow it. With --web auto the same question searches the web.
func TestUnchosenWebPolicySendsNothingHeadless(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		script := &queue{}
		w := vaultWorld(t, script)
		os.Remove(w.configFile()) // no choice made
		script.add([]string{
			"Thought: Search.\nAction: Search_Engine\nAction Input: who else knows the vault password",
			"Thought: Enough.\nFinal Answer: Ada [1]\nSelf-Evaluation: CORRECT",
		}, []string{judgeSays(false)})
		args := w.askArgs("--corpus", "notes")
		if asJSON {
			args = append(args, "--json")
		}
		_, errOut, code := w.run(append(args, "Who else knows the vault password?")...)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		if n := w.search.Requests(); n != 0 {
			t.Fatalf("json=%v: with no web policy chosen, %d request(s) reached the web engine: %q", asJSON, n, w.search.Queries())
		}
		var hint []string
		for _, l := range strings.Split(errOut, "\n") {
			if strings.Contains(l, "--web auto") {
				hint = append(hint, l)
			}
		}
		if len(hint) != 1 || !strings.Contains(hint[0], `web = "auto"`) || !strings.Contains(hint[0], w.configFile()) {
			t.Errorf("json=%v: stderr should say in one line how to allow the web (--web auto, or web = \"auto\" in %s):\n%s", asJSON, w.configFile(), errOut)
		}
	}

	// The same machine, with the choice made on the command line.
	script := &queue{}
	w := vaultWorld(t, script)
	os.Remove(w.configFile())
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: who else knows the vault password",
		"Thought: Enough.\nFinal Answer: Ada [1]\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	if _, errOut, code := w.run(w.askArgs("--corpus", "notes", "--web", "auto", "--json", "Who else knows the vault password?")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if w.search.Requests() == 0 {
		t.Fatal("--web auto: the web was not searched")
	}
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
