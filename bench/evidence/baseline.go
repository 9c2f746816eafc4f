package evidence

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	ev "github.com/prefrag/prefrag/evidence"
)

// The naive lexical baseline of issue 22: in each cited paragraph, the
// sentences whose IDF-weighted overlap with the claim is at least
// baselineRatio of the paragraph's best. Words are lower-cased, split at
// anything but letters and digits, stop words dropped, no stemming; IDF
// over the sentences of the question's paragraphs. It is given the file's
// own sentence split (the aligner splits the text itself). Its verdict
// uses the aligner's default thresholds on the best sentence's share of
// the claim's weight.
const (
	baselineRatio     = 0.6
	baselineSupported = 0.30
	baselineWeak      = 0.12
)

var baselineStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for from by with and or but is are was were be
		been being has have had do does did what which who whom whose when where why how that this these
		those it its as into than then there their they he she his her him not no`) {
		baselineStop[w] = true
	}
}

func baselineWords(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := ws[:0]
	for _, w := range ws {
		if !baselineStop[w] {
			out = append(out, w)
		}
	}
	return out
}

func baselineSystem(q Question, claim string, cites []int) map[int]cited {
	// Sentence word lists (distinct, sorted: sums in one order) and document
	// frequencies over all paragraphs.
	sets := make([][][]string, len(q.Paragraphs))
	df := map[string]int{}
	n := 0
	for i, p := range q.Paragraphs {
		for _, sp := range p.Sentences {
			words := baselineWords(p.Text[sp.Start:sp.End])
			sort.Strings(words)
			words = slices.Compact(words)
			for _, w := range words {
				df[w]++
			}
			sets[i] = append(sets[i], words)
			n++
		}
	}
	idf := func(w string) float64 {
		d := float64(df[w])
		return math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
	}
	cw := map[string]float64{}
	total := 0.0
	for _, w := range baselineWords(claim) {
		if _, ok := cw[w]; !ok {
			cw[w] = idf(w)
			total += cw[w]
		}
	}
	out := map[int]cited{}
	for _, c := range cites {
		p := q.Paragraphs[c-1]
		scores := make([]float64, len(sets[c-1]))
		best := 0.0
		for i, words := range sets[c-1] {
			for _, w := range words {
				scores[i] += cw[w]
			}
			best = math.Max(best, scores[i])
		}
		res := cited{verdict: ev.Unsupported}
		if total > 0 && best > 0 {
			switch share := best / total; {
			case share >= baselineSupported:
				res.verdict = ev.Supported
			case share >= baselineWeak:
				res.verdict = ev.Weak
			}
			for i, s := range scores {
				if s >= baselineRatio*best {
					res.spans = append(res.spans, p.Sentences[i])
				}
			}
		}
		out[c] = res
	}
	return out
}
