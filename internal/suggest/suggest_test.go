package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"model", "model", 0},
		{"modle", "model", 1}, // a swap
		{"mdoel", "model", 1},
		{"modl", "model", 1},
		{"tempature", "temperature", 2},
		{"max-hops", "max-steps", 3},
		{"", "abc", 3},
		{"café", "cafe", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	flags := []string{"corpus", "model", "judge-model", "max-steps", "max-reflections", "k", "json", "web", "web-engine"}
	for _, tt := range []struct{ name, want string }{
		{"modle", "model"},
		{"corpse", "corpus"},
		{"max-step", "max-steps"},
		{"jsn", "json"},
		{"webengine", "web-engine"},
		{"max-hops", ""}, // three edits in a short name: not close
		{"x", ""},        // one letter: anything is one edit away
		{"zzzzzz", ""},
		{"model", ""}, // itself is not a suggestion
	} {
		if got := Closest(tt.name, flags); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
