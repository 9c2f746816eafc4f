package engine

import "testing"

func TestMergeableTokens(t *testing.T) {
	base := Event{Type: EventToken, Session: "s", Seq: 3, Step: 1, Role: "step", Text: "a"}
	other := func(f func(*Event)) Event { e := base; e.Text = "b"; f(&e); return e }
	for _, tc := range []struct {
		name string
		b    Event
		want bool
	}{
		{"same stream", other(func(*Event) {}), true},
		{"other session", other(func(e *Event) { e.Session = "t" }), false},
		{"other seq", other(func(e *Event) { e.Seq = 4 }), false},
		{"other step", other(func(e *Event) { e.Step = 2 }), false},
		{"other role", other(func(e *Event) { e.Role = "forced" }), false},
		{"not a token", other(func(e *Event) { e.Type = EventThought }), false},
	} {
		if got := MergeableTokens(base, tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
