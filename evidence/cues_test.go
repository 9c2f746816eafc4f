package evidence

import "testing"

// A claim about an amount or about a birth asks for the sentence that
// states it, even when another sentence of the passage names more of the
// claim's words.
func TestAlignAnswerTypeCues(t *testing.T) {
	tests := []struct {
		name  string
		claim string
		ps    []Passage
		n     int      // the passage whose quotes are checked
		want  []string // among the quotes
	}{
		{
			name:  "an amount",
			claim: "Which mountain is taller, Korvald Peak or Tessin Ridge? Korvald Peak [1] [2]",
			ps: []Passage{
				{N: 1, Title: "Korvald Peak", Text: "Korvald Peak is a mountain of the Ostren range, first climbed in 1902."},
				{N: 2, Title: "Tessin Ridge", Text: "Tessin Ridge is a mountain in the Ostren range of the north. " +
					"At an elevation of 4310 m it is the 86th highest mountain of the range."},
			},
			n:    2,
			want: []string{"At an elevation of 4310 m it is the 86th highest mountain of the range."},
		},
		{
			name:  "a life's span",
			claim: "Which film has the director born later, Gray Harbour or Lantern Street? Gray Harbour [1] [2]",
			ps: []Passage{
				{N: 1, Title: "Gray Harbour", Text: "Gray Harbour is a 1971 drama film directed by Osric Delane."},
				{N: 2, Title: "Osric Delane", Text: "Osric Delane (4 May 1931 – 9 June 2002) was a Welsh painter and writer. " +
					"He was born in Cardiff and directed the film Gray Harbour in 1971."},
			},
			n:    2,
			want: []string{"Osric Delane (4 May 1931 – 9 June 2002) was a Welsh painter and writer."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewAligner(tc.ps, Options{}).AlignClaim(Claim{Text: tc.claim, Citations: []int{1, 2}})
			got := map[string]bool{}
			var all []string
			for _, q := range r.Support {
				if q.N == tc.n {
					got[q.Quote] = true
					all = append(all, q.Quote)
				}
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("quotes of [%d] %q, want among them %q", tc.n, all, w)
				}
			}
		})
	}
}

func TestLifespan(t *testing.T) {
	for text, want := range map[string]bool{
		"Philip Braham (18 June 1881 – 2 May 1934) was an English composer.":                      true,
		"Piero Calamandrei (Florence, 21 April 1889 – Florence, 27 September 1956) was a jurist.": true,
		"James Stanley (c. 1465–1515) was Bishop of Ely.":                                         true,
		"Franz Lackner (born 14 July 1956) is an Austrian prelate.":                               false,
		"The band (formed 1997) has four members.":                                                false,
		"It was released in 2001 (in Europe - not in 2002).":                                      false,
		"An unclosed (1901 – 1950":                                                                true,
	} {
		if got := lifespan(text); got != want {
			t.Errorf("lifespan(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestAsksLifeDate(t *testing.T) {
	for claim, want := range map[string]bool{
		"Which film has the director born later, Gray Harbour or Lantern Street?": true,
		"Who died first, Silas Hardy or Lee Mantle?":                              true,
		"Osric Delane died in 2002.":                                              true,
		"The director of Copper Bells was born in Tampere.":                       false,
		"Where was the director of film Copper Bells born? Tampere":               false,
		"Which film was released more recently?":                                  false,
	} {
		if got := asksLifeDate(tokens(claim, nil)); got != want {
			t.Errorf("asksLifeDate(%q) = %v, want %v", claim, got, want)
		}
	}
}
