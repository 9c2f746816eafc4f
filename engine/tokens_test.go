package engine

import "testing"

func TestMergeableTokens(t *testing.T) {
	base := Event{Session: "s", Seq: 3, Step: 1, Payload: Token{Role: "step", Text: "a"}}
	other := func(f func(*Event)) Event { e := base; e.Payload = Token{Role: "step", Text: "b"}; f(&e); return e }
	for _, tc := range []struct {
		name string
		b    Event
		want bool
	}{
		{"same stream", other(func(*Event) {}), true},
		{"other session", other(func(e *Event) { e.Session = "t" }), false},
		{"other seq", other(func(e *Event) { e.Seq = 4 }), false},
		{"other step", other(func(e *Event) { e.Step = 2 }), false},
		{"other role", other(func(e *Event) { e.Payload = Token{Role: "forced", Text: "b"} }), false},
		{"not a token", other(func(e *Event) { e.Payload = Thought{Role: "step", Text: "b"} }), false},
	} {
		if got := MergeableTokens(base, tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
