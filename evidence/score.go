package evidence

import "sort"

// Weights of the aligner, chosen on the shared HotpotQA 200 and 2Wiki files
// (prefrag bench evidence; the README has the table).
const (
	numberBoost  = 2.0 // a number or year in the claim
	titleBoost   = 1.5 // a passage's title, when the claim names it
	bridgeWeight = 0.5 // a co-cited passage's title named in this one (× titleBoost)
	leadBonus    = 0.1 // the first sentence of a passage: it introduces the subject
	addRatio     = 0.5 // a further quote scores at least this share of the best
	addGain      = 0.2 // and adds this share of what the passage can carry
	discount     = 0.5 // claim terms a co-cited passage's quote carries weigh less
	maxCoCited   = 64  // co-cited passages looked at for bridges
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
	// nation: the claim speaks of a nationality or a country, which an
	// article's first sentence states without the word ("an American
	// director", "a lake in Canada").
	nation bool
	// compares: the claim compares its subjects on a value (comparison).
	compares bool
}

func (ct claimTerms) has(id int32) bool {
	i := sort.Search(len(ct.w), func(i int) bool { return ct.w[i].id >= id })
	return i < len(ct.w) && ct.w[i].id == id
}

func (ct claimTerms) ids() []int32 {
	out := make([]int32, len(ct.w))
	for i, t := range ct.w {
		out[i] = t.id
	}
	return out
}

func sortTerms(w []wterm) {
	sort.Slice(w, func(i, j int) bool { return w[i].id < w[j].id })
}

// claimTerms weighs a claim's words: rarity among the passages' sentences
// (IDF), doubled for numbers and years. A claim about time (born, died,
// older, first) also asks for a date.
func (a *Aligner) claimTerms(text string) claimTerms {
	var ct claimTerms
	seen := map[string]bool{}
	toks := tokens(text, nil)
	if asksDate(toks) {
		toks = append(toks, token{term: dateTerm})
	}
	if asksLifeDate(toks) {
		toks = append(toks, token{term: spanTerm})
	}
	if asksQty(toks) {
		toks = append(toks, token{term: qtyTerm})
	}
	ct.compares = comparison(toks)
	for _, t := range toks {
		ct.nation = ct.nation || t.term == "~nationality"
		if t.term == "" || seen[t.term] {
			continue
		}
		seen[t.term] = true
		boost := 1.0
		if t.number {
			boost = numberBoost
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

// AlignClaim finds the supporting quotes of one claim in its cited passages.
//
// Two passes. The first picks each cited passage's best sentences for the
// claim alone. The second knows what the co-cited passages said: a passage
// whose title a co-cited quote names is linked to the claim (the bridge of a
// two-hop claim: "the director of Free Guy was born in 1968" cites the film
// and the director), a sentence naming a co-cited passage's title gains,
// and the claim's terms a co-cited quote already carries weigh less.
func (a *Aligner) AlignClaim(c Claim) Result {
	r := Result{Text: c.Text, Citations: c.Citations, Support: []Quote{}, Span: c.Span}
	if r.Citations == nil {
		r.Citations = []int{}
	}
	if len(c.Citations) == 0 {
		r.Verdict = Uncited
		return r
	}
	ct := a.claimTerms(c.Text)
	claimIDs := ct.ids()
	var cited []*passage
	for _, n := range c.Citations {
		if p := a.byN[n]; p != nil && len(cited) < maxCoCited {
			cited = append(cited, p)
		}
	}
	chosen, linked := a.choose(cited, ct, claimIDs)
	best := Unsupported
	for _, n := range c.Citations {
		p := a.byN[n]
		if p == nil {
			r.Cited = append(r.Cited, Citation{N: n, Verdict: Unsupported, Missing: true})
			continue
		}
		idx := chosen[p]
		lt := a.withTitle(ct, p, linked[p])
		cov := coverage(p, idx, lt, linked[p])
		v := Unsupported
		switch {
		case len(idx) == 0:
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
				End: s.span.End, Score: round(coverage(p, []int{i}, lt, linked[p]))})
		}
	}
	r.Verdict = best
	return r
}

// choose makes the two passes of AlignClaim over the cited passages: each
// passage's best sentences for the claim alone, then again knowing what
// the co-cited passages' first choices said. It returns the sentences
// chosen in each passage and whether the passage is linked to the claim.
func (a *Aligner) choose(cited []*passage, ct claimTerms, claimIDs []int32) (map[*passage][]int, map[*passage]bool) {
	first := make([][]int, len(cited))
	named := make([]bool, len(cited))
	for k, p := range cited {
		named[k] = mentions(claimIDs, p.title)
		first[k] = a.selectIn(p, ct, named[k], nil, nil)
	}
	chosen := map[*passage][]int{}
	linked := map[*passage]bool{}
	for k, p := range cited {
		link := named[k]
		var others, elsewhere []int32
		for k2, q := range cited {
			if q == p {
				continue
			}
			others = append(others, q.title...)
			for _, i := range first[k2] {
				elsewhere = append(elsewhere, q.sents[i].terms...)
				link = link || mentions(q.sents[i].terms, p.title)
			}
		}
		chosen[p] = a.selectIn(p, ct, link, distinct(others), distinct(elsewhere))
		linked[p] = link
	}
	for _, p := range cited {
		if ct.compares {
			chosen[p] = a.withValue(p, chosen[p], ct, linked[p])
		}
		chosen[p] = a.withNext(p, chosen[p], ct)
	}
	return chosen, linked
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
			x := a.idf[id] * titleBoost
			out.w = append(out.w, wterm{id, x})
			out.total += x
		}
	}
	sortTerms(out.w)
	return out
}

// speaks says whether sentence s of p carries term id. When the claim
// names the passage's subject, every sentence of the passage speaks of it
// ("He was born …", "The film …").
func speaks(p *passage, s *sentence, id int32, linked bool) bool {
	return contains(s.terms, id) || (linked && contains(p.title, id))
}

// saysMore says whether sentence s of p carries one of the weighted terms w
// other than p's title.
func saysMore(p *passage, s *sentence, w []wterm) bool {
	for _, t := range w {
		if contains(s.terms, t.id) && !contains(p.title, t.id) {
			return true
		}
	}
	return false
}

// coverage is the share of the claim's weight the sentences idx of p carry
// together.
func coverage(p *passage, idx []int, ct claimTerms, linked bool) float64 {
	if ct.total == 0 || len(idx) == 0 {
		return 0
	}
	got := 0.0
	for _, t := range ct.w {
		for _, i := range idx {
			if speaks(p, &p.sents[i], t.id, linked) {
				got += t.w
				break
			}
		}
	}
	return got / ct.total
}

// selectIn picks the supporting sentences of p: the best scoring one, then
// any other that scores near it and adds a part of the claim the chosen
// ones do not carry. linked adds the passage's title to the claim; others
// are the co-cited passages' title terms (weighted down), elsewhere the
// terms their quotes carry (discounted here).
func (a *Aligner) selectIn(p *passage, ct claimTerms, linked bool, others, elsewhere []int32) []int {
	if len(p.sents) == 0 {
		return nil
	}
	w, total := a.passageTerms(p, ct, linked, others, elsewhere)
	if total <= 0 {
		return nil
	}
	scores := sentenceScores(p, w, total, linked)
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	// The first sentence's bonus needs a word of the claim besides the
	// subject's name: naming the subject alone, which every sentence does
	// when the passage is linked, says nothing of the claim. A claim about
	// a nationality or a country is the exception.
	if scores[0] > 0 && (ct.nation || saysMore(p, &p.sents[0], w)) {
		scores[0] += leadBonus
	}
	sort.SliceStable(order, func(i, j int) bool { return scores[order[i]] > scores[order[j]] })
	if scores[order[0]] <= 0 {
		return nil
	}
	chosen := a.addQuotes(p, w, linked, scores, order)
	sort.Ints(chosen)
	return chosen
}

// passageTerms are the claim's terms weighted for passage p, and their
// total: terms other passages' quotes carry are discounted (unless p's
// title has them), p's title terms are added when linked, and the co-cited
// passages' title terms, weighted down. They come sorted (sortTerms).
func (a *Aligner) passageTerms(p *passage, ct claimTerms, linked bool, others, elsewhere []int32) ([]wterm, float64) {
	w := append(make([]wterm, 0, len(ct.w)+len(p.title)+len(others)), ct.w...)
	total := ct.total
	for k, t := range w {
		if contains(elsewhere, t.id) && !contains(p.title, t.id) {
			total -= t.w * discount
			w[k].w *= 1 - discount
		}
	}
	inW := func(id int32) bool {
		for _, t := range w {
			if t.id == id {
				return true
			}
		}
		return false
	}
	if linked {
		for _, id := range p.title {
			if !inW(id) {
				x := a.idf[id] * titleBoost
				w = append(w, wterm{id, x})
				total += x
			}
		}
	}
	for _, id := range others {
		if !inW(id) && !contains(p.title, id) {
			x := a.idf[id] * titleBoost * bridgeWeight
			w = append(w, wterm{id, x})
			total += x
		}
	}
	sortTerms(w)
	return w, total
}

// sentenceScores is the share of the weight of w each sentence of p
// carries.
func sentenceScores(p *passage, w []wterm, total float64, linked bool) []float64 {
	scores := make([]float64, len(p.sents))
	for i := range p.sents {
		for _, t := range w {
			if speaks(p, &p.sents[i], t.id, linked) {
				scores[i] += t.w
			}
		}
		scores[i] /= total
	}
	return scores
}

// addQuotes chooses the best sentence (order[0]), then, in order, each
// other one that scores near it and carries enough of the claim the chosen
// ones do not, up to the maximum number of quotes.
func (a *Aligner) addQuotes(p *passage, w []wterm, linked bool, scores []float64, order []int) []int {
	best := order[0]
	// reach is the weight of the claim this passage can carry at all: a
	// further quote's gain is measured against it.
	reach := 0.0
	for _, t := range w {
		for i := range p.sents {
			if speaks(p, &p.sents[i], t.id, linked) {
				reach += t.w
				break
			}
		}
	}
	chosen := []int{best}
	covered := make([]bool, len(w))
	for k, t := range w {
		covered[k] = speaks(p, &p.sents[best], t.id, linked)
	}
	for _, i := range order[1:] {
		if len(chosen) >= a.opts.MaxQuotes || scores[i] < addRatio*scores[best] {
			break
		}
		gain := 0.0
		for k, t := range w {
			if !covered[k] && speaks(p, &p.sents[i], t.id, linked) {
				gain += t.w
			}
		}
		if gain < addGain*reach {
			continue
		}
		chosen = append(chosen, i)
		for k, t := range w {
			covered[k] = covered[k] || speaks(p, &p.sents[i], t.id, linked)
		}
	}
	return chosen
}
