package evidence

import (
	"strings"
	"testing"
)

// TestNonSentencesNeverQuoted: a Markdown heading, a table row, a rule or a
// short line without a sentence's punctuation (a title, a caption) is
// never offered as a supporting quote, and a heading is never a claim.
func TestNonSentencesNeverQuoted(t *testing.T) {
	tests := []struct {
		name, doc, answer string
		want              string // the quote expected first; "" for none
	}{
		{"heading alone on its line", "# Sihwa Lake\n\nSihwa Lake lies near Ansan. The water turned foul after 1994.",
			"Sihwa Lake is polluted [1].", "Sihwa Lake lies near Ansan."},
		{"heading run into its first line", "# Sihwa Lake\nSihwa Lake is an artificial lake in Gyeonggi Province.",
			"Sihwa Lake is an artificial lake [1].", "Sihwa Lake is an artificial lake in Gyeonggi Province."},
		{"sub-heading before a sentence", "Sihwa Lake is a lake.\n\n## History of the seawall\nThe seawall closed the bay in 1994.",
			"The seawall history of Sihwa Lake goes back to 1994 [1].", "The seawall closed the bay in 1994."},
		{"plain-text title line", "Sihwa Lake\n\nSihwa Lake lies near Ansan.", "Sihwa Lake is polluted [1].", "Sihwa Lake lies near Ansan."},
		{"table row", "| Sihwa Lake | Ansan |\n|---|---|\n\nSihwa Lake lies near Ansan.", "Sihwa Lake is near Ansan [1].", "Sihwa Lake lies near Ansan."},
		{"only a heading", "# Sihwa Lake", "Sihwa Lake is polluted [1].", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Align(tt.answer, []Passage{{N: 1, Title: "Sihwa Lake", Text: tt.doc}})
			if len(res) != 1 {
				t.Fatalf("claims %+v, want one", res)
			}
			for _, q := range res[0].Support {
				if strings.Contains(q.Quote, "#") || strings.HasPrefix(q.Quote, "|") || q.Quote == "Sihwa Lake" {
					t.Errorf("quote %q is not a sentence", q.Quote)
				}
			}
			got := ""
			if len(res[0].Support) > 0 {
				got = res[0].Support[0].Quote
			}
			if got != tt.want {
				t.Errorf("first quote %q, want %q (all: %+v)", got, tt.want, res[0].Support)
			}
		})
	}
}

func TestHeadingIsNoClaim(t *testing.T) {
	answer := "## Summary\nCarsten Olsen died in 1974 [2].\n\n| who | died |\n|---|---|\n| Olsen | 1974 [2] |"
	var texts []string
	for _, c := range SplitClaims(answer) {
		texts = append(texts, c.Text)
		if strings.Contains(c.Text, "#") {
			t.Errorf("claim %q holds a heading", c.Text)
		}
	}
	want := []string{"Carsten Olsen died in 1974.", "| who | died |", "| Olsen | 1974 |"}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("claims %q, want %q", texts, want)
	}
}
