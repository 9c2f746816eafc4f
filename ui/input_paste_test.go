package ui

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
)

const pasteText = "The quick brown fox jumps over the lazy dog. "

// typeRunes feeds n rune key messages to the root model as a terminal
// without bracketed paste delivers a paste: one KeyPressMsg per character,
// Update then View for each, as the program does. Every 1,000 keys the
// flush tick the model asked for is delivered (in the program it comes
// every 15 ms, i.e. after far more keys than that).
func typeRunes(m *Model, n int) {
	for i := 0; i < n; i++ {
		r := rune(pasteText[i%len(pasteText)])
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		_ = m.View()
		if i%1000 == 999 {
			m.Update(typedFlushMsg{})
			_ = m.View()
		}
	}
	m.Update(typedFlushMsg{})
	_ = m.View()
}

func askModel() *Model {
	m := New(context.Background(), Deps{}, Options{Settings: scripted.Settings(), NoColor: true, Now: newClock().Now})
	m.resize(100, 40)
	return m
}

// A 240 KB paste arriving as 240,000 key messages (no bracketed paste) is
// processed in bounded time: it took over five minutes when every key
// re-wrapped and re-rendered the whole question box.
func TestTypedPasteOf240KBStaysResponsive(t *testing.T) {
	n := 240000
	if raceEnabled {
		n = 60000 // still three times what the box holds
	}
	m := askModel()
	done := make(chan time.Duration, 1)
	go func() {
		t0 := time.Now()
		typeRunes(m, n)
		done <- time.Since(t0)
	}()
	select {
	case d := <-done:
		t.Logf("%d key messages in %v (%v per key)", n, d, d/time.Duration(n))
	case <-time.After(90 * time.Second):
		t.Fatalf("%d key messages were not processed within 90s", n)
	}
	got := m.ask.input.Value()
	if c := utf8.RuneCountInString(got); c != questionLimit {
		t.Errorf("the box holds %d characters, want the limit %d", c, questionLimit)
	}
	if want := strings.Repeat(pasteText, questionLimit/len(pasteText)+1)[:questionLimit]; got != want {
		t.Errorf("the box does not hold the first %d typed characters in order", questionLimit)
	}
	frame := ansi.Strip(m.render())
	if !strings.Contains(frame, "Text cut") || !strings.Contains(frame, plural.Thousands(n-questionLimit)+" characters left out") {
		t.Errorf("no notice says the text was cut:\n%s", frame)
	}
}

// A paste longer than the old 4,000-character limit is kept whole; one
// longer than the box is cut with a visible notice, never silently.
func TestQuestionPasteLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		keep    int
		noticed bool
	}{
		{"6000 kept", 6000, 6000, false},
		{"limit kept", questionLimit, questionLimit, false},
		{"25000 cut", 25000, questionLimit, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, typed := range []bool{false, true} {
				m := askModel()
				text := strings.Repeat("é", tc.n) // several bytes per character
				if typed {
					for _, r := range text {
						m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
					}
					m.Update(typedFlushMsg{})
				} else {
					m.Update(tea.PasteMsg{Content: text})
				}
				if c := utf8.RuneCountInString(m.ask.input.Value()); c != tc.keep {
					t.Errorf("typed=%v: the box holds %d characters, want %d", typed, c, tc.keep)
				}
				frame := ansi.Strip(m.render())
				if got := strings.Contains(frame, "Text cut"); got != tc.noticed {
					t.Errorf("typed=%v: notice shown %v, want %v:\n%s", typed, got, tc.noticed, frame)
				}
			}
		})
	}
}

// Typed characters reach the box in order with the keys around them:
// a cursor move or a newline flushes what was typed before it, and Enter
// sends everything typed, even before the flush tick came.
func TestTypedKeysKeepOrder(t *testing.T) {
	m := askModel()
	send := func(names ...string) {
		for _, n := range names {
			m.Update(keyMsg(n))
		}
	}
	for _, r := range "world" {
		send(string(r))
	}
	send("home")
	for _, r := range "hello " {
		send(string(r))
	}
	send("end", "ctrl+j")
	for _, r := range "again" {
		send(string(r))
	}
	if got, want := m.ask.input.Value(), "hello world\n"; got != want {
		t.Fatalf("box holds %q, want %q", got, want)
	}
	m.Update(typedFlushMsg{})
	if got, want := m.ask.input.Value(), "hello world\nagain"; got != want {
		t.Fatalf("after the tick the box holds %q, want %q", got, want)
	}
	m.Update(typedFlushMsg{}) // a late tick finds nothing to do
	if got, want := m.ask.input.Value(), "hello world\nagain"; got != want {
		t.Fatalf("after a second tick the box holds %q, want %q", got, want)
	}
}

// In the running program, a long text typed key by key (no bracketed
// paste) shows up in the box and Enter sends all of it.
func TestTypedQuestionReachesRun(t *testing.T) {
	h := newHarness(t)
	h.waitFor("Ask a question")
	q := strings.Repeat(pasteText, 6000/len(pasteText)+1)[:6000]
	t0 := time.Now()
	h.typeText(q)
	h.waitFor("lazy dog.")
	h.keys("enter")
	waitUntil(t, func() bool {
		h.runner.mu.Lock()
		defer h.runner.mu.Unlock()
		return len(h.runner.questions) == 1
	})
	t.Logf("6,000 typed characters sent in %v", time.Since(t0))
	h.runner.mu.Lock()
	got := h.runner.questions[0]
	h.runner.mu.Unlock()
	if got != strings.TrimSpace(q) {
		t.Fatalf("the run got %d characters, want the %d typed", len(got), len(strings.TrimSpace(q)))
	}
}

// BenchmarkTypedPaste is a 240,000-character paste delivered as one key
// message per character (Update and View for each). One op is the whole
// paste.
func BenchmarkTypedPaste(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m := askModel()
		typeRunes(m, 240000)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*240000), "ns/key")
}
