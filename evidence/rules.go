package evidence

// Rules applied after each cited passage's sentences are chosen: they add a
// sentence the claim needs and the word overlap alone misses.
const (
	// nextGain: the sentence after a quoted first sentence is quoted too
	// when it carries at least this share of the claim that no quote does.
	nextGain = 0.12
	// leadKeep: a comparison's quoted first sentence stays next to the
	// sentence carrying the compared value only when it carries at least
	// this share of the claim that the other does not.
	leadKeep = 0.05
)

// compareWords make a claim a comparison when it also weighs alternatives
// (see comparison).
func newCompareWords() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"more", "most", "less", "least", "fewer", "fewest", "older", "oldest",
		"younger", "youngest", "earlier", "earliest", "later", "latest", "first", "higher", "highest",
		"taller", "tallest", "larger", "largest", "longer", "longest", "bigger", "biggest", "smaller",
		"smallest", "recently", "recent", "newer", "newest", "before", "after"} {
		m[w] = true
	}
	return m
}

// comparison says whether a claim compares its subjects on a value: a
// comparative or superlative word ("older", "first", "most") and a word
// that sets the subjects side by side ("or", "than", "both", "same").
// "Which came out first, X or Y" and "X is older than Y" are; "he later
// married her" and "the first time" are not.
func comparison(toks []token) bool {
	alt, cmp := false, false
	for _, t := range toks {
		switch t.word {
		case "or", "than", "both", "same":
			alt = true
		}
		cmp = cmp || lex().compareWords[t.word]
	}
	return alt && cmp
}

// cueTerms are the answer types a claim may ask for, most specific first.
var cueTerms = []string{spanTerm, dateTerm, qtyTerm}

// withValue makes a comparison's quotes of p show the value compared. When
// the claim asks for a date, a life's span or an amount and no quote of p
// carries one, the sentence of p that carries it and most of the claim is
// quoted too, even when it shares no word with the claim ("Which magazine
// was published first?" – "It has been in continuous publication since
// 1885"). A lone first sentence that then adds almost nothing to it is
// dropped ("Crowea is a genus of shrubs" next to "There are three species").
func (a *Aligner) withValue(p *passage, idx []int, ct claimTerms, linked bool) []int {
	if len(idx) == 0 || len(idx) >= a.opts.MaxQuotes {
		return idx
	}
	for _, cue := range cueTerms {
		id, ok := a.vocab[cue]
		if !ok || !ct.has(id) {
			continue
		}
		for _, i := range idx {
			if contains(p.sents[i].terms, id) {
				return idx
			}
		}
		best, bestScore := -1, -1.0
		for i := range p.sents {
			s := &p.sents[i]
			if !contains(s.terms, id) {
				continue
			}
			score := 0.0
			for _, t := range ct.w {
				if t.id != id && speaks(p, s, t.id, linked) {
					score += t.w
				}
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			return idx
		}
		if len(idx) == 1 && idx[0] == 0 && ct.total > 0 {
			add := 0.0
			for _, t := range ct.w {
				if t.id != id && !contains(p.title, t.id) && contains(p.sents[0].terms, t.id) &&
					!speaks(p, &p.sents[best], t.id, linked) {
					add += t.w
				}
			}
			if add/ct.total < leadKeep {
				return []int{best}
			}
		}
		return insertSorted(idx, best)
	}
	return idx
}

// withNext quotes the sentence after a quoted first sentence when it
// carries a part of the claim no quote carries: an article's second
// sentence goes on about the subject the first introduced ("Patricia Longo
// is a fictional character in Graduados." – "She is played by Isabel
// Macedo.").
func (a *Aligner) withNext(p *passage, idx []int, ct claimTerms) []int {
	if len(idx) == 0 || idx[0] != 0 || len(p.sents) < 2 || len(idx) >= a.opts.MaxQuotes || ct.total == 0 {
		return idx
	}
	if len(idx) > 1 && idx[1] == 1 {
		return idx
	}
	next := &p.sents[1]
	gain := 0.0
	for _, t := range ct.w {
		if !contains(next.terms, t.id) || contains(p.title, t.id) {
			continue
		}
		carried := false
		for _, i := range idx {
			carried = carried || contains(p.sents[i].terms, t.id)
		}
		if !carried {
			gain += t.w
		}
	}
	if gain/ct.total < nextGain {
		return idx
	}
	return insertSorted(idx, 1)
}

// insertSorted adds i to the ascending idx (which does not hold it).
func insertSorted(idx []int, i int) []int {
	out := make([]int, 0, len(idx)+1)
	k := 0
	for k < len(idx) && idx[k] < i {
		out = append(out, idx[k])
		k++
	}
	out = append(out, i)
	return append(out, idx[k:]...)
}
