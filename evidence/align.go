package evidence

import (
	"math"
	"sort"
	"strings"
)

// Passage is one numbered source an answer may cite. Numbers are unique
// (a later passage with the same number replaces the earlier).
type Passage struct {
	N     int    // its citation number ([N] in the answer)
	Title string // a document title, a Wikipedia article's name; may be empty
	Text  string
}

// Verdict says whether a claim (or one of its citations) has support.
type Verdict string

const (
	Supported   Verdict = "supported"   // a quote carries most of the claim
	Weak        Verdict = "weak"        // a quote carries some of it
	Unsupported Verdict = "unsupported" // no support found in the cited source
	Uncited     Verdict = "uncited"     // the claim cites nothing
)

// Quote is one supporting sentence of a cited passage.
type Quote struct {
	N     int     `json:"n"`     // the passage's number
	Quote string  `json:"quote"` // the sentence, verbatim
	Start int     `json:"start"` // byte offsets in the passage's Text
	End   int     `json:"end"`
	Score float64 `json:"score"` // share of the claim's weight it carries, 0–1
}

// Citation is the verdict on one citation of a claim.
type Citation struct {
	N       int     `json:"n"`
	Verdict Verdict `json:"verdict"`
	Score   float64 `json:"score"`             // share of the claim its quotes carry together, 0–1
	Missing bool    `json:"missing,omitempty"` // no passage has this number
}

// Result is a claim with its evidence: the quotes of every citation that
// has support (weak or better), the verdict of each citation, and the
// claim's verdict (the best of its citations'; uncited without any). Its
// JSON is CONTRACT.md's evidence claim plus per_citation and span.
type Result struct {
	Text      string     `json:"text"`
	Citations []int      `json:"citations"`
	Support   []Quote    `json:"support"`
	Verdict   Verdict    `json:"verdict"`
	Cited     []Citation `json:"per_citation,omitempty"`
	Span      Span       `json:"span"` // the claim's place in the answer
}

// Options tune the aligner; the zero value means the defaults.
type Options struct {
	// Supported and Weak are the score thresholds of the verdicts
	// (defaults 0.30 and 0.12).
	Supported, Weak float64
	// MaxQuotes caps the quotes per citation (default 3).
	MaxQuotes int
}

func (o Options) withDefaults() Options {
	if o.Supported <= 0 {
		o.Supported = 0.30
	}
	if o.Weak <= 0 {
		o.Weak = 0.12
	}
	if o.MaxQuotes <= 0 {
		o.MaxQuotes = 3
	}
	return o
}

type sentence struct {
	span  Span
	terms []int32 // distinct term ids
}

type passage struct {
	Passage
	sents []sentence
	title []int32 // distinct title term ids, disambiguation dropped
}

// Aligner holds the passages an answer may cite, split and indexed once;
// align any number of claims against them. It is safe for concurrent use
// once built.
type Aligner struct {
	opts  Options
	vocab map[string]int32
	df    []int32
	idf   []float64
	nSent int
	byN   map[int]*passage
}

// NewAligner splits and indexes the passages. The terms' rarity (IDF) is
// counted over the sentences of all of them: the documents the answer saw.
func NewAligner(ps []Passage, opts Options) *Aligner {
	a := &Aligner{opts: opts.withDefaults(), vocab: map[string]int32{}, byN: make(map[int]*passage, len(ps))}
	var buf []token
	for _, p := range ps {
		pp := &passage{Passage: p}
		buf = tokens(stripDisambiguation(p.Title), buf[:0])
		pp.title = a.ids(buf, true)
		for _, sp := range Sentences(p.Text) {
			buf = tokens(p.Text[sp.Start:sp.End], buf[:0])
			if hasDate(buf) {
				buf = append(buf, token{term: dateTerm})
			}
			if lifespan(p.Text[sp.Start:sp.End]) {
				buf = append(buf, token{term: spanTerm}, token{term: "~die"})
			}
			if hasQty(buf) {
				buf = append(buf, token{term: qtyTerm})
			}
			s := sentence{span: sp, terms: a.ids(buf, true)}
			for _, t := range s.terms {
				a.df[t]++
			}
			a.nSent++
			// A heading or a fragment counts in the terms' rarity (it is
			// text of the passage) but is never a quote.
			if Quotable(p.Text[sp.Start:sp.End]) {
				pp.sents = append(pp.sents, s)
			}
		}
		a.byN[p.N] = pp
	}
	a.idf = make([]float64, len(a.df))
	for t, df := range a.df {
		a.idf[t] = a.idfOf(int(df))
	}
	return a
}

func (a *Aligner) idfOf(df int) float64 {
	n := float64(a.nSent)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// ids maps tokens to distinct term ids, adding new terms when add is set.
func (a *Aligner) ids(toks []token, add bool) []int32 {
	var out []int32
	for _, t := range toks {
		if t.term == "" {
			continue
		}
		id, ok := a.vocab[t.term]
		if !ok {
			if !add {
				continue
			}
			id = int32(len(a.df))
			a.vocab[t.term] = id
			a.df = append(a.df, 0)
		}
		out = append(out, id)
	}
	return distinct(out)
}

func distinct(ids []int32) []int32 {
	if len(ids) < 2 {
		return ids
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := ids[:1]
	for _, id := range ids[1:] {
		if id != out[len(out)-1] {
			out = append(out, id)
		}
	}
	return out
}

// mentions says whether terms hold most of the title's terms.
func mentions(terms, title []int32) bool {
	if len(title) == 0 {
		return false
	}
	hit := 0
	for _, t := range title {
		if contains(terms, t) {
			hit++
		}
	}
	return 2*hit >= len(title)+1 || (len(title) >= 3 && 3*hit >= 2*len(title))
}

func contains(sorted []int32, t int32) bool {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= t })
	return i < len(sorted) && sorted[i] == t
}

// stripDisambiguation drops a trailing parenthesis from a title:
// "Forbidden Ground (2013 film)" → "Forbidden Ground".
func stripDisambiguation(title string) string {
	if i := strings.LastIndex(title, " ("); i > 0 && strings.HasSuffix(title, ")") {
		return title[:i]
	}
	return title
}

// Align splits an answer into claims and aligns each.
func (a *Aligner) Align(answer string) []Result {
	claims := SplitClaims(answer)
	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		out = append(out, a.AlignClaim(c))
	}
	return out
}

// Align is NewAligner and Align in one call with the default options.
func Align(answer string, ps []Passage) []Result {
	return NewAligner(ps, Options{}).Align(answer)
}
