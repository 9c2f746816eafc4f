package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/styles"
)

func spinnerRun() []engine.Event {
	no, yes := false, true
	web := "web:duckduckgo"
	cfg := engine.DefaultRunConfig()
	cfg.Corpora = []string{"notes"}
	return []engine.Event{
		{Payload: engine.SessionStart{Question: "Who?", Config: &cfg}},
		{Step: 1, Payload: engine.Token{Role: "step", Text: "Thought: I need to "}},
		{Step: 1, Payload: engine.Token{Role: "step", Text: "search.\nAction: Search_Engine"}},
		{Step: 1, Payload: engine.Thought{Text: "I need to search."}},
		{Step: 1, Payload: engine.Action{Tool: "Search_Engine", Query: "who"}},
		{Step: 1, Payload: engine.Retrieval{Source: "local:notes", Query: "who", Docs: []sources.Document{{ID: "a", Title: "A", Source: "local:notes"}}}},
		{Step: 1, Payload: engine.Selection{Status: &no, Analysis: "nothing new", NextSource: &web}},
		{Step: 1, Payload: engine.Retrieval{Source: web, Query: "who", Docs: []sources.Document{{ID: "w", Title: "W", Source: web}}}},
		{Step: 1, Payload: engine.Observation{Source: web, DocIDs: []string{"w"}}},
		{Step: 2, Payload: engine.Token{Role: "step", Text: "Thought: enough.\nFinal Ans"}},
		{Step: 2, Payload: engine.Token{Role: "step", Text: "wer: Ada [1]\n"}},
		{Step: 2, Payload: engine.Token{Role: "step", Text: "Self-Evaluation: PARTIALLY CORRECT"}},
		{Step: 2, Payload: engine.Answer{Text: "Ada [1]", Label: "PARTIALLY CORRECT"}},
		{Step: 2, Payload: engine.Supplement{Query: "Who?", DocIDs: []string{"a", "w"}}},
		{Step: 3, Payload: engine.Token{Role: "step", Text: "Final Answer: Ada"}},
		{Step: 3, Payload: engine.Answer{Text: "Ada", Label: "CORRECT"}},
		{Step: 3, Payload: engine.Selection{Status: &yes}},
		{Payload: engine.Final{Answer: "Ada"}},
	}
}

func TestSpinnerPhasesFromEvents(t *testing.T) {
	want := []string{
		"step 1 · thinking",
		"step 1 · thinking",
		"step 1 · thinking",
		"step 1 · thinking",
		"step 1 · searching notes",
		"step 1 · judging",
		"step 1 · searching the web",
		"step 1 · searching the web",
		"step 2 · thinking",
		"step 2 · thinking",
		"step 2 · writing the answer", // "Final Ans" + "wer" across two deltas
		"step 2 · checking the answer",
		"step 2 · reflecting · searching every source",
		"step 3 · thinking",
		"step 3 · writing the answer",
		"step 3 · finishing",
		"step 3 · finishing",
		"",
	}
	var p phaseTracker
	cur := "starting"
	for i, ev := range spinnerRun() {
		cur = p.next(ev, cur)
		if cur != want[i] {
			t.Errorf("after event %d (%s): phase %q, want %q", i, ev.Type(), cur, want[i])
		}
	}
}

func TestSpinnerPhaseVariants(t *testing.T) {
	never := engine.DefaultRunConfig()
	never.Strategy = engine.StrategyReAct
	never.Corpora = []string{"wiki"}
	webOnly := engine.DefaultRunConfig()
	tests := []struct {
		name string
		cfg  *engine.RunConfig
		ev   engine.Event
		want string
	}{
		{"a strategy without a judge keeps searching", &never, engine.Event{Step: 2, Payload: engine.Retrieval{Source: "local:wiki"}}, "was"},
		{"no corpus: the web is searched", &webOnly, engine.Event{Step: 1, Payload: engine.Action{}}, "step 1 · searching the web"},
		{"forced answer", &never, engine.Event{Step: 4, Payload: engine.Token{Role: "forced", Text: "Ada"}}, "step 4 · writing the answer"},
		{"a fatal error ends it", &never, engine.Event{Payload: engine.Notice{Fatal: true, Message: "x"}}, ""},
		{"a notice changes nothing", &never, engine.Event{Payload: engine.Notice{Message: "x"}}, "was"},
		{"gate without retrieval", &never, engine.Event{Payload: engine.Gate{}}, "writing the answer"},
		{"switch to another corpus", &never, engine.Event{Step: 1, Payload: engine.Selection{NextSource: ptr("local:archive")}}, "step 1 · searching archive"},
	}
	for _, tt := range tests {
		var p phaseTracker
		p.next(engine.Event{Payload: engine.SessionStart{Config: tt.cfg}}, "")
		if got := p.next(tt.ev, "was"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// screen replays what a terminal shows for the bytes written: the erase
// sequence clears the line the cursor is on, colours are dropped.
func screen(raw string) (lines []string, last string) {
	raw = ansi.Strip(strings.ReplaceAll(raw, eraseSeq, "\x00"))
	var cur strings.Builder
	for _, r := range raw {
		switch r {
		case 0:
			cur.Reset()
		case '\n':
			lines = append(lines, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return lines, cur.String()
}

func TestSpinnerNeverEntersTheOutput(t *testing.T) {
	for _, width := range []int{80, 12} {
		var plain, term bytes.Buffer
		// The same coloured output without a spinner.
		pw := newEventWriter(&plain, false, false)
		pw.text.st = styles.New(true, false)
		tw := newEventWriter(&term, false, false)
		tw.withSpinner(styles.New(true, false), func() int { return width }, nil)
		var phases []string
		for _, ev := range spinnerRun() {
			pw.write(ev)
			tw.write(ev)
			// After every event the last line on screen is the spinner.
			_, last := screen(term.String())
			phases = append(phases, last)
			if ev.Type() != engine.EventFinal && ansi.StringWidth(last) > width-1 {
				t.Errorf("width %d: spinner line %q is wider than the terminal", width, last)
			}
		}
		pw.flush()
		tw.flush()
		got, last := screen(term.String())
		want, _ := screen(plain.String())
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("width %d: the terminal shows\n%s\nwant (the output without the spinner)\n%s", width, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if last != "" {
			t.Errorf("width %d: spinner left on screen: %q", width, last)
		}
		if width == 80 && (!strings.Contains(phases[5], "step 1 · judging") || !strings.HasPrefix(phases[5], spinnerFrames[0]+" ")) {
			t.Errorf("spinner after the local retrieval: %q", phases[5])
		}
		// Every printed line began after the spinner was erased: no line
		// of output ends with spinner text glued to it.
		for _, l := range got {
			for _, f := range spinnerFrames {
				if strings.Contains(l, f) {
					t.Errorf("spinner frame inside an output line: %q", l)
				}
			}
		}
		if !strings.Contains(term.String(), "\x1b[") || tw.spin.erased == 0 {
			t.Errorf("width %d: no colour or no erase on a terminal", width)
		}
	}
}

func TestSpinnerOnlyOnAColourTerminal(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name string
		tty  bool
		env  func(string) string
		want bool
	}{
		{"terminal", true, env("TERM", "xterm-256color"), true},
		{"terminal, no TERM", true, env(), true},
		{"piped", false, env("TERM", "xterm-256color"), false},
		{"NO_COLOR", true, env("TERM", "xterm-256color", "NO_COLOR", "1"), false},
		{"TERM=dumb", true, env("TERM", "dumb"), false},
	}
	for _, tt := range tests {
		if _, got := lookFor(tt.tty, tt.env); got != tt.want {
			t.Errorf("%s: spinner %v, want %v", tt.name, got, tt.want)
		}
	}
	if st, _ := lookFor(true, env("COLORFGBG", "0;15")); st.IsDark {
		t.Error("COLORFGBG 0;15 is a light background")
	}
}

// Not a terminal (a pipe, a buffer, --json): attachTerminal leaves the
// writer plain and no escape sequence is written.
func TestPlainWhenNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	for _, c := range []struct {
		name string
		out  *eventWriter
		dst  interface{ Write([]byte) (int, error) }
	}{
		{"pipe", newEventWriter(w, false, false), w},
		{"buffer", newEventWriter(&buf, false, false), &buf},
		{"json on a pipe", newEventWriter(w, true, false), w},
	} {
		c.out.attachTerminal(c.dst, func(string) string { return "" })
		if c.out.spin != nil || c.out.text.st != nil {
			t.Errorf("%s: spinner or colour attached", c.name)
		}
	}
	w.Close()
	out := newEventWriter(&buf, false, false)
	out.attachTerminal(&buf, os.Getenv)
	for _, ev := range spinnerRun() {
		out.write(ev)
	}
	out.flush()
	if strings.Contains(buf.String(), "\x1b") || strings.Contains(buf.String(), "\r") {
		t.Errorf("escape sequences in plain output:\n%q", buf.String())
	}
}

// The ticker turns the spinner while events are written from another
// goroutine, and flush stops it with the line erased (run with -race).
func TestSpinnerTickerStopsCleanly(t *testing.T) {
	var term bytes.Buffer
	tw := newEventWriter(&term, false, false)
	tw.withSpinner(styles.New(true, false), func() int { return 80 }, time.Now)
	tw.startTicker(time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, ev := range spinnerRun()[:9] {
			tw.write(ev)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	<-done
	tw.flush()
	tw.flush() // twice is harmless
	if _, last := screen(term.String()); last != "" {
		t.Errorf("spinner left on screen: %q", last)
	}
	if tw.spin.frame == 0 {
		t.Error("the spinner never turned")
	}
}
