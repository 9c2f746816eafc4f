package evidence

import (
	"math"
	"os"
	"sort"
	"strconv"
)

// Weights of the aligner, chosen on the shared HotpotQA and 2Wiki files
// (prefrag bench evidence; see the README).
var (
	numberBoost   = envf("NB", 2.0)  // a number or year in the claim
	capitalBoost  = envf("CB", 1.0)  // a capitalised word: a name
	bridgeWeight  = envf("BW", 0.5)  // a co-cited passage's title, named in this one
	leadBonus     = envf("LB", 0.1)  // the first sentence of a passage: it names the subject
	addRatio      = envf("AR", 0.5)  // a further quote scores at least this share of the best
	addGain       = envf("AG", 0.15) // and carries this much of the claim the others do not
	titleAll      = envf("TA", 1)
	useDate       = envf("UD", 1)
	phraseBoost   = envf("PB", 0)
	lengthPenalty = envf("LP", 0)
	discount      = envf("DC", 0.5)
	addGain0      = envf("AG0", 1)
	reachGain     = envf("RG", 1)
	antecedent    = envf("AN", 0)
)

func envf(k string, d float64) float64 {
	if v := os.Getenv("EVT_" + k); v != "" {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return d
}

// wterm is a term id with its weight.
type wterm struct {
	id int32
	w  float64
}

// claimTerms are a claim's weighted terms. Slices sorted by id, not maps:
// sums run in one order, so scores are the same on every run.
type claimTerms struct {
	w     []wterm // known terms (in some passage) and their weights
	pairs []pair  // consecutive known terms
	total float64 // the weight of all terms, unknown ones included
}

func (ct claimTerms) has(id int32) bool {
	i := sort.Search(len(ct.w), func(i int) bool { return ct.w[i].id >= id })
	return i < len(ct.w) && ct.w[i].id == id
}

func sortTerms(w []wterm) {
	sort.Slice(w, func(i, j int) bool { return w[i].id < w[j].id })
}

func (a *Aligner) claimTerms(text string) claimTerms {
	var ct claimTerms
	seen := map[string]bool{}
	toks := tokens(text, nil)
	if useDate > 0 && asksDate(toks) {
		toks = append(toks, token{term: dateTerm})
	}
	for _, t := range toks {
		if t.term == "" || seen[t.term] {
			continue
		}
		seen[t.term] = true
		boost := 1.0
		switch {
		case t.number:
			boost = numberBoost
		case t.capital:
			boost = capitalBoost
		}
		id, ok := a.vocab[t.term]
		var w float64
		if ok {
			w = a.idf[id] * boost
			ct.w = append(ct.w, wterm{id, w})
		} else {
			w = a.idfOf(0) * boost
		}
		ct.total += w
	}
	sortTerms(ct.w)
	ct.pairs = a.pairs(toks)
	return ct
}

// weight returns a known term's weight in the claim (0 when absent).
func (ct claimTerms) weight(id int32) float64 {
	i := sort.Search(len(ct.w), func(i int) bool { return ct.w[i].id >= id })
	if i < len(ct.w) && ct.w[i].id == id {
		return ct.w[i].w
	}
	return 0
}

// phrase is the weight of the claim's consecutive terms that follow each
// other in the sentence too ("Chief of Protocol", "Hall of Fame").
func (ct claimTerms) phrase(s sentence) float64 {
	sum := 0.0
	for _, cp := range ct.pairs {
		for _, sp := range s.pairs {
			if sp == cp {
				sum += (ct.weight(cp.a) + ct.weight(cp.b)) / 2
				break
			}
		}
	}
	return sum
}

func (ct claimTerms) ids() []int32 {
	out := make([]int32, len(ct.w))
	for i, t := range ct.w {
		out[i] = t.id
	}
	return out
}

// AlignClaim finds the supporting quotes of one claim in its cited passages.
func (a *Aligner) AlignClaim(c Claim) Result {
	r := Result{Text: c.Text, Citations: c.Citations, Support: []Quote{}, Span: c.Span}
	if len(c.Citations) == 0 {
		r.Verdict = Uncited
		return r
	}
	ct := a.claimTerms(c.Text)
	claimIDs := ct.ids()
	var cited []*passage
	for _, n := range c.Citations {
		if p := a.byN[n]; p != nil {
			cited = append(cited, p)
		}
	}
	// A passage's title counts as named by the claim when the claim names it,
	// or (second pass) when a co-cited passage's quote does: the bridge of a
	// two-hop claim ("the director of Free Guy was born in 1968").
	named := map[*passage]bool{}
	for _, p := range cited {
		named[p] = mentions(claimIDs, p.title)
	}
	first := map[*passage][]int{}
	for _, p := range cited {
		first[p] = a.selectIn(p, ct, named[p], nil, nil)
	}
	chosen := map[*passage][]int{}
	linkedTo := map[*passage]bool{}
	for _, p := range cited {
		linked := named[p]
		var others, elsewhere []int32
		for _, q := range cited {
			if q == p {
				continue
			}
			others = append(others, q.title...)
			for _, i := range first[q] {
				elsewhere = append(elsewhere, q.sents[i].terms...)
				if !linked && mentions(q.sents[i].terms, p.title) {
					linked = true
				}
			}
		}
		chosen[p] = a.selectIn(p, ct, linked, distinct(others), distinct(elsewhere))
		linkedTo[p] = linked
	}
	best := Unsupported
	for _, n := range c.Citations {
		p := a.byN[n]
		if p == nil {
			r.Cited = append(r.Cited, Citation{N: n, Verdict: Unsupported, Missing: true})
			continue
		}
		idx := chosen[p]
		lt := a.withTitle(ct, p, linkedTo[p])
		cov := a.coverage(p, idx, lt, linkedTo[p])
		v := Unsupported
		switch {
		case cov >= a.opts.Supported:
			v = Supported
		case cov >= a.opts.Weak:
			v = Weak
		}
		r.Cited = append(r.Cited, Citation{N: n, Verdict: v, Score: round(cov)})
		if v == Unsupported {
			continue
		}
		if rank(v) > rank(best) {
			best = v
		}
		for _, i := range idx {
			s := p.sents[i]
			r.Support = append(r.Support, Quote{N: n, Quote: p.Text[s.span.Start:s.span.End], Start: s.span.Start,
				End: s.span.End, Score: round(a.coverage(p, []int{i}, lt, linkedTo[p]))})
		}
	}
	r.Verdict = best
	return r
}

func rank(v Verdict) int {
	switch v {
	case Supported:
		return 2
	case Weak:
		return 1
	}
	return 0
}

func round(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// withTitle adds the passage's title terms to the claim's when the claim
// names the passage, directly or through a co-cited one.
func (a *Aligner) withTitle(ct claimTerms, p *passage, linked bool) claimTerms {
	if !linked {
		return ct
	}
	out := claimTerms{w: append([]wterm(nil), ct.w...), total: ct.total}
	for _, id := range p.title {
		if !ct.has(id) {
			x := a.idf[id] * capitalBoost
			out.w = append(out.w, wterm{id, x})
			out.total += x
		}
	}
	sortTerms(out.w)
	return out
}

// coverage is the share of the claim's weight the sentences idx of p carry
// together; a sentence about the passage's subject carries the title's
// terms when the claim names the title.
func (a *Aligner) coverage(p *passage, idx []int, ct claimTerms, named bool) float64 {
	if ct.total == 0 || len(idx) == 0 {
		return 0
	}
	got := 0.0
	for _, t := range ct.w {
		for _, i := range idx {
			s := p.sents[i]
			if contains(s.terms, t.id) || (named && s.subject && contains(p.title, t.id)) {
				got += t.w
				break
			}
		}
	}
	return got / ct.total
}

// selectIn picks the supporting sentences of p: the best scoring one, then
// any other that scores near it and carries a part of the claim the chosen
// ones do not. linked adds the passage's title to the claim (it is named,
// directly or through a co-cited passage); others are the co-cited
// passages' title terms, weighted down.
func (a *Aligner) selectIn(p *passage, ct claimTerms, linked bool, others, elsewhere []int32) []int {
	if len(p.sents) == 0 {
		return nil
	}
	w := append(make([]wterm, 0, len(ct.w)+len(p.title)+len(others)), ct.w...)
	total := ct.total
	if discount > 0 && len(elsewhere) > 0 {
		// The part of the claim a co-cited passage carries matters less here:
		// each passage should support what the others do not.
		for k, t := range w {
			if contains(elsewhere, t.id) && !contains(p.title, t.id) {
				total -= t.w * discount
				w[k].w *= 1 - discount
			}
		}
	}
	seen := func(id int32) bool {
		for _, t := range w {
			if t.id == id {
				return true
			}
		}
		return false
	}
	if linked {
		for _, id := range p.title {
			if !seen(id) {
				x := a.idf[id] * capitalBoost
				w = append(w, wterm{id, x})
				total += x
			}
		}
	}
	for _, id := range others {
		if !seen(id) && !contains(p.title, id) {
			x := a.idf[id] * capitalBoost * bridgeWeight
			w = append(w, wterm{id, x})
			total += x
		}
	}
	sortTerms(w)
	if total == 0 {
		return nil
	}
	has := func(s sentence, id int32) bool {
		return contains(s.terms, id) || (linked && (s.subject || titleAll > 0) && contains(p.title, id))
	}
	scores := make([]float64, len(p.sents))
	for i, s := range p.sents {
		for _, t := range w {
			if has(s, t.id) {
				scores[i] += t.w
			}
		}
		scores[i] += phraseBoost * ct.phrase(s)
		scores[i] /= total
		if lengthPenalty > 0 {
			scores[i] /= 1 + lengthPenalty*math.Log(1+float64(len(s.terms))/10)
		}
		if i == 0 {
			scores[i] += leadBonus
		}
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	best := order[0]
	if scores[best] <= 0 {
		return nil
	}
	chosen := []int{best}
	// reach is the weight of the claim this passage can carry at all: a
	// further quote's gain is measured against it.
	reach := 0.0
	for _, t := range w {
		for _, s := range p.sents {
			if has(s, t.id) {
				reach += t.w
				break
			}
		}
	}
	if reachGain == 0 {
		reach = total
	}
	covered := make([]bool, len(w))
	for k, t := range w {
		covered[k] = has(p.sents[best], t.id)
	}
	for _, i := range order[1:] {
		if len(chosen) >= a.opts.MaxQuotes || scores[i] < addRatio*scores[best] {
			break
		}
		gain := 0.0
		for k, t := range w {
			if !covered[k] && has(p.sents[i], t.id) {
				gain += t.w
			}
		}
		if gain/reach < addGain && !(i == 0 && gain/reach >= addGain0) {
			continue
		}
		chosen = append(chosen, i)
		for k, t := range w {
			if has(p.sents[i], t.id) {
				covered[k] = true
			}
		}
	}
	if antecedent > 0 && len(chosen) < a.opts.MaxQuotes && linked {
		need := false
		for _, i := range chosen {
			need = need || p.sents[i].anaphor
		}
		if need && chosen[0] != 0 && !containsIdx(chosen, 0) {
			chosen = append(chosen, 0)
		}
	}
	sort.Ints(chosen)
	return chosen
}

func containsIdx(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
