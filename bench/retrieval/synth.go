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
	sy := newSynthesizer(docs, seed, synthMinWords, synthMaxWords)
	if sy == nil || n <= 0 {
		return nil
	}
	out := make([]Doc, n)
	for i := range out {
		out[i] = sy.next(fmt.Sprintf("s%06d", i+1))
	}
	return out
}

// synthesizer makes Synthesize's passages one at a time, so that a corpus
// of any size streams to disk.
type synthesizer struct {
	words              [][]string
	titles             []string
	rng                *rand.Rand
	buf                []string
	minWords, maxWords int
}

// newSynthesizer returns nil when docs hold no words.
func newSynthesizer(docs []Doc, seed uint64, minWords, maxWords int) *synthesizer {
	sy := &synthesizer{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), minWords: minWords, maxWords: maxWords}
	for _, d := range docs {
		if w := strings.Fields(d.Text); len(w) > 0 {
			sy.words = append(sy.words, w)
			sy.titles = append(sy.titles, d.Title)
		}
	}
	if len(sy.words) == 0 {
		return nil
	}
	sy.buf = make([]string, 0, maxWords)
	return sy
}

func (sy *synthesizer) next(id string) Doc {
	target := sy.minWords + sy.rng.IntN(sy.maxWords-sy.minWords+1)
	base := sy.rng.IntN(len(sy.words))
	sy.buf = sy.buf[:0]
	for src := base; len(sy.buf) < target; src = sy.rng.IntN(len(sy.words)) {
		sy.buf = append(sy.buf, sy.words[src][:min(len(sy.words[src]), target-len(sy.buf))]...)
	}
	return Doc{ID: id, Title: sy.titles[base], Text: strings.Join(sy.buf, " ")}
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
