package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/prompts"
)

// A thread's context within a budget. A follow-up's step prompt carries the
// earlier documents chosen for the new (rewritten) question — the last
// turn's cited ones, then cited ones relevant to the question, then other
// relevant ones, then the rest, newest first — until a share of the prompt
// budget is used; the others are left out of the prompt but keep their
// numbers, and come back when a later question needs them (or a search
// finds them again). The earlier turns are carried as question, answer
// and the sentences of the answer's sources that support it (its evidence
// event's quotes, with their document numbers), shortened, oldest first,
// when they pass their own share: quotes dropped first, then answers cut.
// What was carried and left out is said in a thread_context event.

// Shares of the prompt budget (percent).
const (
	threadDocsShare   = 30 // earlier documents in a follow-up's step prompt
	threadTurnsShare  = 10 // earlier turns in a follow-up's step prompt
	rewriteTurnsShare = 50 // earlier turns in the rewrite prompt
	shortAnswerRunes  = 300
	// An earlier turn carries at most maxTurnQuotes supporting quotes of
	// at most quoteRunes each.
	maxTurnQuotes = 6
	quoteRunes    = 400
	// relevantShare: a document scoring below this share of the best
	// score for the question is not counted relevant.
	relevantShare      = 0.3
	minTurnsShareToken = 64
)

// EventThreadContext is what a follow-up carried into its prompt.
const EventThreadContext = "thread_context"

// ThreadContext says what a follow-up's step prompt carried of its thread
// ("thread_context"): the earlier documents carried and left out (by
// number), the earlier turns shortened (answer cut or dropped) and left
// out, how many of the earlier answers' supporting quotes were carried and
// left out, the thread block's estimated tokens and the share of the
// prompt budget it was given (Budget), of a prompt budget of PromptBudget.
type ThreadContext struct {
	DocsCarried    []int `json:"docs_carried"`    // [] when nil
	DocsLeftOut    []int `json:"docs_left_out"`   // [] when nil
	TurnsShortened []int `json:"turns_shortened"` // [] when nil
	TurnsLeftOut   []int `json:"turns_left_out"`  // [] when nil
	QuotesCarried  int   `json:"quotes_carried"`
	QuotesLeftOut  int   `json:"quotes_left_out"`
	Tokens         int   `json:"tokens"`
	Budget         int   `json:"budget"`
	PromptBudget   int   `json:"prompt_budget"`
}

func (ThreadContext) EventType() string  { return EventThreadContext }
func (ThreadContext) StepRule() StepRule { return StepNever }

// sanitized: a thread_context carries no text.
func (p ThreadContext) sanitized() Payload { return p }

func (p ThreadContext) wire() any {
	type plain ThreadContext
	p.DocsCarried, p.DocsLeftOut = orEmpty(p.DocsCarried), orEmpty(p.DocsLeftOut)
	p.TurnsShortened, p.TurnsLeftOut = orEmpty(p.TurnsShortened), orEmpty(p.TurnsLeftOut)
	return plain(p)
}

func (p ThreadContext) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }

// Summary says in one line what the follow-up carried and left out, for
// every renderer (text output, stepper, exports).
func (p ThreadContext) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "carried %d earlier %s", len(p.DocsCarried), plural.Noun(len(p.DocsCarried), "document", "documents"))
	if len(p.DocsCarried) > 0 {
		b.WriteString(" " + numList(p.DocsCarried))
	}
	if len(p.DocsLeftOut) > 0 {
		fmt.Fprintf(&b, ", left out %d %s (they keep their numbers)", len(p.DocsLeftOut), numList(p.DocsLeftOut))
	}
	if len(p.TurnsShortened) > 0 {
		fmt.Fprintf(&b, "; %s %s shortened", plural.Noun(len(p.TurnsShortened), "turn", "turns"), joinInts(p.TurnsShortened))
	}
	if len(p.TurnsLeftOut) > 0 {
		fmt.Fprintf(&b, "; %s %s left out", plural.Noun(len(p.TurnsLeftOut), "turn", "turns"), joinInts(p.TurnsLeftOut))
	}
	if p.QuotesCarried > 0 || p.QuotesLeftOut > 0 {
		fmt.Fprintf(&b, "; %d supporting %s carried", p.QuotesCarried, plural.Noun(p.QuotesCarried, "quote", "quotes"))
		if p.QuotesLeftOut > 0 {
			fmt.Fprintf(&b, ", %d left out", p.QuotesLeftOut)
		}
	}
	if p.Budget > 0 && p.Budget < math.MaxInt/4 {
		fmt.Fprintf(&b, "; about %d tokens of a %d-token share", p.Tokens, p.Budget)
	} else {
		fmt.Fprintf(&b, "; about %d tokens", p.Tokens)
	}
	return b.String()
}

// ThreadNote says, as every renderer writes it after "observations", how
// many documents carried from the thread the refinement condensed:
// " (with 4 documents carried from the thread)"; "" when none.
func (p Refinement) ThreadNote() string {
	if p.ThreadDocs <= 0 {
		return ""
	}
	return fmt.Sprintf(" (with %d %s carried from the thread)", p.ThreadDocs, plural.Noun(p.ThreadDocs, "document", "documents"))
}

// numList writes document numbers as [1] [2] [5], at most twelve, then
// how many more.
func numList(ns []int) string {
	const most = 12
	parts := make([]string, 0, most+1)
	for i, n := range ns {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(ns)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("[%d]", n))
	}
	return strings.Join(parts, " ")
}

// turnPlan is the earlier turns as a prompt carries them.
type turnPlan struct {
	turns     []prompts.PriorTurn
	shortened []int // turn numbers (from 1) shortened (answer cut or dropped)
	leftOut   []int // turn numbers left out (the oldest)
	tokens    int
	// quotesCarried and quotesLeftOut count the turns' supporting quotes
	// carried and not (dropped to fit, past maxTurnQuotes, or with their
	// turn).
	quotesCarried, quotesLeftOut int
}

// Levels a turn is carried at, from whole to left out.
const (
	turnWhole    = iota // question, answer, supporting quotes
	turnNoQuotes        // question and answer
	turnShort           // question and a short answer
	turnQuestion        // question
	turnOut
)

// planTurns fits the earlier turns into budget tokens: all whole when they
// fit; else, oldest first, their supporting quotes dropped, then answers
// cut short, then questions only, then turns left out. The newest turn
// keeps at least its question and a short answer. Quotes are carried only
// when withQuotes is set (the step prompt's thread block; the rewrite
// prompt shows none). count gives a text's tokens.
func planTurns(turns []PriorTurn, budget int, withQuotes bool, count func(string) int) turnPlan {
	n := len(turns)
	type carried struct {
		q, whole, short string
		quotes          []prompts.PriorQuote
		extra           int // quotes past maxTurnQuotes
	}
	cs := make([]carried, n)
	cost := make([][turnOut]int, n)
	for i, t := range turns {
		q := textsafe.ForPrompt(t.Question)
		a := textsafe.ForPrompt(t.Answer)
		whole := textsafe.Truncate(a, priorAnswerRunes)
		short := textsafe.Truncate(a, shortAnswerRunes)
		cs[i] = carried{q: q, whole: whole, short: short}
		const frame = 8 // "Earlier question: " and "Earlier answer: "
		qc := count(q) + frame
		quotes := 0
		if withQuotes {
			cs[i].quotes, cs[i].extra = promptQuotes(t.Quotes)
			if len(cs[i].quotes) > 0 {
				quotes = 12 // the line before them
			}
			for _, pq := range cs[i].quotes {
				quotes += count(pq.Text) + 4 // `[n] "…"`
			}
		}
		ac := qc + count(whole)
		cost[i] = [turnOut]int{ac + quotes, ac, qc + count(short), qc}
	}
	level := make([]int, n)
	total := 0
	for i := range turns {
		total += cost[i][turnWhole]
	}
	for lv := turnNoQuotes; lv <= turnOut && total > budget; lv++ {
		for i := 0; i < n && total > budget; i++ {
			if i == n-1 && lv > turnShort {
				break // the newest turn keeps its question and a short answer
			}
			if level[i] >= lv {
				continue
			}
			old := cost[i][level[i]]
			level[i] = lv
			if lv == turnOut {
				total -= old
			} else {
				total += cost[i][lv] - old
			}
		}
	}
	p := turnPlan{tokens: total}
	for i, c := range cs {
		p.quotesLeftOut += c.extra
		if level[i] == turnWhole {
			p.quotesCarried += len(c.quotes)
		} else {
			p.quotesLeftOut += len(c.quotes)
		}
		switch level[i] {
		case turnOut:
			p.leftOut = append(p.leftOut, i+1)
		case turnShort:
			if c.short != c.whole {
				p.shortened = append(p.shortened, i+1)
			}
			p.turns = append(p.turns, prompts.PriorTurn{Question: c.q, Answer: c.short})
		case turnQuestion:
			p.shortened = append(p.shortened, i+1)
			p.turns = append(p.turns, prompts.PriorTurn{Question: c.q})
		case turnNoQuotes:
			p.turns = append(p.turns, prompts.PriorTurn{Question: c.q, Answer: c.whole})
		default:
			p.turns = append(p.turns, prompts.PriorTurn{Question: c.q, Answer: c.whole, Quotes: c.quotes})
		}
	}
	return p
}

// promptQuotes makes a turn's supporting quotes ready for a prompt: each
// on one line, neutralised like any document (quotes are document text),
// capped in length, empty ones skipped, at most maxTurnQuotes; extra
// counts those past the cap.
func promptQuotes(qs []evidence.Quote) (out []prompts.PriorQuote, extra int) {
	for _, q := range qs {
		text := textsafe.ForPrompt(q.Quote) // one line, labels neutralised
		if text == "" || q.N < 1 {
			continue
		}
		if len(out) == maxTurnQuotes {
			extra++
			continue
		}
		out = append(out, prompts.PriorQuote{N: q.N, Text: textsafe.Truncate(text, quoteRunes)})
	}
	return out, extra
}

// docPlan is the earlier documents a follow-up's step prompt carries.
type docPlan struct {
	carried, leftOut []int // numbers, ascending
	tokens           int
}

// planDocs chooses the earlier documents (th.Docs, numbered from 1) for
// question within budget tokens. cost gives a document's tokens in the
// prompt.
func planDocs(th *Thread, question string, budget int, cost func(n int, d Document) int) docPlan {
	n := len(th.Docs)
	rel := relevance(th.Docs, question)
	cited := make([]bool, n+1)
	lastCited := make([]bool, n+1)
	for i, t := range th.Turns {
		for _, c := range t.Cited {
			if c >= 1 && c <= n {
				cited[c] = true
				if i == len(th.Turns)-1 {
					lastCited[c] = true
				}
			}
		}
	}
	// A document is relevant when it scores at least a share of the best:
	// a common word of the question matching everywhere does not make
	// every document relevant.
	best := 0.0
	for _, v := range rel {
		best = max(best, v)
	}
	threshold := max(best*relevantShare, 1e-9)
	tier := func(num int) int {
		switch r := rel[num-1]; {
		case lastCited[num]:
			return 0
		case cited[num] && r >= threshold:
			return 1
		case r >= threshold:
			return 2
		case cited[num]:
			return 3
		}
		return 4
	}
	order := make([]int, 0, n)
	tiers := make([]int, n+1)
	for num := 1; num <= n; num++ {
		if th.Docs[num-1].ID == "" && th.Docs[num-1].Text == "" {
			continue // a number whose document was not recorded
		}
		tiers[num] = tier(num)
		order = append(order, num)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if tiers[a] != tiers[b] {
			return tiers[a] < tiers[b]
		}
		if rel[a-1] != rel[b-1] {
			return rel[a-1] > rel[b-1]
		}
		return a > b // newest first
	})
	var p docPlan
	take := make([]bool, n+1)
	for _, num := range order {
		c := cost(num, th.Docs[num-1])
		if p.tokens+c > budget {
			continue
		}
		p.tokens += c
		take[num] = true
	}
	for num := 1; num <= n; num++ {
		if take[num] {
			p.carried = append(p.carried, num)
		} else {
			p.leftOut = append(p.leftOut, num)
		}
	}
	return p
}

// relevance scores each document for the question: BM25 over title and
// text, with the question's words as the query (common words dropped).
func relevance(docs []Document, question string) []float64 {
	scores := make([]float64, len(docs))
	q := map[string]int{} // term → index
	for _, t := range words(question, nil) {
		if _, ok := q[t]; !ok && !stopword(t) {
			q[t] = len(q)
		}
	}
	if len(q) == 0 || len(docs) == 0 {
		return scores
	}
	tf := make([][]int, len(docs))
	lens := make([]int, len(docs))
	df := make([]int, len(q))
	total := 0
	var buf []byte
	for i, d := range docs {
		row := make([]int, len(q))
		n := 0
		for _, s := range [2]string{d.Title, d.Text} {
			n += countTerms(s, q, row, &buf)
		}
		lens[i] = n
		total += n
		for k, c := range row {
			if c > 0 {
				df[k]++
			}
		}
		tf[i] = row
	}
	avg := float64(total) / float64(len(docs))
	const k1, b = 1.2, 0.75
	for i := range docs {
		s := 0.0
		for k, c := range tf[i] {
			if c == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(docs))-float64(df[k])+0.5)/(float64(df[k])+0.5))
			f := float64(c)
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(lens[i])/max(avg, 1)))
		}
		scores[i] = s
	}
	return scores
}

// countTerms counts the words of s (lower-cased letters and digits) into
// row by their index in q, without allocating; it returns the number of
// words.
func countTerms(s string, q map[string]int, row []int, buf *[]byte) int {
	n := 0
	b := (*buf)[:0]
	flush := func() {
		if len(b) == 0 {
			return
		}
		n++
		if k, ok := q[string(b)]; ok {
			row[k]++
		}
		b = b[:0]
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b = append(b, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			b = append(b, byte(r+'a'-'A'))
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b = utf8.AppendRune(b, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	*buf = b
	return n
}

// words appends the lower-cased words of s (letters and digits) to buf.
func words(s string, buf []string) []string {
	s = strings.ToLower(s)
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			buf = append(buf, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		buf = append(buf, s[start:])
	}
	return buf
}

// stopwords is built on first use (no allocation at start-up).
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of in on at to for from by with about as into over after before
		is are was were be been being do does did has have had it its this that these those he she they them his her their
		who whom whose which what when where why how than then there here also not no yes so such can could would should
		will shall may might must i you we our your my me us one two first second more most other some any all each`) {
		m[w] = true
	}
	return m
})

func stopword(w string) bool { return len(w) < 2 || stopwords()[w] }
