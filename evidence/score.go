package evidence

import "sort"

// Weights of the aligner, chosen on the shared HotpotQA and 2Wiki files
// (prefrag bench evidence; see the README).
const (
	numberBoost  = 2.0  // a number or year in the claim
	capitalBoost = 1.5  // a capitalised word: a name
	bridgeWeight = 0.5  // a co-cited passage's title, named in this one
	leadBonus    = 0.05 // the first sentence of a passage: it names the subject
	addRatio     = 0.5  // a further quote scores at least this share of the best
	addGain      = 0.15 // and carries this much of the claim the others do not
)

// wterm is a term id with its weight.
type wterm struct {
	id int32
	w  float64
}

// claimTerms are a claim's weighted terms. Slices sorted by id, not maps:
// sums run in one order, so scores are the same on every run.
type claimTerms struct {
	w     []wterm // known terms (in some passage) and their weights
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
	for _, t := range tokens(text, nil) {
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
	return ct
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
		first[p] = a.selectIn(p, ct, named[p], nil)
	}
	chosen := map[*passage][]int{}
	for _, p := range cited {
		linked := named[p]
		var others []int32
		for _, q := range cited {
			if q == p {
				continue
			}
			others = append(others, q.title...)
			for _, i := range first[q] {
				if !linked && mentions(q.sents[i].terms, p.title) {
					linked = true
				}
			}
		}
		chosen[p] = a.selectIn(p, ct, linked, distinct(others))
	}
	best := Unsupported
	for _, n := range c.Citations {
		p := a.byN[n]
		if p == nil {
			r.Cited = append(r.Cited, Citation{N: n, Verdict: Unsupported, Missing: true})
			continue
		}
		idx := chosen[p]
		cov := a.coverage(p, idx, ct, named[p])
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
				End: s.span.End, Score: round(a.coverage(p, []int{i}, ct, named[p]))})
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
func (a *Aligner) selectIn(p *passage, ct claimTerms, linked bool, others []int32) []int {
	if len(p.sents) == 0 {
		return nil
	}
	w := append(make([]wterm, 0, len(ct.w)+len(p.title)+len(others)), ct.w...)
	total := ct.total
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
		return contains(s.terms, id) || (linked && s.subject && contains(p.title, id))
	}
	scores := make([]float64, len(p.sents))
	for i, s := range p.sents {
		for _, t := range w {
			if has(s, t.id) {
				scores[i] += t.w
			}
		}
		scores[i] /= total
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
		if gain/total < addGain {
			continue
		}
		chosen = append(chosen, i)
		for k, t := range w {
			if has(p.sents[i], t.id) {
				covered[k] = true
			}
		}
	}
	sort.Ints(chosen)
	return chosen
}
