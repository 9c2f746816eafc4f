package retrieval

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synthetic passage lengths, in words (title excluded).
const (
	synthMinWords = 120
	synthMaxWords = 180
)

// Synthesize builds n passages for the speed benchmark out of real
// documents, so that vocabulary and term frequencies stay those of real
// text: passage i takes the title and the words of one random document and
// continues with the words of other random documents until it holds a random
// length of 120 to 180 words. The same seed gives the same passages.
func Synthesize(docs []Doc, n int, seed uint64) []Doc {
	var words [][]string
	var titles []string
	for _, d := range docs {
		if w := strings.Fields(d.Text); len(w) > 0 {
			words = append(words, w)
			titles = append(titles, d.Title)
		}
	}
	if len(words) == 0 || n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([]Doc, n)
	buf := make([]string, 0, synthMaxWords)
	for i := range out {
		target := synthMinWords + rng.IntN(synthMaxWords-synthMinWords+1)
		base := rng.IntN(len(words))
		buf = buf[:0]
		for src := base; len(buf) < target; src = rng.IntN(len(words)) {
			buf = append(buf, words[src][:min(len(words[src]), target-len(buf))]...)
		}
		out[i] = Doc{ID: fmt.Sprintf("s%06d", i+1), Title: titles[base], Text: strings.Join(buf, " ")}
	}
	return out
}

// largeDataset is the synthetic corpus built from the datasets of a run,
// with their queries (for timing only: there are no judgements).
func largeDataset(from []*Dataset, n int, seed uint64) *Dataset {
	var docs []Doc
	var qs []Query
	for _, ds := range from {
		docs = append(docs, ds.Docs...)
		for _, q := range ds.Queries {
			qs = append(qs, Query{ID: ds.Name + "/" + q.ID, Text: q.Text})
		}
	}
	name := fmt.Sprintf("synthetic-%d", n)
	if n%1000 == 0 {
		name = fmt.Sprintf("synthetic-%dk", n/1000)
	}
	return &Dataset{Name: name, Kind: Collection, Docs: Synthesize(docs, n, seed), Queries: qs}
}
