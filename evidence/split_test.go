package evidence

import (
	"reflect"
	"testing"
)

func sentenceTexts(text string) []string {
	var out []string
	for _, s := range Sentences(text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"plain", "One sentence here. Another one follows! A question? Yes.",
			[]string{"One sentence here.", "Another one follows!", "A question?", "Yes."}},
		{"title abbreviations", "Dr. Smith met Mr. Jones in St. Louis. They talked.",
			[]string{"Dr. Smith met Mr. Jones in St. Louis.", "They talked."}},
		{"initials", "The Hobbit was written by J. R. R. Tolkien in 1937. It sold well.",
			[]string{"The Hobbit was written by J. R. R. Tolkien in 1937.", "It sold well."}},
		{"dotted abbreviation inside", "He moved to the U.S. Army base. He stayed.",
			[]string{"He moved to the U.S. Army base.", "He stayed."}},
		{"dotted abbreviation at the end", "He was born in the U.S. He moved to Paris.",
			[]string{"He was born in the U.S.", "He moved to Paris."}},
		{"e.g. and i.e.", "Some fruits, e.g. apples, keep well, i.e. for months. Others rot.",
			[]string{"Some fruits, e.g. apples, keep well, i.e. for months.", "Others rot."}},
		{"company at the end", "It was bought by Apple Inc. The deal closed in May.",
			[]string{"It was bought by Apple Inc.", "The deal closed in May."}},
		{"company inside", "Acme Inc. Europe is a subsidiary.", []string{"Acme Inc. Europe is a subsidiary."}},
		{"month and number", "It opened on Jan. 5, 1990 in Oslo. It closed later.",
			[]string{"It opened on Jan. 5, 1990 in Oslo.", "It closed later."}},
		{"circa", "James Stanley (c. 1465–1515) was a bishop. He died young.",
			[]string{"James Stanley (c. 1465–1515) was a bishop.", "He died young."}},
		{"ordinary word like an abbreviation", "He loved modern art. Andrea trained in Florence.",
			[]string{"He loved modern art.", "Andrea trained in Florence."}},
		{"decimals", "The rate rose to 3.5 percent. It fell to 2.25 later.",
			[]string{"The rate rose to 3.5 percent.", "It fell to 2.25 later."}},
		{"ellipsis", "He waited... Then he left. She said… Nothing.",
			[]string{"He waited...", "Then he left.", "She said…", "Nothing."}},
		{"ellipsis mid sentence", "He waited... and waited.", []string{"He waited... and waited."}},
		{"closing quotes", `He said "Stop." Then he left. "Why?" she asked.`,
			[]string{`He said "Stop."`, "Then he left.", `"Why?" she asked.`}},
		{"curly quotes", "She wrote “It ends.” The book sold.", []string{"She wrote “It ends.”", "The book sold."}},
		{"lower case after a period", "See fig. 3 and the text. ok then.", []string{"See fig. 3 and the text. ok then."}},
		{"blank line", "A heading\n\nThe body starts here.", []string{"A heading", "The body starts here."}},
		{"list items", "Facts:\n- founded in 1887\n- based in Oslo", []string{"Facts:", "- founded in 1887", "- based in Oslo"}},
		{"numbered list", "Steps:\n1. Open it\n2. Close it", []string{"Steps:", "1. Open it", "2. Close it"}},
		{"citation opens the next", "It was founded in 1887. [1] It grew.", []string{"It was founded in 1887.", "[1] It grew."}},
		{"white space only", "   \n\t ", nil},
		{"no final stop", "No stop at the end", []string{"No stop at the end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentenceTexts(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ a, b string }{
		{"released", "release"}, {"releases", "release"}, {"directed", "direct"},
		{"studies", "study"}, {"studied", "study"}, {"running", "run"}, {"cities", "city"},
		{"passes", "pass"},
	}
	for _, tt := range tests {
		if stem(tt.a) != stem(tt.b) {
			t.Errorf("stem(%q) = %q, stem(%q) = %q: want equal", tt.a, stem(tt.a), tt.b, stem(tt.b))
		}
	}
	if stem("bus") == stem("bu") || stem("is") != "is" {
		t.Errorf("short words: stem(bus)=%q stem(is)=%q", stem("bus"), stem("is"))
	}
}

func TestTokens(t *testing.T) {
	var got []string
	for _, tk := range tokens("Peart's 1,000 drums cost 3.5 million in 1983 — he said.", nil) {
		got = append(got, tk.term)
	}
	want := []string{"peart", "1000", "drum", "cost", "3.5", "million", "", "1983", "", "said"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms %q, want %q", got, want)
	}
}
