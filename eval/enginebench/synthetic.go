package enginebench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/prefrag/prefrag/eval"
)

// Synthetic makes n two-hop questions with ten paragraphs each (two
// supporting, eight distractors of about the size of HotpotQA's), from a
// seeded generator, for measuring the engine where no QA file is at hand.
func Synthetic(n int, seed uint64) []eval.Question {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	name := func() string {
		syl := []string{"ka", "lo", "mi", "ren", "sa", "tor", "vel", "zan", "qu", "bri", "dor", "ela", "fen", "gal", "hur"}
		var b strings.Builder
		for i := 0; i < 2+r.IntN(2); i++ {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		s := b.String()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	filler := func(words int) string {
		vocab := []string{"river", "council", "founded", "century", "league", "album", "station", "museum", "treaty",
			"election", "harbour", "province", "orchestra", "railway", "festival", "university", "novel", "bridge",
			"season", "district", "published", "released", "merged", "elected", "renamed", "hosted", "built"}
		parts := make([]string, words)
		for i := range parts {
			parts[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(parts, " ") + "."
	}
	qs := make([]eval.Question, n)
	for i := range qs {
		person, town, country := name()+" "+name(), name()+"ville", name()+"ia"
		p1 := fmt.Sprintf("%s was a painter born in %s. %s", person, town, filler(60))
		p2 := fmt.Sprintf("%s is a town in %s. %s", town, country, filler(60))
		q := eval.Question{ID: fmt.Sprintf("s%d", i+1), Index: i, Text: fmt.Sprintf("In which country was the painter %s born?", person), Gold: []string{country}}
		q.Paragraphs = append(q.Paragraphs,
			eval.Paragraph{ID: eval.ParagraphID(person, p1), Title: person, Text: p1, Supporting: true},
			eval.Paragraph{ID: eval.ParagraphID(town, p2), Title: town, Text: p2, Supporting: true})
		for d := 0; d < 8; d++ {
			title := name() + " " + name()
			text := fmt.Sprintf("%s is known for the %s. %s", title, filler(1), filler(70))
			q.Paragraphs = append(q.Paragraphs, eval.Paragraph{ID: eval.ParagraphID(title, text), Title: title, Text: text})
		}
		qs[i] = q
	}
	return qs
}
