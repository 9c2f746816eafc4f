package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
)

func tok(seq, step int, role, text string) tea.Msg {
	return runEventMsg{ev: engine.Event{Session: "s", Seq: seq, Step: step, Payload: engine.Token{Role: role, Text: text}}}
}

func stored(seq int, typ string) tea.Msg {
	return runEventMsg{ev: engine.Event{Session: "s", Seq: seq, Payload: engine.Unknown{Type: typ}}}
}

// describe writes a batch as "token(seq/step/role:text) type(seq) …".
func describe(msgs []tea.Msg) string {
	var parts []string
	for _, m := range msgs {
		switch m := m.(type) {
		case runEventMsg:
			if tk, ok := m.ev.Payload.(engine.Token); ok {
				parts = append(parts, fmt.Sprintf("token(%d/%d/%s:%s)", m.ev.Seq, m.ev.Step, tk.Role, tk.Text))
			} else {
				parts = append(parts, fmt.Sprintf("%s(%d)", m.ev.Type(), m.ev.Seq))
			}
		case runDoneMsg:
			parts = append(parts, "done")
		case consentMsg:
			parts = append(parts, "consent")
		default:
			parts = append(parts, fmt.Sprintf("%T", m))
		}
	}
	return strings.Join(parts, " ")
}

func TestMergeTokens(t *testing.T) {
	tests := []struct {
		name string
		in   []tea.Msg
		want string
	}{
		{"empty", nil, ""},
		{"one delta", []tea.Msg{tok(1, 1, "step", "a")}, "token(1/1/step:a)"},
		{"a run merges", []tea.Msg{tok(1, 1, "step", "a"), tok(1, 1, "step", "b"), tok(1, 1, "step", "c")}, "token(1/1/step:abc)"},
		{"stored events split runs", []tea.Msg{stored(1, "session"), tok(1, 1, "step", "a"), tok(1, 1, "step", "b"), stored(2, "thought"), tok(2, 2, "step", "c"), tok(2, 2, "step", "d"), stored(3, "final")},
			"session(1) token(1/1/step:ab) thought(2) token(2/2/step:cd) final(3)"},
		{"roles and steps kept apart", []tea.Msg{tok(1, 1, "step", "a"), tok(1, 1, "forced", "b"), tok(1, 1, "forced", "c"), tok(1, 2, "forced", "d")},
			"token(1/1/step:a) token(1/1/forced:bc) token(1/2/forced:d)"},
		{"other messages keep their place", []tea.Msg{tok(1, 1, "step", "a"), consentMsg{}, tok(1, 1, "step", "b"), tok(1, 1, "step", "c"), runDoneMsg{}},
			"token(1/1/step:a) consent token(1/1/step:bc) done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(mergeTokens(tt.in)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A flood of deltas queued on a stream reaches the UI as one message per
// run, text whole and in order.
func TestStreamDeliversMergedDeltas(t *testing.T) {
	s := newStream(1, make(chan struct{}))
	var want strings.Builder
	s.send(stored(1, "session"))
	for i := range 300 {
		d := fmt.Sprintf("w%d ", i)
		want.WriteString(d)
		s.send(tok(1, 1, "step", d))
	}
	s.send(stored(2, "thought"))
	s.close()
	var got []tea.Msg
	for {
		b := s.next()().(batchMsg)
		got = append(got, b.msgs...)
		if b.done {
			break
		}
	}
	if d := describe(got); d != "session(1) token(1/1/step:"+want.String()+") thought(2)" {
		t.Errorf("delivered %.200s", d)
	}
}
