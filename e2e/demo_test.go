package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// TestDemoHeadless: `prefrag demo --json` runs the whole loop with no model
// server (OLLAMA_HOST points nowhere) and no web: the sample corpus is
// searched, the judge switches the second search to the web stand-in, the
// answer cites both and its evidence is checked. Everything is labelled
// scripted, the demo's sessions live in the demo's own home: the user's
// sessions, corpora and pin are untouched, and no request reached the
// user's model or search servers.
func TestDemoHeadless(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	out, errOut, code := w.runEnv([]string{"OLLAMA_HOST=" + fakellm.ClosedURL(t)}, "demo", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	evs := parseEvents(t, out)
	start := payloadsOf[engine.SessionStart](evs)
	if len(start) != 1 {
		t.Fatalf("session events %d", len(start))
	}
	if c := start[0].Config; c == nil || c.Model != "scripted demo" || c.LLM != "scripted-demo" || !strings.Contains(c.LLMURL, "no model server") {
		t.Errorf("the session's config is not labelled scripted: %+v", c)
	}
	rets := payloadsOf[engine.Retrieval](evs)
	if len(rets) < 3 || rets[0].Source != "local:demo" || rets[2].Source != "web:stand-in" {
		t.Fatalf("retrievals %+v, want the sample corpus twice then the web stand-in", rets)
	}
	sels := payloadsOf[engine.Selection](evs)
	if len(sels) != 2 || !*sels[0].Status || *sels[1].Status || sels[1].NextSource == nil || *sels[1].NextSource != "web:stand-in" {
		t.Errorf("selections %+v, want local sufficient, then a switch to the stand-in", sels)
	}
	final := payloadsOf[engine.Final](evs)
	if len(final) != 1 || !strings.Contains(final[0].Answer, "Maren Osk") || !strings.Contains(final[0].Answer, "1963") || final[0].Label != "CORRECT" {
		t.Fatalf("final %+v", final)
	}
	ev := payloadsOf[engine.Evidence](evs)
	if len(ev) != 1 || len(ev[0].Claims) == 0 || len(ev[0].Unbacked()) != 0 {
		t.Errorf("evidence %+v, want every claim supported", ev)
	}
	if n := len(w.llm.Requests()); n != 0 || w.search.Requests() != 0 {
		t.Errorf("the demo reached the user's servers: %d LLM requests, %d web requests", n, w.search.Requests())
	}
	// The user's home: no demo session, no demo corpus.
	if list, _, _ := w.run("sessions", "list", "--json"); strings.TrimSpace(list) != "" {
		t.Errorf("the user's sessions list holds demo sessions:\n%s", list)
	}
	if corp, _, _ := w.run("corpora"); strings.Contains(corp, "demo") {
		t.Errorf("the user's corpora list holds the demo's:\n%s", corp)
	}
	// The demo's home holds the session, and its exports say scripted.
	demoHome := filepath.Join(w.home, "data", "demo")
	if _, err := os.Stat(filepath.Join(demoHome, "prefrag.db")); err != nil {
		t.Fatalf("no demo home: %v", err)
	}
	for _, format := range []string{"md", "html"} {
		exp, errOut, code := w.runEnv([]string{"PREFRAG_HOME=" + demoHome}, "sessions", "export", "last", "--format", format)
		if code != 0 {
			t.Fatalf("export %s: exit %d %s", format, code, errOut)
		}
		if !strings.Contains(exp, "scripted demo") || !strings.Contains(exp, "stand-in") {
			t.Errorf("the %s export does not say scripted demo and stand-in", format)
		}
	}
}

// TestDemoTextSaysScripted: the text output's header and closing line say
// it is the scripted demo.
func TestDemoTextSaysScripted(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	out, errOut, code := w.run("demo", "--ask")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"model scripted demo", "web auto (stand-in)", "[2] Judge: switching to web:stand-in", "This was prefrag's scripted demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestDemoInTmux: `prefrag demo` opens the workspace labelled scripted on
// every screen, the first sample question in the box; Enter runs it: the
// switch to the web stand-in and the cited answer appear; the sessions
// screen lists it; the stepper opens it.
func TestDemoInTmux(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	s := startTmux(t, w, t.TempDir(), "demo")
	s.waitFor("start", 15*time.Second, "scripted demo", "model scripted demo", "Who designed the Tarn Point lighthouse")
	s.keys("Enter")
	s.waitFor("switch to the stand-in", 20*time.Second, "switching to web (stand-in)")
	s.waitFor("answer", 20*time.Second, "Sources", "gazette.velloran.example", "Counts")
	s.keys("Tab")
	scr := pressed(t, s, "2", "Sessions (1)", "q/esc back")
	if !strings.Contains(scr, "scripted demo") {
		t.Errorf("the sessions screen is not labelled:\n%s", scr)
	}
	s.keys("Enter")
	stepperOpened(t, s)
	if !strings.Contains(s.screen(), "scripted demo") {
		t.Errorf("the stepper is not labelled:\n%s", s.screen())
	}
	quit(t, s)
}

// TestRecallAndEscInTmux: in the workspace (the demo's, no model needed),
// after an answer Up in the empty follow-up box brings back the question
// just asked and Down empties the box again; Esc on the sessions list
// returns to the Ask screen's trajectory where it was, so q then quits
// instead of being typed into the question box.
func TestRecallAndEscInTmux(t *testing.T) {
	w := newWorld(t, &fakellm.Script{})
	s := startTmux(t, w, t.TempDir(), "demo")
	s.waitFor("start", 15*time.Second, "Who designed the Tarn Point lighthouse")
	s.keys("Enter")
	s.waitFor("answer", 20*time.Second, "Counts", "Ask a follow-up")
	pressed(t, s, "Up", "│Who designed the Tarn Point lighthouse")
	pressed(t, s, "Down", "Ask a follow-up")
	s.keys("Tab")
	pressed(t, s, "2", "Sessions (1)", "q/esc back")
	pressedAway(t, s, "Escape", "Sessions (1)")
	s.keys("q")
	exited(t, s)
}
