package privacy

// The measurement itself: test code, run by `go test ./bench/privacy`
// (privacy_test.go asserts the rates, build_bench_test.go times the build).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/prefrag/prefrag/bench/retrieval"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/sources/distinct"
)

// OrdinaryDocs is how many documents of the other corpora a word must
// occur in to count as ordinary when a hold is judged.
const OrdinaryDocs = 5

// Corpus is a never-leave corpus of the measurement.
type Corpus struct {
	Name string
	Docs []retrieval.Doc
	// Wiki marks the Wikipedia paragraphs (the pools), apart from the
	// scientific abstracts of the IR collections.
	Wiki bool
}

// QuerySet is one set of questions or topics.
type QuerySet struct {
	Name    string
	Queries []string
	// Of names the corpus the queries were written about ("" for none).
	Of string
	// Wiki marks questions about Wikipedia's subjects.
	Wiki bool
}

// Hold is one held query with what held it and the judgement.
type Hold struct {
	Query string
	Match distinct.Match
	False bool
}

// Pair is the holds of one query set against one never-leave corpus.
type Pair struct {
	Corpus, Set string
	// Own is set when the queries were written about this corpus (its own
	// topics or questions): they name its entities by design. Related is
	// set when they are about the same kind of text (Wikipedia questions
	// and a pool of Wikipedia paragraphs) without being its own.
	Own, Related bool
	Queries      int
	Holds        []Hold
}

// Held and FalseHolds count the pair's holds.
func (p Pair) Held() int { return len(p.Holds) }

func (p Pair) FalseHolds() int {
	n := 0
	for _, h := range p.Holds {
		if h.False {
			n++
		}
	}
	return n
}

// Planted is the true holds of one kind of planted string on one corpus.
type Planted struct {
	Corpus string
	Kind   string
	Tried  int
	Held   int
	Missed []string
}

// Build is the cost of one corpus's Set.
type Build struct {
	Corpus string
	Stats  distinct.Stats
	Took   time.Duration
}

// Report is the whole measurement.
type Report struct {
	Builds  []Build
	Pairs   []Pair
	Planted []Planted
}

// Load reads the corpora and query sets under dataDir (shared/data).
func Load(dataDir string) ([]Corpus, []QuerySet, error) {
	vas, err := retrieval.LoadVaswani(dataDir)
	if err != nil {
		return nil, nil, err
	}
	cran, err := retrieval.LoadCranfield(dataDir)
	if err != nil {
		return nil, nil, err
	}
	corpora := []Corpus{{Name: "vaswani", Docs: vas.Docs}, {Name: "cranfield", Docs: cran.Docs}}
	sets := []QuerySet{{Name: "vaswani topics", Queries: queryTexts(vas), Of: "vaswani"},
		{Name: "cranfield topics", Queries: queryTexts(cran), Of: "cranfield"}}
	for _, p := range []struct{ corpus, set, rel string }{
		{"hotpotqa pool", "hotpotqa-ircot questions", "hotpotqa-ircot-dev500/dev_subsampled.jsonl"},
		{"", "migres hotpotqa questions", "migres-dev200/hotpot.json"},
		{"musique pool", "migres musique questions", "migres-dev200/musique.json"},
		{"", "migres 2wiki questions", "migres-dev200/wikihop.json"},
	} {
		ds, err := retrieval.LoadPool(dataDir, p.set, p.rel, 0)
		if err != nil {
			return nil, nil, err
		}
		of := p.corpus
		if strings.Contains(p.set, "hotpotqa") {
			of = "hotpotqa pool"
		}
		sets = append(sets, QuerySet{Name: p.set, Queries: queryTexts(ds), Of: of, Wiki: true})
		if p.corpus != "" {
			corpora = append(corpora, Corpus{Name: p.corpus, Docs: ds.Docs, Wiki: true})
		}
	}
	for _, f := range []string{"hotpotqa_500", "2wiki_500", "musique_500", "bamboogle"} {
		ds, err := eval.LoadFile(filepath.Join(dataDir, "qa", "r1searcher-eval", f+".jsonl"))
		if err != nil {
			return nil, nil, err
		}
		qs := make([]string, len(ds.Questions))
		for i, q := range ds.Questions {
			qs[i] = q.Text
		}
		sets = append(sets, QuerySet{Name: "r1searcher " + f, Queries: qs, Wiki: true})
	}
	return corpora, sets, nil
}

func queryTexts(ds *retrieval.Dataset) []string {
	out := make([]string, len(ds.Queries))
	for i, q := range ds.Queries {
		out[i] = q.Text
	}
	return out
}

// SharedData is the shared data folder above the working directory, or ""
// (a user's machine: the measurement is skipped).
func SharedData() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return retrieval.FindSharedData(wd)
}

// Run measures every query set against every corpus, and the planted
// strings on each corpus.
func Run(corpora []Corpus, sets []QuerySet, seed uint64) Report {
	var rep Report
	for _, c := range corpora {
		t0 := time.Now()
		set := build(c.Docs)
		rep.Builds = append(rep.Builds, Build{Corpus: c.Name, Stats: set.Stats(), Took: time.Since(t0)})
		ref := reference(corpora, c)
		for _, qs := range sets {
			p := Pair{Corpus: c.Name, Set: qs.Name, Own: qs.Of == c.Name, Queries: len(qs.Queries)}
			p.Related = !p.Own && qs.Wiki == c.Wiki
			for _, q := range qs.Queries {
				if m, ok := set.Find(q); ok {
					p.Holds = append(p.Holds, Hold{Query: q, Match: m, False: ref.ordinary(m)})
				}
			}
			rep.Pairs = append(rep.Pairs, p)
		}
		rep.Planted = append(rep.Planted, plant(c, otherQuestions(sets, c.Name), seed)...)
	}
	return rep
}

func build(docs []retrieval.Doc) *distinct.Set {
	b := distinct.NewBuilder()
	for _, d := range docs {
		b.Add(d.Title, d.Text)
	}
	return b.Set()
}

// otherQuestions are the questions of the sets not written about corpus.
func otherQuestions(sets []QuerySet, corpus string) []string {
	var out []string
	for _, s := range sets {
		if s.Of != corpus {
			out = append(out, s.Queries...)
		}
	}
	return out
}

// ref is the document frequency of lower-cased words in the collections
// other than a never-leave corpus: the judge of whether a held string is
// ordinary.
type ref map[string]int

// reference counts the words of every other corpus's documents.
func reference(corpora []Corpus, c Corpus) ref {
	r := ref{}
	add := func(text string) {
		seen := map[string]bool{}
		for _, w := range words(text) {
			if !seen[w] {
				seen[w] = true
				r[w]++
			}
		}
	}
	for _, o := range corpora {
		if o.Name == c.Name {
			continue
		}
		for _, d := range o.Docs {
			add(d.Title + " " + d.Text)
		}
	}
	return r
}

// words are the lower-cased words of text, split at anything but letters
// and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// ordinary judges a match: an identifier or a number is distinctive by its
// form; a name or a run of words is ordinary when each of its words occurs
// in OrdinaryDocs documents of the reference.
func (r ref) ordinary(m distinct.Match) bool {
	switch m.Kind {
	case distinct.Identifier, distinct.Number:
		return false
	}
	for _, w := range words(m.Text) {
		if r[w] < OrdinaryDocs {
			return false
		}
	}
	return true
}

// Tally counts queries, holds and false holds.
type Tally struct{ Queries, Held, False int }

func (t *Tally) add(p Pair) {
	t.Queries += p.Queries
	t.Held += p.Held()
	t.False += p.FalseHolds()
}

// Summary adds a report up: the pairs by how the queries relate to the
// never-leave corpus, the false holds by kind, and the planted strings.
type Summary struct {
	// Unrelated: queries about another kind of text (IR topics against
	// Wikipedia paragraphs, Wikipedia questions against abstracts).
	// Related: other questions about the same kind of text. Own: the
	// corpus's own topics or questions.
	Unrelated, Related, Own Tally
	// FalseByKind counts the false holds by what held them.
	FalseByKind               map[distinct.Kind]int
	PlantedTried, PlantedHeld int
}

// All is every pair together.
func (s Summary) All() Tally {
	return Tally{Queries: s.Unrelated.Queries + s.Related.Queries + s.Own.Queries,
		Held:  s.Unrelated.Held + s.Related.Held + s.Own.Held,
		False: s.Unrelated.False + s.Related.False + s.Own.False}
}

// Summarise adds the report up.
func (rep Report) Summarise() Summary {
	s := Summary{FalseByKind: map[distinct.Kind]int{}}
	for _, p := range rep.Pairs {
		switch {
		case p.Own:
			s.Own.add(p)
		case p.Related:
			s.Related.add(p)
		default:
			s.Unrelated.add(p)
		}
		for _, h := range p.Holds {
			if h.False {
				s.FalseByKind[h.Match.Kind]++
			}
		}
	}
	for _, p := range rep.Planted {
		s.PlantedTried += p.Tried
		s.PlantedHeld += p.Held
	}
	return s
}

// Text writes the report as a table.
func (rep Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %9s %7s %9s %9s\n", "never-leave", "passages", "words", "runs", "build")
	for _, x := range rep.Builds {
		fmt.Fprintf(&b, "%-16s %9d %7d %9d %9s\n", x.Corpus, x.Stats.Passages, x.Stats.Words, x.Stats.Runs, x.Took.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "\n%-16s %-30s %7s %6s %6s\n", "never-leave", "queries", "n", "held", "false")
	for _, p := range rep.Pairs {
		own := ""
		if p.Own {
			own = " (own)"
		}
		fmt.Fprintf(&b, "%-16s %-30s %7d %6d %6d\n", p.Corpus, p.Set+own, p.Queries, p.Held(), p.FalseHolds())
	}
	fmt.Fprintf(&b, "\n%-16s %-12s %6s %6s\n", "never-leave", "planted", "tried", "held")
	for _, p := range rep.Planted {
		fmt.Fprintf(&b, "%-16s %-12s %6d %6d\n", p.Corpus, p.Kind, p.Tried, p.Held)
	}
	s := rep.Summarise()
	for _, r := range []struct {
		what string
		t    Tally
	}{{"unrelated queries", s.Unrelated}, {"related questions", s.Related}, {"own questions", s.Own}, {"all", s.All()}} {
		fmt.Fprintf(&b, "\n%-18s %6d queries: %5d held (%5.2f%%), %4d false holds (%5.2f%%)", r.what, r.t.Queries, r.t.Held, pct(r.t.Held, r.t.Queries), r.t.False, pct(r.t.False, r.t.Queries))
	}
	fmt.Fprintf(&b, "\nfalse holds by kind:")
	for _, k := range []distinct.Kind{distinct.Name, distinct.Words, distinct.Identifier, distinct.Number} {
		fmt.Fprintf(&b, " %s %d;", k, s.FalseByKind[k])
	}
	fmt.Fprintf(&b, "\ntrue holds, planted strings: %d of %d (%.2f%%)\n", s.PlantedHeld, s.PlantedTried, pct(s.PlantedHeld, s.PlantedTried))
	return b.String()
}

// Examples lists up to n holds of each kind, false ones first.
func (rep Report) Examples(n int, false_ bool) []string {
	var out []string
	for _, p := range rep.Pairs {
		for _, h := range p.Holds {
			if h.False == false_ {
				out = append(out, fmt.Sprintf("%s ← %s: %q (%s %q)", p.Corpus, p.Set, h.Query, h.Match.Kind, h.Match.Text))
			}
		}
	}
	sort.Strings(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// plant measures true holds on corpus c: secrets planted into its
// passages, carried by questions of other sets; runs of its words quoted.
func plant(c Corpus, questions []string, seed uint64) []Planted {
	rng := rand.New(rand.NewPCG(seed, uint64(len(c.Docs))))
	const n = 200
	docs := append([]retrieval.Doc(nil), c.Docs...)
	type secret struct{ kind, text string }
	var secrets []secret
	for i := 0; i < n; i++ {
		for _, kind := range []string{"identifier", "number", "name"} {
			s := secret{kind, makeSecret(rng, kind)}
			d := &docs[rng.IntN(len(docs))]
			d.Text = plantInto(rng, d.Text, s.text)
			secrets = append(secrets, s)
		}
	}
	set := build(docs)
	out := map[string]*Planted{}
	order := []string{"identifier", "number", "name", "6 words", "8 words", "10 words"}
	for _, k := range order {
		out[k] = &Planted{Corpus: c.Name, Kind: k}
	}
	ask := func(kind, q string) {
		p := out[kind]
		p.Tried++
		if _, ok := set.Find(q); ok {
			p.Held++
		} else if len(p.Missed) < 5 {
			p.Missed = append(p.Missed, q)
		}
	}
	for _, s := range secrets {
		text := s.text
		if s.kind == "name" && rng.IntN(2) == 0 {
			text = strings.ToLower(text)
		}
		ask(s.kind, carry(rng, questions, text))
	}
	for _, w := range []int{6, 8, 10} {
		for i := 0; i < n; i++ {
			run := randomRun(rng, c.Docs, w)
			if run == "" {
				continue
			}
			ask(fmt.Sprintf("%d words", w), carry(rng, questions, "\""+run+"\""))
		}
	}
	var list []Planted
	for _, k := range order {
		list = append(list, *out[k])
	}
	return list
}

// makeSecret makes a string of a kind no real text holds.
func makeSecret(rng *rand.Rand, kind string) string {
	const letters, vowels, consonants = "ABCDEFGHJKLMNPQRSTUVWXYZ", "aeiou", "bdfgklmnprstvz"
	switch kind {
	case "identifier":
		var b strings.Builder
		for i := 0; i < 2; i++ {
			b.WriteByte(letters[rng.IntN(len(letters))])
		}
		fmt.Fprintf(&b, "-%04d-", rng.IntN(10000))
		b.WriteByte(letters[rng.IntN(len(letters))])
		b.WriteByte(letters[rng.IntN(len(letters))])
		return b.String()
	case "number":
		return fmt.Sprintf("%d%07d", 1+rng.IntN(9), rng.IntN(10000000))
	}
	var b strings.Builder
	for i := 0; i < 3; i++ {
		b.WriteByte(consonants[rng.IntN(len(consonants))])
		b.WriteByte(vowels[rng.IntN(len(vowels))])
	}
	b.WriteByte(consonants[rng.IntN(len(consonants))])
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// plantInto writes secret into text as a sentence of its own, in the
// middle of it.
func plantInto(rng *rand.Rand, text, secret string) string {
	sentence := fmt.Sprintf(" The file was handed to %s on arrival. ", secret)
	if rng.IntN(2) == 0 {
		sentence = fmt.Sprintf(" It was later filed under %s by the clerk. ", secret)
	}
	cut := strings.Index(text[len(text)/2:], ". ")
	if cut < 0 {
		return text + sentence
	}
	cut += len(text)/2 + 1
	return text[:cut] + sentence + text[cut:]
}

// carry puts text into a random question.
func carry(rng *rand.Rand, questions []string, text string) string {
	q := strings.TrimRight(questions[rng.IntN(len(questions))], "?. ")
	if rng.IntN(2) == 0 {
		return q + " " + text + "?"
	}
	return text + " " + q + "?"
}

// randomRun is w consecutive words of a random passage, as written
// (punctuation between them dropped), or "".
func randomRun(rng *rand.Rand, docs []retrieval.Doc, w int) string {
	for try := 0; try < 20; try++ {
		f := strings.Fields(docs[rng.IntN(len(docs))].Text)
		if len(f) < w {
			continue
		}
		i := rng.IntN(len(f) - w + 1)
		return strings.Join(f[i:i+w], " ")
	}
	return ""
}
