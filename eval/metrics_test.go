package eval

import (
	"math"
	"testing"
)

// The expected values below were worked out by hand from the reference
// implementation's definitions (see metrics.go).

func TestNormalizeAnswer(t *testing.T) {
	cases := []struct{ in, want string }{
		{"The Eiffel Tower", "eiffel tower"},
		{"  An   apple, a pear.  ", "apple pear"},
		{"U.S.A.", "usa"},
		{"1,000", "1000"},
		{"theatre and the", "theatre and"},           // "theatre" is not the article
		{"a-the-an", "athean"},                       // punctuation goes first, fusing the words
		{"Rock'n'roll", "rocknroll"},                 // apostrophes are ASCII punctuation
		{"Émile Zola’s novel", "émile zola’s novel"}, // ’ is not ASCII punctuation
		{"thé", "thé"},                               // é is a word character: no boundary
		{"ΟΔΟΣ", "οδος"},                             // final sigma
		{"İzmir", "i\u0307zmir"},                     // Python lower of U+0130
		{"x\u00a0y\x1cz", "x y z"},                   // Python whitespace
		{"", ""},
	}
	for _, c := range cases {
		if got := NormalizeAnswer(c.in); got != c.want {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestScore(t *testing.T) {
	cases := []struct {
		name   string
		pred   string
		gold   []string
		yesNo  bool
		acc    float64
		em     float64
		f1     float64
		f1Frac [2]int // f1 as a fraction, when not 0 or 1
	}{
		{name: "exact", pred: "Chief of Protocol", gold: []string{"Chief of Protocol"}, acc: 1, em: 1, f1: 1},
		{name: "article and case", pred: "the chief of protocol.", gold: []string{"Chief of Protocol"}, acc: 1, em: 1, f1: 1},
		// pred tokens: chief of protocol of united states (6); gold: chief
		// of protocol (3); common 3 → P = 1/2, R = 1, F1 = 2/3.
		{name: "longer prediction", pred: "Chief of Protocol of the United States", gold: []string{"Chief of Protocol"}, acc: 1, em: 0, f1Frac: [2]int{2, 3}},
		// Acc is a raw substring test: "yes" is inside "eyes".
		{name: "substring acc", pred: "eyes", gold: []string{"yes"}, acc: 1, em: 0, f1: 0},
		{name: "yes/no word boundary", pred: "eyes", gold: []string{"yes"}, yesNo: true, acc: 0, em: 0, f1: 0},
		// Tokens yes it is vs yes: P = 1/3, R = 1, F1 = 1/2.
		{name: "yes/no with punctuation", pred: "Yes, it is.", gold: []string{"yes"}, yesNo: true, acc: 1, em: 0, f1Frac: [2]int{1, 2}},
		// Best gold wins: "Paul Thomas Mann" vs pred "Thomas Mann": P = 1,
		// R = 2/3, F1 = 0.8; against "Mann" P = 1/2, R = 1, F1 = 2/3.
		{name: "max over gold", pred: "Thomas Mann", gold: []string{"Mann", "Paul Thomas Mann"}, acc: 1, em: 0, f1Frac: [2]int{4, 5}},
		{name: "empty prediction", pred: "", gold: []string{"Rush"}, acc: 0, em: 0, f1: 0},
		// Both sides normalise to nothing: the reference scores F1 0 but EM 1.
		{name: "only articles", pred: "The", gold: []string{"a"}, acc: 0, em: 1, f1: 0},
		// Multiset overlap: new york (2 of 3 predicted tokens): P = 2/3,
		// R = 1, F1 = 4/5.
		{name: "repeated tokens", pred: "new new york", gold: []string{"new york"}, acc: 1, em: 0, f1Frac: [2]int{4, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Score(c.pred, c.gold, c.yesNo)
			want := c.f1
			if c.f1Frac[1] != 0 {
				p := float64(c.f1Frac[0]) / float64(c.f1Frac[1])
				want = p
			}
			if got.Acc != c.acc || got.EM != c.em || math.Abs(got.F1-want) > 1e-15 {
				t.Errorf("Score(%q, %q) = %+v, want acc %v em %v f1 %v", c.pred, c.gold, got, c.acc, c.em, want)
			}
		})
	}
}

func TestContainsBounded(t *testing.T) {
	cases := []struct {
		s, needle string
		want      bool
	}{
		{"yes", "yes", true},
		{"the answer is no.", "no", true},
		{"nobody knows", "no", false},
		{"no_way", "no", false}, // underscore is a word character
		{"(no)", "no", true},
		{"nono no", "no", true}, // the third occurrence is bounded
		{"ñno", "no", false},    // ñ is a word character
		{"", "no", false},
	}
	for _, c := range cases {
		if got := containsBounded(c.s, c.needle); got != c.want {
			t.Errorf("containsBounded(%q, %q) = %v, want %v", c.s, c.needle, got, c.want)
		}
	}
}

func TestPercentRoundsLikePython(t *testing.T) {
	cases := []struct {
		sum  float64
		n    int
		want float64
	}{
		{1, 3, 33.33},
		{2, 3, 66.67},
		{1, 8, 12.5},
		{1, 800, 0.12}, // 0.125 is exact in binary: half to even
		{3, 800, 0.38}, // 0.375 exact: half to even
		{0, 0, 0},
		{20, 20, 100},
	}
	for _, c := range cases {
		if got := Percent(c.sum, c.n); got != c.want {
			t.Errorf("Percent(%v, %d) = %v, want %v", c.sum, c.n, got, c.want)
		}
	}
	// 2.675 is stored just below, so Python's round gives 2.67.
	if got := Round2(2.675); got != 2.67 {
		t.Errorf("Round2(2.675) = %v, want 2.67", got)
	}
}

func FuzzScore(f *testing.F) {
	f.Add("The Eiffel Tower", "eiffel tower")
	f.Add("Yes, it is.", "yes")
	f.Add("ΟΔΟΣ İ\u00a0x", "οδος")
	f.Fuzz(func(t *testing.T, pred, gold string) {
		for _, yn := range []bool{false, true} {
			s := Score(pred, []string{gold}, yn)
			if s.F1 < 0 || s.F1 > 1 || math.IsNaN(s.F1) {
				t.Fatalf("F1 %v out of range", s.F1)
			}
			if s.EM == 1 && NormalizeAnswer(pred) != "" && s.F1 != 1 {
				t.Fatalf("exact match with F1 %v", s.F1)
			}
			if s.Acc != 0 && s.Acc != 1 {
				t.Fatalf("Acc %v", s.Acc)
			}
		}
		n := NormalizeAnswer(pred)
		if len(n) > 0 && (n[0] == ' ' || n[len(n)-1] == ' ') {
			t.Fatalf("normalised %q has outer spaces", n)
		}
	})
}
