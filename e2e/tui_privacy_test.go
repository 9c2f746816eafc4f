package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// The workspace's consent dialog: a query denied with "Deny this query"
// is not put to the user again in the same run (the model repeats it at
// every step up to the hard limit), the run ends with its forced answer,
// and the step counter does not go past the limit (it read "steps 5/3").
func TestTUIConsentDeniedOnceInTmux(t *testing.T) {
	const q = "who holds the vault keys"
	action := "Thought: Search the web.\nAction: Search_Engine\nAction Input: " + q
	script := &queue{}
	w := vaultWorld(t, script)
	script.add([]string{action, action, action, action,
		"Thought: I have to answer.\nFinal Answer: Ada [1]\nSelf-Evaluation: CORRECT"},
		[]string{judgeSays(false), judgeSays(false), judgeSays(false), judgeSays(false)})
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL(),
		"--web", "ask", "--corpus", "notes", "--max-steps", "3"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "web ask")
	s.text("Who holds the vault keys?")
	s.keys("Enter")
	scr := s.waitFor("consent dialog", 15*time.Second, "Search the web?")
	for _, want := range []string{"Allow this query", "Allow for this run", "Deny this query", "Deny for this run"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the dialog does not offer %q:\n%s", want, scr)
		}
	}
	s.keys("d")
	scr = s.waitFor("forced answer without asking again", 20*time.Second, "Final answer", "Ada")
	if strings.Contains(scr, "Search the web?") {
		t.Fatalf("the dialog came back:\n%s", scr)
	}
	scr = s.waitFor("step counter", 5*time.Second, "steps 3/3")
	if strings.Contains(scr, "steps 5/3") || strings.Contains(scr, "steps 4/3") {
		t.Errorf("the step counter went past the limit:\n%s", scr)
	}
	if n := w.search.Requests(); n != 0 {
		t.Errorf("the web engine received %d request(s) after the query was denied", n)
	}
	list, _, _ := w.run("sessions", "list", "--json")
	id := strings.SplitN(strings.SplitN(list+`"id":"`, `"id":"`, 2)[1], `"`, 2)[0]
	out, _, _ := w.run("sessions", "show", id, "--json")
	if got := strings.Count(out, "declined this query earlier in this run"); got != 3 {
		t.Errorf("%d observations say the query was declined earlier, want 3", got)
	}
}

// The first start with no web policy chosen: the workspace asks which
// queries may go to the web (auto / ask / never, one sentence each) before
// anything else, saves the choice to the config file, and the status line
// shows it; the next start does not ask again.
func TestTUIFirstRunWebChoiceInTmux(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	os.Remove(w.configFile()) // no choice made yet
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model"}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("web choice", 15*time.Second, "May questions go to the web?", "auto — search the web whenever",
		"ask — show each query and ask", "never — never send anything", "web ask")
	pressed(t, s, "Down", "› never")
	pressed(t, s, "Enter", "web never", "saved to the config file")
	b, err := os.ReadFile(w.configFile())
	if err != nil || !strings.Contains(string(b), `web = "never"`) {
		t.Fatalf("the choice was not saved to %s: %q %v", w.configFile(), b, err)
	}
	quit(t, s)

	s2 := startTmux(t, w, t.TempDir(), args...)
	scr := s2.waitFor("second start", 15*time.Second, "Ask a question", "web never")
	if strings.Contains(scr, "May questions go to the web?") {
		t.Errorf("the choice was asked again:\n%s", scr)
	}
}

// A never-leave thread continued in the workspace: turn 1 ran headless
// with --never-leave notes; the workspace (no flag, config web = auto)
// continues it from the stepper. The follow-up's rewrite quotes the
// password, so its query is put to the user (the dialog names the
// never-leave corpus) instead of being sent; denied for the run, nothing
// reaches the web engine, and the turn's block says the thread's privacy
// was kept.
func TestTUINeverLeaveThreadInTmux(t *testing.T) {
	script := &queue{}
	w := vaultWorld(t, script)
	vaultTurn1(script)
	if _, errOut, code := w.run(w.askArgs("--corpus", "notes", "--never-leave", "notes", "--json", vaultQuestion)...); code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", code, errOut)
	}
	vaultTurn2(script)
	args := []string{"--llm-url", w.llm.URL(), "--model", "fake-model", "--web-engine", "searxng", "--searxng-url", w.search.URL()}
	s := startTmux(t, w, t.TempDir(), args...)
	s.waitFor("start", 15*time.Second, "Ask a question", "web auto")
	s.keys("Tab")
	s.keys("2")
	s.waitFor("sessions", 10*time.Second, "Sessions (1)")
	s.keys("Enter")
	s.waitFor("stepper", 10*time.Second, "step 1")
	s.keys("c")
	s.waitFor("follow-up mode", 10*time.Second, "follow-up · turn 2")
	s.text(vaultFollowUp)
	s.keys("Enter")
	s.waitFor("consent dialog", 20*time.Second, "Search the web?", "marked never-leave")
	s.keys("x")
	// Over (the input offers turn 3): a run still going scrolls the
	// trajectory to its end after g.
	s.waitFor("answer", 20*time.Second, "Final answer · turn 2", "follow-up · turn 3")
	if n := w.search.Requests(); n != 0 {
		t.Fatalf("the web engine received %d request(s) %q from a never-leave thread", n, w.search.Queries())
	}
	// Tab and g in one write, as a fast typist sends them: both act (the
	// focus moves, the view goes to the top). Their effect is waited for
	// before paging, which tells f's effect by the screen changing.
	s.keys("Tab", "g")
	s.waitFor("top", keyWait, "] next claim", "Question     "+vaultQuestion)
	pageUntil(t, s, "f", 40, "Turn 2 · follow-up")
	s.waitFor("privacy line", 5*time.Second, "Turn 2 · follow-up", "Privacy", "never-leave notes (kept from earlier turns")
}
