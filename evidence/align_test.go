package evidence

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var velloran = []Passage{
	{N: 1, Title: "Velloran Institute", Text: "The Velloran Institute is a research institute in Oslo. It was founded in 1887 by the chemist Maren Holt. " +
		"Its library holds more than 40,000 historical maps. The institute employs about 300 people."},
	{N: 2, Title: "Oslo Harbour", Text: "Oslo Harbour is the main port of Oslo. It handles ferries to Kiel and Copenhagen."},
}

func quoteTexts(r Result) []string {
	var out []string
	for _, q := range r.Support {
		out = append(out, q.Quote)
	}
	return out
}

// The case: three claims, two supported by different sentences of
// passage [1], one citing a passage that says nothing about it.
func TestAlignThreeClaims(t *testing.T) {
	answer := "The Velloran Institute was founded in 1887 [1]. Its library holds over 40,000 historical maps [1]. " +
		"It also runs a sailing school for children [2]."
	got := Align(answer, velloran)
	if len(got) != 3 {
		t.Fatalf("%d claims, want 3: %+v", len(got), got)
	}
	want := []struct {
		verdict Verdict
		quotes  []string
	}{
		{Supported, []string{"It was founded in 1887 by the chemist Maren Holt."}},
		{Supported, []string{"Its library holds more than 40,000 historical maps."}},
		{Unsupported, nil},
	}
	for i, w := range want {
		if got[i].Verdict != w.verdict || !reflect.DeepEqual(quoteTexts(got[i]), w.quotes) {
			t.Errorf("claim %d %q: verdict %s quotes %q, want %s %q", i+1, got[i].Text, got[i].Verdict, quoteTexts(got[i]), w.verdict, w.quotes)
		}
	}
	for _, r := range got {
		for _, q := range r.Support {
			p := velloran[q.N-1]
			if p.Text[q.Start:q.End] != q.Quote {
				t.Errorf("quote %q is not at [%d:%d] of passage %d", q.Quote, q.Start, q.End, q.N)
			}
			if q.Score <= 0 || q.Score > 1 {
				t.Errorf("quote score %v out of (0, 1]", q.Score)
			}
		}
	}
	if c := got[2].Cited; len(c) != 1 || c[0].N != 2 || c[0].Verdict != Unsupported || c[0].Missing {
		t.Errorf("third claim's citation %+v", c)
	}
}

func TestAlignVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		verdict Verdict
		quotes  []string
		missing bool
	}{
		{"not cited", "The institute employs about 300 people.", Uncited, nil, false},
		{"cites an unknown passage", "The institute employs about 300 people [7].", Unsupported, nil, true},
		{"weak: a small part of the claim", "Maren Holt later won two Nobel prizes, sailed to Antarctica and wrote nine novels about whales [1].", Weak,
			[]string{"It was founded in 1887 by the chemist Maren Holt."}, false},
		{"pronoun sentence after the title", "The Velloran Institute employs about 300 people [1].", Supported,
			[]string{"The institute employs about 300 people."}, false},
		{"one of two citations supports", "The Velloran Institute is in Oslo [1][2].", Supported,
			[]string{"The Velloran Institute is a research institute in Oslo.", "Oslo Harbour is the main port of Oslo."}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Align(tt.answer, velloran)
			if len(got) != 1 {
				t.Fatalf("%d claims", len(got))
			}
			r := got[0]
			if r.Verdict != tt.verdict || !reflect.DeepEqual(quoteTexts(r), tt.quotes) {
				t.Errorf("verdict %s quotes %q, want %s %q (per citation %+v)", r.Verdict, quoteTexts(r), tt.verdict, tt.quotes, r.Cited)
			}
			missing := false
			for _, c := range r.Cited {
				missing = missing || c.Missing
			}
			if missing != tt.missing {
				t.Errorf("missing = %v, want %v", missing, tt.missing)
			}
		})
	}
}

// A two-hop claim: the film's passage names its director, whose passage
// is cited too; the director's birth sentence supports the claim though
// the claim never names him.
func TestAlignBridge(t *testing.T) {
	ps := []Passage{
		{N: 1, Title: "Copper Bells", Text: "Copper Bells is a 1971 Finnish film directed by Aino Lehto. It was filmed in winter."},
		{N: 2, Title: "Aino Lehto", Text: "Aino Lehto (4 June 1930 – 2 March 2001) was a Finnish film director. She directed 14 films. She was born in Tampere."},
		{N: 3, Title: "Tampere", Text: "Tampere is a city in Finland. It lies between two lakes."},
	}
	r := NewAligner(ps, Options{}).AlignClaim(Claim{Text: "The director of Copper Bells was born in Tampere.", Citations: []int{1, 2}})
	want := []string{"Copper Bells is a 1971 Finnish film directed by Aino Lehto.", "She was born in Tampere."}
	if got := quoteTexts(r); !reflect.DeepEqual(got, want) || r.Verdict != Supported {
		t.Errorf("quotes %q verdict %s, want %q supported (%+v)", got, r.Verdict, want, r.Cited)
	}
}

// Same input, same output, byte for byte: no map order leaks into scores.
func TestAlignDeterministic(t *testing.T) {
	answer := "The Velloran Institute was founded in 1887 by Maren Holt in Oslo [1][2]. Its library holds maps [1]."
	first, _ := json.Marshal(Align(answer, velloran))
	for i := 0; i < 50; i++ {
		again, _ := json.Marshal(Align(answer, velloran))
		if string(again) != string(first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, first, again)
		}
	}
}

// The JSON shape is CONTRACT.md's evidence event: {text, citations,
// support: [{n, quote, start, end, score}], verdict}.
func TestResultJSON(t *testing.T) {
	b, err := json.Marshal(Align("It was founded in 1887 [1]. Hello.", velloran))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"text":"It was founded in 1887."`, `"citations":[1]`, `"support":[{"n":1,"quote":"It was founded in 1887 by the chemist Maren Holt.","start":56,"end":105,"score":`,
		`"verdict":"supported"`, `"verdict":"uncited"`, `"citations":[],"support":[]`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
}

func TestAlignNoPassages(t *testing.T) {
	got := Align("Something is true [1].", nil)
	if len(got) != 1 || got[0].Verdict != Unsupported || len(got[0].Support) != 0 {
		t.Errorf("%+v", got)
	}
	if got := Align("", velloran); len(got) != 0 {
		t.Errorf("empty answer: %+v", got)
	}
}
