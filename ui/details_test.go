package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// Details a new user hit (issue 13.4), one test each.

// statusLine is the status line of a frame.
func statusLine(frame string) string {
	lines := strings.Split(frame, "\n")
	return lines[len(lines)-2]
}

// shortRun is a one-step run that differs from the scripted session in
// every count the status line shows.
func shortRun() []engine.Event {
	yes := true
	st := scripted.Settings()
	st.Model = "tiny-model"
	doc := sources.Document{ID: "wiki:kafka#1", Title: "Franz Kafka", Text: "Kafka was born in Prague.", Source: "local:wiki"}
	return []engine.Event{
		{Session: "short", Seq: 1, Time: testStart, Payload: engine.SessionStart{Question: "Where was Kafka born?", Config: &st}},
		{Session: "short", Seq: 2, Time: testStart, Step: 1, Payload: engine.Thought{Text: "Search."}},
		{Session: "short", Seq: 3, Time: testStart, Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "Kafka birthplace"}},
		{Session: "short", Seq: 4, Time: testStart, Step: 1, Payload: engine.Retrieval{Source: "local:wiki", Query: "Kafka birthplace", Docs: []sources.Document{doc}}},
		{Session: "short", Seq: 5, Time: testStart, Step: 1, Payload: engine.Selection{Status: &yes, Analysis: "enough"}},
		{Session: "short", Seq: 6, Time: testStart, Step: 1, Payload: engine.Observation{Source: "local:wiki", DocIDs: []string{doc.ID}, DocNums: []int{1}}},
		{Session: "short", Seq: 7, Time: testStart, Step: 2, Payload: engine.Answer{Text: "Prague [1].", Label: "CORRECT"}},
		{Session: "short", Seq: 8, Time: testStart, Payload: engine.Final{Answer: "Prague [1].", Label: "CORRECT", Citations: []int{1}, Sources: []sources.Document{doc}, Counts: &engine.Counts{LLMCalls: 3, LocalRetrievals: 1, UsedRetrievals: 1, TotalMillis: 4000}}},
	}
}

// The status line describes the session on screen: the stepper's session,
// not the run that ended last on the ask screen.
func TestStatusLineShowsTheSessionOnScreen(t *testing.T) {
	h := newHarness(t, withSize(140, 30))
	h.runner.events = shortRun()
	h.ask("Where was Kafka born?")
	h.waitFor("Final answer", "Prague")
	ask := statusLine(h.waitFor("searches 1 local · 0 web · 1 used"))
	if !strings.Contains(ask, "steps 2/3") {
		t.Errorf("ask screen status: %q", ask)
	}
	h.openSession()
	got := statusLine(h.waitFor("searches 3 local · 2 web · 3 used"))
	if !strings.Contains(got, "steps 3/3") || !strings.Contains(got, "0:18") || strings.Contains(got, "tiny-model") {
		t.Errorf("stepper status %q; want the stored session's steps 3/3, 0:18 and its model", got)
	}
	// Back on the ask screen the status is the run's again.
	h.keys("1")
	if got := statusLine(h.waitFor("searches 1 local · 0 web · 1 used")); !strings.Contains(got, "steps 2/3") {
		t.Errorf("ask screen status after the stepper: %q", got)
	}
}

// A reflection turn consumes no step: the counter neither jumps forward
// nor changes its maximum.
func TestStepCountSteadyOverReflection(t *testing.T) {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: newClock().Now})
	m.resize(160, 24)
	m.ask.traj = trajectory.New()
	m.ask.running = true
	var seen []string
	for _, ev := range scripted.Events(testStart) {
		m.ask.traj.Apply(ev)
		if ev.Type() == engine.EventToken || ev.Type() == engine.EventSession {
			continue
		}
		s := ansi.Strip(m.statusView())
		i := strings.Index(s, "step ")
		if i < 0 {
			t.Fatalf("no step in %q", s)
		}
		step := strings.Fields(s[i+len("step "):])[0]
		if len(seen) == 0 || seen[len(seen)-1] != step {
			seen = append(seen, step)
		}
	}
	if got := strings.Join(seen, " "); got != "1/3 2/3 3/3" {
		t.Errorf("step counter went %s; want 1/3 2/3 3/3 (the reflection at step 3 takes no step)", got)
	}
}

// The first-run dialog does not offer the current directory (which may be
// the home directory) for indexing: Enter with nothing typed indexes
// nothing and says what to do.
func TestFirstRunPreselectsNoFolder(t *testing.T) {
	h := newHarness(t, withEmptyCorpora())
	scr := h.waitFor("Welcome to prefrag", "a folder to index")
	if strings.Contains(scr, testWorkDir) {
		t.Errorf("the working directory is filled in:\n%s", scr)
	}
	h.keys("enter")
	h.waitFor("Type a folder first")
	if _, indexed, _ := h.corpora.state(); len(indexed) != 0 {
		t.Fatalf("Enter on an empty field indexed %v", indexed)
	}
	h.typeText("papers")
	h.keys("enter")
	h.waitFor("Indexing into default")
	close(h.corpora.step)
	h.waitFor("Indexed default")
	if _, indexed, _ := h.corpora.state(); strings.Join(indexed, ";") != "default="+testWorkDir+"/papers" {
		t.Fatalf("indexed %v; a relative folder is the working directory's", indexed)
	}
}

// The welcome texts list every file type indexing reads.
func TestWelcomeListsEpub(t *testing.T) {
	h := newHarness(t, withEmptyCorpora(), withSize(100, 30))
	if scr := h.waitFor("Welcome to prefrag"); !strings.Contains(scr, ".pdf .epub") {
		t.Errorf("first-run dialog lacks .epub:\n%s", scr)
	}
	h.keys("esc", "tab", "3")
	h.waitFor("No corpus yet", ".pdf .epub")
}

// The add-folder form starts in its first field: typed text goes into the
// corpus name.
func TestAddFolderStartsInFirstField(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "3")
	h.waitFor("★ wiki")
	h.keys("a")
	h.waitFor("Add a folder to a corpus")
	h.typeText("2")
	h.waitFor("corpus  wiki2", "folder  "+testWorkDir)
	done := make(chan struct{})
	var field int
	var nameFocused bool
	h.tm.Send(inspect{fn: func(m *Model) { field, nameFocused = m.corpora.field, m.corpora.name.Focused() }, done: done})
	<-done
	if field != 0 || !nameFocused {
		t.Errorf("field %d, name focused %v; want the first field", field, nameFocused)
	}
}

// The export dialog offers the judge's preference pairs too.
func TestExportDialogOffersPairs(t *testing.T) {
	h := newHarness(t)
	h.openSession()
	h.keys("x")
	h.waitFor("Export this session", "pairs")
	h.keys("left", "left") // wraps from md to the last formats: html, pairs
	h.waitFor("prefrag-7f3c2a1e.pairs.jsonl", "one line per judge decision")
	h.keys("enter")
	h.waitFor("Written to")
	calls := h.sessions.calls()
	if len(calls) != 1 || calls[0].format != "pairs" || !strings.HasSuffix(calls[0].path, ".pairs.jsonl") {
		t.Fatalf("export calls %+v", calls)
	}
}

// The export dialog offers the HTML page.
func TestExportDialogOffersHTML(t *testing.T) {
	h := newHarness(t)
	h.openSession()
	h.keys("x")
	h.waitFor("Export this session", "html")
	h.keys("left") // wraps from md to the last format
	h.waitFor("prefrag-7f3c2a1e.html", "opens offline in any browser")
	h.keys("enter")
	h.waitFor("Written to")
	calls := h.sessions.calls()
	if len(calls) != 1 || calls[0].format != "html" || !strings.HasSuffix(calls[0].path, ".html") {
		t.Fatalf("export calls %+v", calls)
	}
}

// Several sessions as HTML are one page each: the proposed path is a
// folder.
func TestExportMarkedSessionsHTMLFolder(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("space", "space")
	h.waitFor("2 marked")
	h.keys("x")
	h.waitFor("Export 2 sessions", "prefrag-2-sessions.md")
	h.keys("left")
	h.waitFor("prefrag-2-sessions"+string(filepath.Separator), "opens offline")
	h.keys("enter")
	h.waitFor("Written to")
	calls := h.sessions.calls()
	if len(calls) != 1 || calls[0].format != "html" || len(calls[0].ids) != 2 || filepath.Base(calls[0].path) != "prefrag-2-sessions" {
		t.Fatalf("export calls %+v", calls)
	}
}

// q during a run asks first; n keeps the run going, y quits.
func TestQuitDuringRunAsks(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			h := newHarness(t)
			h.runner.pauseBefore(func(ev engine.Event) bool { return ev.Type() == engine.EventThought && ev.Step == 2 })
			h.ask(scripted.Question)
			<-h.runner.paused
			h.waitFor("Step 2")
			h.keys("tab") // from the question input to the trajectory
			h.keys("q")
			h.waitFor("Quit prefrag?", "A run is in progress")
			h.keys(answer)
			if answer == "y" {
				h.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
				return
			}
			close(h.runner.resume)
			h.finalSeen()
			if strings.Contains(h.plain(), "Quit prefrag?") {
				t.Error("the dialog stayed open")
			}
		})
	}
}

// After a run, q quits at once as before.
func TestQuitAfterRunDoesNotAsk(t *testing.T) {
	h := newHarness(t)
	h.ask(scripted.Question)
	h.finalSeen()
	h.keys("tab", "q")
	h.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// When a dialog closes, the key help is that of the component that has
// the focus now, whatever the dialog was.
func TestHelpBarFollowsFocusAfterDialogs(t *testing.T) {
	helpBars := func(h *harness) (shown, fresh string) {
		done := make(chan struct{})
		h.tm.Send(inspect{fn: func(m *Model) {
			shown, fresh = ansi.Strip(m.shortHelpView()), ansi.Strip(m.renderShortHelp())
		}, done: done})
		<-done
		return
	}
	tests := []struct {
		name  string
		opts  []harnessOption
		steps func(h *harness)
		want  string
	}{
		{"consent denied, run over: the input", []harnessOption{withWeb(engine.WebAsk)}, func(h *harness) {
			h.ask(scripted.Question)
			h.waitFor("Search the web?")
			h.keys("d")
			h.finalSeen()
		}, "enter send"},
		{"export closed on the ask screen: the trajectory", nil, func(h *harness) {
			h.ask(scripted.Question)
			h.finalSeen()
			h.keys("tab", "x")
			h.waitFor("Export this session")
			h.keys("esc")
		}, "next doc"},
		{"export closed on the stepper", nil, func(h *harness) {
			h.openSession()
			h.keys("x")
			h.waitFor("Export this session")
			h.keys("esc")
		}, "next step"},
		{"first run skipped: the input", []harnessOption{withEmptyCorpora()}, func(h *harness) {
			h.waitFor("Welcome to prefrag")
			h.keys("esc")
		}, "enter send"},
		{"quit refused: the trajectory", nil, func(h *harness) {
			h.runner.pauseBefore(func(ev engine.Event) bool { return ev.Type() == engine.EventThought && ev.Step == 2 })
			h.ask(scripted.Question)
			<-h.runner.paused
			h.keys("tab", "q")
			h.waitFor("Quit prefrag?")
			h.keys("n")
			defer close(h.runner.resume)
		}, "next doc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.opts...)
			tt.steps(h)
			deadline := time.Now().Add(5 * time.Second)
			for {
				shown, fresh := helpBars(h)
				if shown == fresh && strings.Contains(shown, tt.want) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("help bar %q (for the focus now: %q); want %q", shown, fresh, tt.want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// Counts are written with the right noun form.
func TestPluralForms(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	c := newCorporaScreen(sh)
	c.setSize(100, 20)
	c.indexDone(indexDoneMsg{corpus: "notes", rep: IndexReport{Files: 1, Indexed: 1, Passages: 1, Duration: time.Second}})
	if !strings.Contains(c.message, "1 file read") || !strings.Contains(c.message, "1 passage added") {
		t.Errorf("index message %q", c.message)
	}
	c.indexDone(indexDoneMsg{corpus: "notes", rep: IndexReport{Files: 2, Indexed: 2, Passages: 12345}})
	if !strings.Contains(c.message, "2 files read") || !strings.Contains(c.message, "12,345 passages added") {
		t.Errorf("index message %q", c.message)
	}
	for n, want := range map[int64]string{0: "0 passages", 1: "1 passage", 2: "2 passages"} {
		if got := passages(n); got != want {
			t.Errorf("passages(%d) = %q", n, got)
		}
	}
}
