package ui

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/llm"
)

func TestSessionsAndStepper(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "2")
	h.golden("list", "Sessions (3)", "When was the Charles Bridge built?")
	h.keys("/")
	h.typeText("bridge")
	h.golden("filtered", "Sessions (1)", "/ bridge")
	h.keys("esc")
	h.waitFor("Sessions (3)")
	h.keys("enter")
	h.golden("step1", "1/6", "In context", "the question only")
	h.keys("right")
	h.golden("step2_switch", "2/6", "switching to web", "discarded")
	h.keys("l", "l", "l")
	h.golden("step5", "5/6", "CORRECT")
	h.keys("end")
	h.golden("final", "6/6", "final answer", "Sources")
	h.keys("home")
	h.waitFor("1/6")
	h.keys("left")
	h.waitFor("1/6")
	h.keys("q")
	h.waitFor("Sessions (3)")
}

func TestStepperReask(t *testing.T) {
	h := newHarness(t)
	h.openSession()
	h.keys("r")
	h.finalSeen()
	waitUntil(t, func() bool { q, _, _ := h.runner.last(); return q == scripted.Question })
	if !strings.Contains(h.plain(), "1 Ask") {
		t.Fatal("re-ask did not return to the ask screen")
	}
}

func TestExportDialog(t *testing.T) {
	h := newHarness(t)
	h.openSession()
	h.keys("x")
	h.golden("dialog", "Export this session", "prefrag-7f3c2a1e.md")
	h.keys("right") // format: json
	h.waitFor("prefrag-7f3c2a1e.json")
	want := filepath.Join(testWorkDir, "prefrag-7f3c2a1e.json")
	h.sessions.mu.Lock()
	h.sessions.exists[want] = true
	h.sessions.mu.Unlock()
	h.keys("enter")
	h.golden("exists", "Overwrite it? y / n")
	h.keys("y")
	// Written: the dialog closes and the status line says where, until
	// the next key.
	h.golden("written", "✓ Written to "+want)
	if strings.Contains(h.plain(), "Export this session") {
		t.Error("the export dialog stays open after writing the file")
	}
	calls := h.sessions.calls()
	if len(calls) != 2 {
		t.Fatalf("export called %d times, want 2 (refused, then forced)", len(calls))
	}
	for i, c := range calls {
		if c.format != "json" || c.path != want || strings.Join(c.ids, ",") != scripted.SessionID || c.force != (i == 1) {
			t.Errorf("export call %d = %+v", i, c)
		}
	}
	h.keys("right")
	waitUntil(t, func() bool { return !strings.Contains(h.plain(), "Written to") })
}

func TestExportMarkedSessions(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("space", "space")
	h.waitFor("2 marked")
	h.keys("x")
	h.waitFor("Export 2 sessions", "prefrag-2-sessions.md")
	h.keys("tab")
	for range len("prefrag-2-sessions.md") {
		h.keys("backspace")
	}
	h.typeText("both.md")
	h.keys("enter")
	h.waitFor("Written to " + filepath.Join(testWorkDir, "both.md"))
	c := h.sessions.calls()
	if len(c) != 1 || len(c[0].ids) != 2 || c[0].format != "md" {
		t.Fatalf("export calls %+v", c)
	}
}

// TestExportDialogNewFormat: a format added to the table Sessions.Formats
// passes on (store/export's) is offered by the dialog with its help line,
// names the proposed file with its extension (a folder for a format of one
// file per session), replaces its extension in a path the user typed, and
// reaches Export by name. The dialog knows no format of its own.
func TestExportDialogNewFormat(t *testing.T) {
	h := newHarness(t)
	h.sessions.mu.Lock()
	h.sessions.formats = []ExportFormat{
		{Name: "md", Ext: ".md", Help: "a readable report"},
		{Name: "questions", Ext: ".q.txt", Help: "only the questions"},
		{Name: "pages", Ext: ".page.txt", Help: "one page per session", PerSession: true},
	}
	h.sessions.mu.Unlock()
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("space", "space")
	h.waitFor("2 marked")
	h.keys("x")
	h.waitFor("Export 2 sessions", "prefrag-2-sessions.md", "md: a readable report")
	if strings.Contains(h.plain(), "jsonl") {
		t.Error("the dialog offers a format the table does not hold")
	}
	h.keys("left")
	h.waitFor("prefrag-2-sessions"+string(filepath.Separator), "pages: one page per session")
	h.keys("left")
	h.waitFor("prefrag-2-sessions.q.txt", "questions: only the questions")
	h.keys("tab")
	for range len("prefrag-2-sessions.q.txt") {
		h.keys("backspace")
	}
	h.typeText("both.q.txt")
	h.keys("shift+tab", "right")
	h.waitFor("both.page.txt")
	h.keys("left")
	h.waitFor("both.q.txt")
	h.keys("enter")
	want := filepath.Join(testWorkDir, "both.q.txt")
	h.waitFor("Written to " + want)
	if c := h.sessions.calls(); len(c) != 1 || c[0].format != "questions" || c[0].path != want {
		t.Fatalf("export calls %+v", c)
	}
}

func TestCorporaScreen(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "3")
	h.golden("list", "Corpora (2)", "★ wiki", "notes")
	h.keys("down", "p")
	h.waitFor("notes is now the preferred corpus", "pref notes")
	if pins, _, _ := h.corpora.state(); strings.Join(pins, ",") != "notes" {
		t.Fatalf("pins = %v", pins)
	}
	h.keys("a")
	h.golden("add_form", "Add a folder to a corpus", "folder  "+testWorkDir)
	h.keys("enter")
	h.corpora.step <- IndexProgress{FilesDone: 5, FilesTotal: 12, Passages: 61, File: "reports/2025/q3.md", Elapsed: 2_000_000_000, Rate: 30.5}
	h.golden("indexing", "files 5/12", "ETA 0:03")
	close(h.corpora.step)
	h.golden("indexed", "Indexed notes: 12 files read")
	if _, indexed, _ := h.corpora.state(); strings.Join(indexed, ";") != "notes="+testWorkDir {
		t.Fatalf("indexed = %v", indexed)
	}
}

func TestCorporaCancelIndexing(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "3")
	h.waitFor("★ wiki")
	h.keys("a", "enter")
	h.waitFor("Indexing into wiki")
	h.keys("esc")
	h.waitFor("Cancelled: 5 of 12 files indexed into wiki")
}

func TestCorpusSearch(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "3")
	h.waitFor("★ wiki")
	h.keys("/")
	h.typeText("kafka prague")
	h.keys("enter")
	h.golden("results", "passages in wiki for “kafka prague”", "Franz Kafka")
	h.keys("down", "enter")
	h.golden("expanded", "▾ 2 The Trial")
	h.keys("esc")
	h.waitFor("Corpora (2)")
}

func TestFirstRunGuide(t *testing.T) {
	h := newHarness(t, withEmptyCorpora())
	h.golden("dialog", "Welcome to prefrag", "a folder to index")
	h.keys("down", "enter")
	h.waitFor("Indexing into guide")
	close(h.corpora.step)
	h.golden("indexed", "Indexed guide", "★ guide")
	if pins, _, guide := h.corpora.state(); guide != 1 || strings.Join(pins, ",") != "guide" {
		t.Fatalf("guide indexed %d times, pins %v; want 1 and [guide]", guide, pins)
	}
}

func TestFirstRunFolder(t *testing.T) {
	h := newHarness(t, withEmptyCorpora())
	h.waitFor("Welcome to prefrag")
	h.typeText(".") // the current directory, typed: nothing is preselected
	h.keys("enter")
	h.waitFor("Indexing into default")
	close(h.corpora.step)
	h.waitFor("Indexed default", "★ default")
	if _, indexed, _ := h.corpora.state(); strings.Join(indexed, ";") != "default="+testWorkDir {
		t.Fatalf("indexed %v", indexed)
	}
}

func TestFirstRunSkipped(t *testing.T) {
	h := newHarness(t, withEmptyCorpora())
	h.waitFor("Welcome to prefrag")
	h.keys("esc")
	h.golden("ask", "No corpus yet", "pref none")
}

func TestNoLLMServer(t *testing.T) {
	unreachable := &llm.UnreachableError{Backend: "ollama", Addr: "127.0.0.1:11434", Err: errors.New("connection refused")}
	h := newHarness(t, withHealth(unreachable))
	h.golden("banner", "cannot reach the ollama server", "ollama pull qwen2.5:7b-instruct", "`prefrag demo`")
	// Without an LLM the rest of the app still works.
	h.keys("tab", "2")
	h.waitFor("Sessions (3)")
	h.keys("right")
	waitUntil(t, func() bool { return !strings.Contains(h.plain(), "Written to") })
}

func TestModelMissing(t *testing.T) {
	h := newHarness(t, withHealth(fmt.Errorf("check: %w", &llm.ModelNotFoundError{Backend: "ollama", Model: "qwen2.5:7b-instruct"})))
	h.waitFor("model qwen2.5:7b-instruct not found", "Pull it with `ollama pull qwen2.5:7b-instruct`", "`prefrag demo`")
}

func TestHelpPage(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "?")
	h.golden("page", "Keys", "Ask screen")
	h.keys("j", "j")
	h.keys("esc")
	h.waitFor("Ask a question below")
}

func TestResize(t *testing.T) {
	h := newHarness(t, withSize(120, 40))
	h.ask(scripted.Question)
	h.finalSeen()
	h.golden("wide", "Final answer")
}

func TestColorFrame(t *testing.T) {
	h := newHarness(t, withColor())
	h.ask(scripted.Question)
	h.finalSeen()
	s := h.frame()
	if !strings.Contains(s, "\x1b[") {
		t.Fatal("no styling in colour mode")
	}
	h.t.Run("ansi", func(t *testing.T) { checkFrame(t, s, 80, 24) })
}

func TestExpandDocumentInLiveTrajectory(t *testing.T) {
	h := newHarness(t)
	h.ask(scripted.Question)
	h.finalSeen()
	h.keys("tab", "g", "j")
	h.waitFor("› ▸ 1 Franz Kafka")
	h.keys("enter")
	h.golden("expanded", "› ▾ 1 Franz Kafka", "id wiki:kafka#1")
	h.keys("j", "j", "j")
	h.waitFor("› ▸ 4 Vltava - Wikipedia")
}

func TestMouseWheelScrolls(t *testing.T) {
	h := newHarness(t)
	h.ask(scripted.Question)
	bottom := h.finalSeen()
	for range 10 {
		h.tm.Send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	}
	waitUntil(t, func() bool { return h.plain() != bottom })
	if !strings.Contains(h.plain(), "Reflection supplement") {
		t.Fatalf("ten wheel notches up should show the supplement:\n%s", h.plain())
	}
	for range 30 {
		h.tm.Send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	h.waitFor("Counts")
}

func TestTinyAndOddSizes(t *testing.T) {
	h := newHarness(t)
	h.ask(scripted.Question)
	h.finalSeen()
	for _, sz := range [][2]int{{40, 12}, {20, 8}, {133, 17}, {80, 24}} {
		h.tm.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		waitUntil(t, func() bool { return len(strings.Split(h.plain(), "\n")) == sz[1] })
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) { checkFrame(t, h.plain(), sz[0], sz[1]) })
	}
	for _, screen := range []string{"2", "3", "1"} {
		h.keys("tab", screen)
		h.tm.Send(tea.WindowSizeMsg{Width: 30, Height: 9})
		waitUntil(t, func() bool { return len(strings.Split(h.plain(), "\n")) == 9 })
		checkFrame(t, h.plain(), 30, 9)
	}
}

func TestLightBackground(t *testing.T) {
	h := newHarness(t, withColor())
	h.tm.Send(tea.BackgroundColorMsg{Color: color.White})
	h.ask(scripted.Question)
	h.finalSeen()
	// Light styles: the dark palette's body text colour must be gone.
	if s := h.frame(); strings.Contains(s, "228;228;228") {
		t.Fatal("dark-theme text colour on a light background")
	}
}

// TestRunFailsInPlace: the model server goes away during a run. The error
// is shown in the trajectory and as a banner with what to do; the app goes
// on working.
func TestRunFailsInPlace(t *testing.T) {
	h := newHarness(t)
	unreachable := &llm.UnreachableError{Backend: "ollama", Addr: "127.0.0.1:11434", Err: errors.New("connection refused")}
	h.runner.events = h.runner.events[:1]
	h.runner.events = append(h.runner.events, engine.Event{Session: scripted.SessionID, Seq: 2, Payload: engine.Notice{Message: unreachable.Error(), Fatal: true}})
	h.runner.fail = fmt.Errorf("step 1: %w", unreachable)
	h.ask("Anything?")
	h.golden("failed", "Failed", "Install Ollama")
	h.keys("tab", "x")
	h.waitFor("Export this session")
	h.keys("esc", "2")
	h.waitFor("Sessions (3)")
}

func TestBlockedWebAndEmptyCorpusShownInPlace(t *testing.T) {
	h := newHarness(t)
	no := false
	web := "web:duckduckgo"
	h.runner.events = []engine.Event{
		{Session: "s2", Seq: 1, Payload: engine.SessionStart{Question: "q"}},
		{Session: "s2", Seq: 2, Step: 1, Payload: engine.Thought{Text: "Search the notes."}},
		{Session: "s2", Seq: 3, Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "tidal energy"}},
		{Session: "s2", Seq: 4, Step: 1, Payload: engine.Retrieval{Source: "local:notes", Query: "tidal energy"}},
		{Session: "s2", Seq: 5, Step: 1, Payload: engine.Selection{Status: &no, NextSource: &web, Analysis: "Nothing came back."}},
		{Session: "s2", Seq: 6, Step: 1, Payload: engine.Retrieval{Source: web, Query: "tidal energy"}},
		{Session: "s2", Seq: 7, Step: 1, Payload: engine.Notice{Source: web, Message: "duckduckgo blocked the search: bot challenge page"}},
		{Session: "s2", Seq: 8, Step: 1, Payload: engine.Observation{Source: "local:notes", Note: "web unavailable (duckduckgo blocked the search); continuing with local documents"}},
		{Session: "s2", Seq: 9, Step: 2, Payload: engine.Answer{Text: "I could not find it.", Label: "INCORRECT"}},
		{Session: "s2", Seq: 10, Payload: engine.Final{Answer: "I could not find it.", Forced: true, Counts: &engine.Counts{LLMCalls: 3}}},
	}
	h.ask("q")
	h.waitFor("forced at the step limit")
	h.keys("tab", "g")
	h.golden("shown", "nothing found — the words may not occur in the corpus", "blocked the search", "web unavailable")
}

// The analyst's verdict on a judge decision is saved against the selection
// event it concerns; a stop without a judge decision says so.
func TestStepperJudgeVerdict(t *testing.T) {
	h := newHarness(t)
	h.openSession()
	h.keys("a") // step 1: the judge kept the local documents
	h.waitFor("judge of step 1 was correct")
	h.keys("right") // step 2: the judge switched to the web
	h.waitFor("2/6", "switching to web")
	h.keys("d")
	h.waitFor("judge of step 2 was incorrect")
	h.keys("end")
	h.waitFor("6/6")
	h.keys("a")
	h.waitFor("no judge decision")
	want := map[int]string{}
	for _, ev := range scripted.Stored(testStart) {
		if ev.Type() == engine.EventSelection && (ev.Step == 1 || ev.Step == 2) {
			want[ev.Seq] = map[int]string{1: VerdictCorrect, 2: VerdictIncorrect}[ev.Step]
		}
	}
	h.sessions.mu.Lock()
	got := h.sessions.verdicts
	h.sessions.mu.Unlock()
	if len(want) != 2 || len(got) != 2 {
		t.Fatalf("verdicts %v, want %v", got, want)
	}
	for seq, v := range want {
		if got[seq] != v {
			t.Errorf("verdict on selection seq %d = %q, want %q", seq, got[seq], v)
		}
	}
}

// While the passages are embedded, the screen shows passages with a
// vector of those to do, the rate and the time left.
func TestCorporaEmbeddingProgress(t *testing.T) {
	h := newHarness(t)
	h.keys("tab", "3")
	h.waitFor("★ wiki")
	h.keys("a", "enter")
	h.corpora.step <- IndexProgress{FilesDone: 1, FilesTotal: 3, Embedding: true, EmbedDone: 1500, EmbedTotal: 6000, Rate: 75, Elapsed: 20_000_000_000}
	h.waitFor("Embedding the passages", "passages 1,500/6,000", "75 passages/s", "ETA 1:00", "passages already embedded are kept")
	close(h.corpora.step)
	h.waitFor("Indexed wiki")
}
