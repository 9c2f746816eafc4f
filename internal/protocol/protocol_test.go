package protocol

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"Final  Answer":          FinalAnswer,
		"ACTION INPUT":           ActionInput,
		"Action":                 Action,
		"Improvement Suggestion": Suggestions,
		"self evaluation":        SelfEval,
		"Self-Evaluation":        SelfEval,
		"Observation":            Observation,
		"Answer":                 "",
		"Thoughts":               "",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
