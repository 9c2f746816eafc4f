package evidence

import (
	"reflect"
	"testing"
)

// quotesOf returns the quotes of passage n in r, in order.
func quotesOf(r Result, n int) []string {
	var out []string
	for _, q := range r.Support {
		if q.N == n {
			out = append(out, q.Quote)
		}
	}
	return out
}

// The rules that run after each passage's sentences are chosen, each with
// a case where it must fire and one where it must not.
func TestAlignRules(t *testing.T) {
	lantern := []Passage{
		{N: 1, Title: "The Lantern (magazine)", Text: "The Lantern is a weekly gardening magazine of the north. " +
			"It has been on sale since 1885 and is based in Leeds. It is known for its seed catalogues."},
		{N: 2, Title: "Harbour Weekly", Text: "Harbour Weekly is an American gardening magazine first published in 1931 in Boston. " +
			"Its circulation peaked in 1960 at 200,000 copies."},
	}
	genera := []Passage{
		{N: 1, Title: "Crowea", Text: "Crowea is a genus of small evergreen shrubs in the family Rutaceae. " +
			"There are three species and many cultivars, all endemic to Australia."},
		{N: 2, Title: "Tessaria", Text: "Tessaria is a genus of about 40 species of flowering plants in the daisy family."},
	}
	longo := []Passage{
		{N: 1, Title: "Patricia Longo", Text: "Patricia Longo, also known as Jimena Benitez, is a fictional character in the 2012 Argentine telenovela Graduados. " +
			"She is played by Isabel Macedo, both as an adult and, in flashbacks, as a teenager. " +
			"The character was written by Ernesto Korovsky."},
		{N: 2, Title: "Graduados", Text: "Graduados is a 2012 Argentine telenovela which was broadcast by Telefe from March 12 to December 19."},
	}
	gould := []Passage{
		{N: 1, Title: "Stephen Gould", Text: "Stephen Gould (September 10, 1941 – May 20, 2002) was an American paleontologist and historian of science. " +
			"He was one of the most widely read writers of popular science of his generation."},
		{N: 2, Title: "Ann Beattie", Text: "Ann Beattie (born September 8, 1947) is an American short story writer and novelist."},
	}
	tests := []struct {
		name  string
		claim string
		cites []int
		ps    []Passage
		n     int
		want  []string // passage n's quotes, exactly
	}{
		{
			// A comparison on a date: the sentence carrying the date is
			// quoted though it shares no word with the claim.
			name:  "comparison quotes the value",
			claim: "Which magazine was published first, Harbour Weekly or The Lantern? The Lantern",
			cites: []int{1, 2},
			ps:    lantern, n: 1,
			want: []string{"The Lantern is a weekly gardening magazine of the north.",
				"It has been on sale since 1885 and is based in Leeds."},
		},
		{
			// A comparison whose quote already carries the value: nothing
			// is added.
			name:  "comparison with the value quoted",
			claim: "Which magazine was published first, Harbour Weekly or The Lantern? The Lantern",
			cites: []int{1, 2},
			ps:    lantern, n: 2,
			want: []string{"Harbour Weekly is an American gardening magazine first published in 1931 in Boston."},
		},
		{
			// The lone first sentence adds nothing to the sentence with the
			// count: only the count is quoted.
			name:  "comparison drops a lead that adds nothing",
			claim: "Which genus has more species, Crowea or Tessaria? Tessaria",
			cites: []int{1, 2},
			ps:    genera, n: 1,
			want: []string{"There are three species and many cultivars, all endemic to Australia."},
		},
		{
			// The first sentence carries a part of the claim the count does
			// not: it stays.
			name:  "comparison keeps a lead that adds",
			claim: "Which genus of evergreen shrubs has more species, Crowea or Tessaria? Tessaria",
			cites: []int{1, 2},
			ps:    genera, n: 1,
			want: []string{"Crowea is a genus of small evergreen shrubs in the family Rutaceae.",
				"There are three species and many cultivars, all endemic to Australia."},
		},
		{
			// The second sentence goes on about the subject with a part of
			// the claim the first does not carry.
			name:  "next sentence carries the rest",
			claim: "Which 2012 Argentine telenovela starred Isabel Macedo as Jimena Benitez? Graduados",
			cites: []int{1, 2},
			ps:    longo, n: 1,
			want: []string{"Patricia Longo, also known as Jimena Benitez, is a fictional character in the 2012 Argentine telenovela Graduados.",
				"She is played by Isabel Macedo, both as an adult and, in flashbacks, as a teenager."},
		},
		{
			// The second sentence says nothing of the claim: not quoted.
			name:  "next sentence without the claim",
			claim: "Patricia Longo is a character of the 2012 Argentine telenovela Graduados, also known as Jimena Benitez.",
			cites: []int{1},
			ps:    longo, n: 1,
			want: []string{"Patricia Longo, also known as Jimena Benitez, is a fictional character in the 2012 Argentine telenovela Graduados."},
		},
		{
			// The first sentence only names the subject; the second carries
			// the claim's word: the first's bonus does not apply.
			name:  "lead bonus needs a word of the claim",
			claim: "What profession do Stephen Gould and Ann Beattie have in common? writer",
			cites: []int{1, 2},
			ps:    gould, n: 1,
			want: []string{"He was one of the most widely read writers of popular science of his generation."},
		},
		{
			// A claim about nationality: the first sentence states it
			// without the word and keeps its bonus.
			name:  "lead bonus for a nationality",
			claim: "Are Stephen Gould and Ann Beattie of the same nationality?",
			cites: []int{1, 2},
			ps:    gould, n: 1,
			want: []string{"Stephen Gould (September 10, 1941 – May 20, 2002) was an American paleontologist and historian of science."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewAligner(tc.ps, Options{}).AlignClaim(Claim{Text: tc.claim, Citations: tc.cites})
			if got := quotesOf(r, tc.n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("passage %d quotes\n%q\nwant\n%q", tc.n, got, tc.want)
			}
		})
	}
}

// What a claim asks for and how its words meet a passage's.
func TestClaimCuesAndTerms(t *testing.T) {
	asks := []struct {
		claim              string
		date, life, amount bool
	}{
		{"When was the director of Gray Harbour born?", true, true, false},
		{"Where was the director of Gray Harbour born?", false, false, false},
		{"What is the place of birth of the director of Gray Harbour?", false, false, false},
		{"Which board game was published most recently, Pirate's Cove or Catan?", true, false, false},
		{"Which genus has more species, Crowea or Tessaria?", false, false, true},
		{"Which species is the most numerous, Podocarpus or Osmunda?", false, false, true},
	}
	for _, tc := range asks {
		toks := tokens(tc.claim, nil)
		if d, l, q := asksDate(toks), asksLifeDate(toks), asksQty(toks); d != tc.date || l != tc.life || q != tc.amount {
			t.Errorf("%q: date %v life %v amount %v, want %v %v %v", tc.claim, d, l, q, tc.date, tc.life, tc.amount)
		}
	}
	term := func(w string) string {
		toks := tokens(w, nil)
		if len(toks) != 1 {
			t.Fatalf("%q: %d tokens", w, len(toks))
		}
		return toks[0].term
	}
	same := []struct {
		a, b string
		want bool
	}{
		{"African", "Africa", true},
		{"Korean", "Korea", true},
		{"Russians", "Russia", true},
		{"ocean", "ocea", false},
		{"Benìtez", "Benitez", true},
		{"Jähn", "Jahn", true},
		{"Łódź", "Lodz", false}, // ł has no accent to drop
		{"publication", "published", true},
	}
	for _, tc := range same {
		if got := term(tc.a) == term(tc.b); got != tc.want {
			t.Errorf("%q (%s) and %q (%s) meet: %v, want %v", tc.a, term(tc.a), tc.b, term(tc.b), got, tc.want)
		}
	}
	if got := term("yes"); got != "" {
		t.Errorf("yes has term %q, want a stop word", got)
	}
}
