package prompts

// Threads: a follow-up question is rewritten into a standalone one
// (rewrite.tmpl), and the step prompt of a follow-up starts with the
// earlier turns and the documents they observed (thread.tmpl).

const (
	Rewrite = "rewrite"
	Thread  = "thread"
)

func init() { names = append(names, Rewrite, Thread) }

// PriorTurn is one earlier question of a thread and its answer, already
// made safe for a prompt, with the sentences of its cited sources that
// support the answer (Quotes, empty when none is carried; the rewrite
// prompt shows none).
type PriorTurn struct {
	Question string
	Answer   string
	Quotes   []PriorQuote
}

// PriorQuote is a supporting sentence of an earlier answer: N is its
// source's number in the thread, Text the sentence on one line, made safe
// for a prompt.
type PriorQuote struct {
	N    int
	Text string
}

// RewriteData fills the rewrite prompt.
type RewriteData struct {
	Turns    []PriorTurn
	FollowUp string
	// TurnsLeftOut counts the oldest turns not shown, to fit the context.
	TurnsLeftOut int
}

// Rewrite renders the prompt that turns a follow-up into a standalone
// question (a plain-text call: no structured output).
func (s *Set) Rewrite(d RewriteData) (string, error) { return s.render(Rewrite, d) }

// ThreadData fills the thread block of a follow-up's step prompt.
type ThreadData struct {
	Turns []PriorTurn
	// Documents is the rendered observation block of the documents the
	// earlier turns observed, with their numbers.
	Documents string
	// TurnsLeftOut counts earlier turns not shown (the oldest), and
	// DocsLeftOut earlier documents not shown, to fit the context.
	TurnsLeftOut, DocsLeftOut int
}

// ThreadContext renders the thread block put before a follow-up's question.
func (s *Set) ThreadContext(d ThreadData) (string, error) { return s.render(Thread, d) }
