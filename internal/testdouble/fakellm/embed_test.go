package fakellm

import "testing"

func TestEmbedConcepts(t *testing.T) {
	dot := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for _, tc := range []struct {
		a, b     string
		min, max float64
	}{
		{"mend an automobile", "car repair", 0.99, 1.01},
		{"how do I mend an automobile?", "Car repair: fixing brakes and vehicles", 0.7, 1.01},
		{"car repair", "bread recipe", -1, 0.4},
		{"Movies", "film", 0.99, 1.01},
	} {
		if got := dot(Embed(tc.a, 64), Embed(tc.b, 64)); got < tc.min || got > tc.max {
			t.Errorf("cos(%q, %q) = %.3f, want in [%.2f, %.2f]", tc.a, tc.b, got, tc.min, tc.max)
		}
	}
}
