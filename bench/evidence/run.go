package evidence

import (
	"context"
	"fmt"
	"sort"
	"time"

	ev "github.com/prefrag/prefrag/evidence"
)

// The systems measured.
const (
	SystemAligner  = "aligner"  // package evidence
	SystemBaseline = "baseline" // sentences with ≥ 0.6 of the best IDF-weighted overlap
)

// Systems lists the system names.
func Systems() []string { return []string{SystemBaseline, SystemAligner} }

// Row is one system's result on one file.
type Row struct {
	System    string `json:"system"`
	Questions int    `json:"questions"`
	// Precision, Recall and F1 of supporting sentences, averaged over the
	// questions (as HotpotQA's supporting-fact score); Micro* pool every
	// sentence of the file.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	MicroP    float64 `json:"micro_precision"`
	MicroR    float64 `json:"micro_recall"`
	MicroF1   float64 `json:"micro_f1"`
	// ExactMatch is the share of questions whose quoted sentences are
	// exactly the supporting ones.
	ExactMatch float64 `json:"exact_match"`
	// GoldSupported is the share of gold paragraphs marked supported, GoldWeak
	// weak; DistractorSupported and DistractorWeak the same for the other
	// paragraphs of each question, each cited next to the gold ones.
	GoldSupported       float64 `json:"gold_supported"`
	GoldWeak            float64 `json:"gold_weak"`
	DistractorSupported float64 `json:"distractor_supported"`
	DistractorWeak      float64 `json:"distractor_weak"`
	Distractors         int     `json:"distractors"`
	// MeanUS, MedianUS and MaxUS are the microseconds to align one claim,
	// indexing the question's paragraphs included (wall time: a loaded
	// machine inflates them; go test -bench . ./evidence has the CPU cost).
	MeanUS   float64 `json:"mean_us_per_claim"`
	MedianUS float64 `json:"median_us_per_claim"`
	MaxUS    float64 `json:"max_us_per_claim"`
}

// system aligns one claim (question plus answer) citing the paragraphs
// cited (numbers from 1) and returns, per cited paragraph, the verdict
// and the quoted spans.
type system func(q Question, claim string, cited []int) map[int]cited

type cited struct {
	verdict ev.Verdict
	spans   []ev.Span
}

func passages(q Question) []ev.Passage {
	ps := make([]ev.Passage, len(q.Paragraphs))
	for i, p := range q.Paragraphs {
		ps[i] = ev.Passage{N: i + 1, Title: p.Title, Text: p.Text}
	}
	return ps
}

func alignerSystem(q Question, claim string, cites []int) map[int]cited {
	a := ev.NewAligner(passages(q), ev.Options{})
	r := a.AlignClaim(ev.Claim{Text: claim, Citations: cites})
	out := map[int]cited{}
	for _, c := range r.Cited {
		out[c.N] = cited{verdict: c.Verdict}
	}
	for _, qt := range r.Support {
		c := out[qt.N]
		c.spans = append(c.spans, ev.Span{Start: qt.Start, End: qt.End})
		out[qt.N] = c
	}
	return out
}

// Run measures the named systems on the questions.
func Run(ctx context.Context, ds *Dataset, systems []string) ([]Row, error) {
	var rows []Row
	for _, name := range systems {
		var sys system
		switch name {
		case SystemAligner:
			sys = alignerSystem
		case SystemBaseline:
			sys = baselineSystem
		default:
			return nil, fmt.Errorf("unknown system %q (one of %v)", name, Systems())
		}
		row, err := measure(ctx, ds, name, sys)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// measure runs one system on every question of ds: the claim (question
// and answer) against its gold paragraphs, then against each distractor
// cited beside them.
func measure(ctx context.Context, ds *Dataset, name string, sys system) (Row, error) {
	row := Row{System: name}
	var t tally
	for _, q := range ds.Questions {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		claim := q.Question + " " + q.Answer
		var gold []int
		for i, p := range q.Paragraphs {
			if p.IsGold() {
				gold = append(gold, i+1)
			}
		}
		start := time.Now()
		res := sys(q, claim, gold)
		t.times = append(t.times, time.Since(start))
		qtp, qfp, qfn := t.gold(q, res, gold)
		p, r, f := prf(qtp, qfp, qfn)
		row.Precision += p
		row.Recall += r
		row.F1 += f
		if qfp == 0 && qfn == 0 {
			row.ExactMatch++
		}
		t.tp, t.fp, t.fn = t.tp+qtp, t.fp+qfp, t.fn+qfn
		row.Distractors += t.distractors(q, claim, gold, sys)
	}
	t.into(&row, len(ds.Questions))
	return row, nil
}

// tally is what measure counts over the questions.
type tally struct {
	tp, fp, fn                   int // supporting sentences, pooled
	goldParas, goldSup, goldWeak int
	distSup, distWeak            int
	times                        []time.Duration
}

// gold counts one question's gold paragraphs by verdict and returns its
// true positive, false positive and false negative supporting sentences.
func (t *tally) gold(q Question, res map[int]cited, gold []int) (tp, fp, fn int) {
	for _, n := range gold {
		p := q.Paragraphs[n-1]
		c := res[n]
		switch c.verdict {
		case ev.Supported:
			t.goldSup++
		case ev.Weak:
			t.goldWeak++
		}
		t.goldParas++
		pred := sentencesOf(p, c.spans)
		for i := range p.Sentences {
			g, pr := containsInt(p.Gold, i), pred[i]
			switch {
			case g && pr:
				tp++
			case pr:
				fp++
			case g:
				fn++
			}
		}
	}
	return tp, fp, fn
}

// distractors cites each distractor of q next to the gold paragraphs and
// counts the verdicts it gets; it returns how many it cited.
func (t *tally) distractors(q Question, claim string, gold []int, sys system) int {
	n := 0
	for i, p := range q.Paragraphs {
		if p.IsGold() {
			continue
		}
		cites := append(append([]int(nil), gold...), i+1)
		sort.Ints(cites)
		switch sys(q, claim, cites)[i+1].verdict {
		case ev.Supported:
			t.distSup++
		case ev.Weak:
			t.distWeak++
		}
		n++
	}
	return n
}

// into completes row from the tally of its questions: the means, the
// pooled scores, the verdict shares and the times.
func (t *tally) into(row *Row, questions int) {
	n := float64(questions)
	row.Questions = questions
	row.Precision, row.Recall, row.F1, row.ExactMatch = row.Precision/n, row.Recall/n, row.F1/n, row.ExactMatch/n
	row.MicroP, row.MicroR, row.MicroF1 = prf(t.tp, t.fp, t.fn)
	row.GoldSupported, row.GoldWeak = share(t.goldSup, t.goldParas), share(t.goldWeak, t.goldParas)
	row.DistractorSupported, row.DistractorWeak = share(t.distSup, row.Distractors), share(t.distWeak, row.Distractors)
	var sum, max time.Duration
	for _, d := range t.times {
		sum += d
		if d > max {
			max = d
		}
	}
	if len(t.times) > 0 {
		row.MeanUS = float64(sum.Nanoseconds()) / float64(len(t.times)) / 1e3
		row.MaxUS = float64(max.Nanoseconds()) / 1e3
		sort.Slice(t.times, func(i, j int) bool { return t.times[i] < t.times[j] })
		row.MedianUS = float64(t.times[len(t.times)/2].Nanoseconds()) / 1e3
	}
}

// sentencesOf maps quoted spans to the file's sentences: a sentence is
// quoted when a quote covers most of it.
func sentencesOf(p Paragraph, spans []ev.Span) map[int]bool {
	out := map[int]bool{}
	for i, s := range p.Sentences {
		n := s.End - s.Start
		if n <= 0 {
			continue
		}
		for _, q := range spans {
			lo, hi := max(s.Start, q.Start), min(s.End, q.End)
			if hi > lo && 2*(hi-lo) > n {
				out[i] = true
				break
			}
		}
	}
	return out
}

func prf(tp, fp, fn int) (float64, float64, float64) {
	var p, r, f float64
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
