package e2e

import (
	"strings"
	"testing"
	"time"
)

// The tests of this file check that privacy is about content, not only
// bookkeeping: the never-leave corpus "notes" is not searched (the runs
// search wiki), so none of its passages is ever in the context, yet a
// query carrying its password — typed by the user in a question or a
// follow-up, copied by a rewrite, repeated by the reflection — reaches no
// web engine; a query of ordinary words that also occur in the notes does.

// contentArgs are ask's flags for a run on wiki with notes never-leave.
func contentArgs(w *world, extra ...string) []string {
	return w.askArgs(append([]string{"--corpus", "wiki", "--never-leave", "notes", "--json"}, extra...)...)
}

// heldNotes are the notes of a run's events that say the web was held for
// the notes; none may quote the password.
func heldNotes(t *testing.T, out string) int {
	t.Helper()
	n := 0
	for _, ev := range rawEvents(t, out) {
		note := str(ev, "note")
		if strings.Contains(strings.ToLower(note), "hunter2") {
			t.Errorf("a %s event's note quotes the password: %q", str(ev, "type"), note)
		}
		if strings.Contains(note, `from never-leave corpus "notes"`) {
			n++
		}
	}
	return n
}

// TestNeverLeaveContentHeadless: the user's question carries the notes'
// password; the step query that would go to the web and the reflection's
// question carry it too. Nothing reaches the web engine, and the step and
// the reflection both say why (an identifier from never-leave corpus
// "notes"). The same question without the password searches the web.
func TestNeverLeaveContentHeadless(t *testing.T) {
	script := &queue{}
	w := vaultWorld(t, script)
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: who knows " + vaultSecret,
		"Thought: Not sure.\nFinal Answer: Ada\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: unsure\nImprovement Suggestions: search more",
		"Thought: Enough.\nFinal Answer: Ada\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	out, errOut, code := w.run(contentArgs(w, "Who else knows the vault password "+vaultSecret+"?")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := w.search.Requests(); n != 0 {
		t.Fatalf("%d request(s) reached the web engine %q carrying a never-leave corpus's string", n, w.search.Queries())
	}
	if n := heldNotes(t, out); n < 2 {
		t.Errorf("the step and the reflection should both say the notes held the web back; %d did\n%s", n, out)
	}

	// Ordinary words that also occur in the notes ("vault", "password",
	// "manager") are no secret: the web is searched.
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: who manages the vault password",
		"Thought: Enough.\nFinal Answer: Ada\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	if _, errOut, code := w.run(contentArgs(w, "Who manages the vault password?")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if w.search.Requests() == 0 {
		t.Errorf("a query of ordinary words was held back")
	}
}

// TestNeverLeaveContentFollowUp: turn 1 is an ordinary question (the web
// is searched); the follow-up the user types carries the password, its
// rewrite copies it, and the step query carries it: turn 2 sends nothing.
func TestNeverLeaveContentFollowUp(t *testing.T) {
	script := &queue{}
	w := vaultWorld(t, script)
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: who discovered pH",
		"Thought: Enough.\nFinal Answer: Sørensen [1]\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	if _, errOut, code := w.run(contentArgs(w, "Who introduced pH?")...); code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errOut)
	}
	before := w.search.Requests()
	if before == 0 {
		t.Fatal("turn 1 did not search the web")
	}
	script.add([]string{
		"Standalone question: Did Sørensen ever use the password " + vaultSecret + "?",
		"Thought: Search.\nAction: Search_Engine\nAction Input: Sørensen " + vaultSecret,
		"Thought: Enough.\nFinal Answer: No.\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	out, errOut, code := w.run(w.askArgs("--continue", "last", "--json", "and did he use "+vaultSecret+"?")...)
	if code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", code, errOut)
	}
	if n := w.search.Requests() - before; n != 0 {
		t.Fatalf("turn 2 sent %d request(s) %q carrying the notes' password", n, w.search.Queries()[before:])
	}
	if heldNotes(t, out) == 0 {
		t.Errorf("turn 2 does not say why the web was held back\n%s", out)
	}
}

// TestTUINeverLeaveContentInTmux: in the workspace under web policy auto,
// the query carrying the notes' password (typed by the user in the
// question; notes not searched) is put to the user, the dialog showing the
// string and its corpus; denied, nothing reaches the web engine.
func TestTUINeverLeaveContentInTmux(t *testing.T) {
	script := &queue{}
	w := vaultWorld(t, script)
	script.add([]string{
		"Thought: Search.\nAction: Search_Engine\nAction Input: who knows " + vaultSecret,
		"Thought: Enough.\nFinal Answer: Ada\nSelf-Evaluation: CORRECT",
	}, []string{judgeSays(false)})
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL(),
		"--corpus", "wiki", "--never-leave", "notes"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "web auto")
	s.text("Who else knows " + vaultSecret + "?")
	s.keys("Enter")
	s.waitFor("consent dialog", 20*time.Second, "Search the web?", "carries “"+vaultSecret+"”", "marked never-leave")
	s.keys("x")
	s.waitFor("answer", 20*time.Second, "Final answer", "Ada")
	if n := w.search.Requests(); n != 0 {
		t.Fatalf("the web engine received %d request(s) %q", n, w.search.Queries())
	}
}

// TestSourcesCheckHoldsNeverLeaveStrings: `prefrag sources check web`
// (a diagnostic the user types) sends no query carrying a never-leave
// corpus's string, and says why without quoting it; an ordinary query
// goes. Under web policy never it sends nothing at all.
func TestSourcesCheckHoldsNeverLeaveStrings(t *testing.T) {
	w := vaultWorld(t, &queue{})
	check := func(extra ...string) (string, string, int) {
		args := append([]string{"sources", "check", "web", "--web-engine", "searxng", "--searxng-url", w.search.URL(), "--corpus", "wiki"}, extra...)
		return w.run(args...)
	}
	_, errOut, code := check("--web", "auto", "--never-leave", "notes", "--query", "who knows "+vaultSecret)
	if code != 2 || w.search.Requests() != 0 || !strings.Contains(errOut, `never-leave corpus "notes"`) || strings.Contains(strings.ToLower(errOut), "hunter2") {
		t.Fatalf("a query carrying the notes' password: exit %d, %d request(s) %q, stderr %q", code, w.search.Requests(), w.search.Queries(), errOut)
	}
	if _, errOut, code := check("--web", "never", "--query", "ordinary words"); code != 2 || w.search.Requests() != 0 {
		t.Fatalf("web never: exit %d, %d request(s), stderr %q", code, w.search.Requests(), errOut)
	}
	if out, errOut, code := check("--web", "auto", "--never-leave", "notes", "--query", "who manages the vault password"); code != 0 || w.search.Requests() != 1 {
		t.Fatalf("an ordinary query: exit %d, %d request(s)\n%s\n%s", code, w.search.Requests(), out, errOut)
	}
}
