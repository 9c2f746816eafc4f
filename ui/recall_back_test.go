package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestUpRecallsThePreviousQuestion: Up in an empty question box brings
// back the question sent before, Down goes back to an empty box; once the
// recalled text is edited, Up is the textarea's again.
func TestUpRecallsThePreviousQuestion(t *testing.T) {
	m, _ := answered(t)
	if got := inputText(m); got != "" {
		t.Fatalf("setup: the box holds %q", got)
	}
	feed(m, "up")
	if got := inputText(m); got != "Where was Kafka born?" {
		t.Fatalf("after up the box holds %q, want the question sent", got)
	}
	feed(m, "down")
	if got := inputText(m); got != "" {
		t.Fatalf("after down the box holds %q, want it empty", got)
	}
	feed(m, "up", "!", "up")
	if got := inputText(m); got != "Where was Kafka born?!" {
		t.Fatalf("after editing, up recalled again: the box holds %q", got)
	}
}

// TestEscFromAListReturnsWhereItWas: Esc on the sessions list goes back to
// the screen it was opened from with the focus it had there — the Ask
// screen's trajectory, not the question box, so the next key acts on the
// trajectory instead of being typed; from the corpora screen, back there.
func TestEscFromAListReturnsWhereItWas(t *testing.T) {
	m, _ := answered(t)
	drain(t, m, tea.Batch(feed(m, "tab", "2")...))
	if m.screen != screenSessions {
		t.Fatalf("setup: screen %d, want the sessions list", m.screen)
	}
	feed(m, "esc")
	if m.screen != screenAsk || m.ask.typing {
		t.Fatalf("after esc: screen %d typing %v; want the Ask screen with its trajectory focused", m.screen, m.ask.typing)
	}
	feed(m, "j", "k")
	if got := inputText(m); got != "" || m.ask.typing {
		t.Errorf("the keys after esc were typed into the question box: %q", got)
	}

	m, _ = answered(t)
	drain(t, m, tea.Batch(feed(m, "tab", "3")...))
	drain(t, m, tea.Batch(feed(m, "2")...))
	feed(m, "esc")
	if m.screen != screenCorpora {
		t.Fatalf("esc from sessions opened from corpora: screen %d, want the corpora screen", m.screen)
	}
	feed(m, "esc")
	if m.screen != screenAsk || m.ask.typing {
		t.Errorf("esc from corpora: screen %d typing %v; want the Ask screen, trajectory focused", m.screen, m.ask.typing)
	}
}
