package mcpserve

import (
	"slices"
	"sync"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// AskOutput is the ask tool's result: the answer with its evidence, what
// the run did about the web, and where the session is kept.
type AskOutput struct {
	SessionID string        `json:"session_id" jsonschema:"the stored session: prefrag sessions show ID, or the resource prefrag://sessions/ID"`
	Resource  string        `json:"resource" jsonschema:"the session as Markdown (resources/read)"`
	Answer    string        `json:"answer"`
	Label     string        `json:"label,omitempty" jsonschema:"the model's self-evaluation: CORRECT, PARTIALLY CORRECT or INCORRECT"`
	Forced    bool          `json:"forced" jsonschema:"true when the step limit forced the answer"`
	Claims    []Claim       `json:"claims" jsonschema:"the answer's claims, each with its citations and the sentences of the cited sources that support it"`
	Sources   []Source      `json:"sources" jsonschema:"the documents in the answer's context, cited ones first; n is the [n] the answer cites"`
	Web       WebReport     `json:"web"`
	Counts    engine.Counts `json:"counts" jsonschema:"model calls, retrievals and tokens of this run"`
	Notices   []string      `json:"notices,omitempty" jsonschema:"what the run said along the way (a source unavailable, a document cut, a cap applied)"`
}

// Claim is one claim of the answer.
type Claim struct {
	Text      string  `json:"text"`
	Citations []int   `json:"citations" jsonschema:"the sources ([n]) the claim cites"`
	Verdict   string  `json:"verdict" jsonschema:"supported, weak, unsupported (no cited sentence supports it) or uncited"`
	Quotes    []Quote `json:"quotes" jsonschema:"the supporting sentences, verbatim"`
}

// Quote is one supporting sentence of a cited source.
type Quote struct {
	Source int     `json:"source" jsonschema:"the source's n"`
	Text   string  `json:"text"`
	Score  float64 `json:"score" jsonschema:"the share of the claim it carries, 0 to 1"`
}

// Source is one document of the answer's context.
type Source struct {
	N       int    `json:"n"`
	ID      string `json:"id" jsonschema:"for a passage of a local corpus, the id fetch takes (CORPUS:PASSAGE); for a web result its URL"`
	Title   string `json:"title"`
	URL     string `json:"url,omitempty"`
	Locator string `json:"locator,omitempty"`
	Origin  string `json:"origin" jsonschema:"local:CORPUS or web:ENGINE"`
	Cited   bool   `json:"cited"`
	Cached  bool   `json:"cached,omitempty" jsonschema:"a web result taken from prefrag's web cache"`
}

// WebReport is what the run did about the web and why.
type WebReport struct {
	Policy     string   `json:"policy" jsonschema:"the web policy in force for this question"`
	UserPolicy string   `json:"user_policy" jsonschema:"the user's own policy"`
	Requested  string   `json:"requested,omitempty" jsonschema:"the policy the call asked for"`
	Searched   bool     `json:"searched" jsonschema:"whether any web search was performed"`
	NeverLeave []string `json:"never_leave,omitempty" jsonschema:"corpora whose passages never leave the machine in this run"`
	Switches   []Switch `json:"switches" jsonschema:"each time the judge found a source insufficient and moved on to the next"`
	HeldBack   []string `json:"held_back,omitempty" jsonschema:"why the web was wanted but not used"`
	Note       string   `json:"note,omitempty" jsonschema:"why the web stays out, and how the user (not the agent) can allow it"`
}

// Switch is one judge decision that the source was not enough.
type Switch struct {
	Step   int    `json:"step"`
	From   string `json:"from"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason"`
}

// collector keeps what the result needs from the run's events, as they
// are delivered (after they are stored).
type collector struct {
	mu       sync.Mutex
	final    *engine.Final
	evidence *engine.Evidence
	switches []Switch
	heldBack []string
	notices  []string
}

func newCollector() *collector { return &collector{switches: []Switch{}} }

func (c *collector) add(ev engine.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch p := ev.Payload.(type) {
	case engine.Final:
		c.final = &p
	case engine.Evidence:
		c.evidence = &p
	case engine.Selection:
		if p.Status == nil || !*p.Status {
			sw := Switch{Step: ev.Step, From: p.Source, Reason: p.Analysis}
			if p.NextSource != nil {
				sw.To = *p.NextSource
			}
			c.switches = append(c.switches, sw)
		}
	case engine.Observation:
		c.held(p.Note)
	case engine.Supplement:
		c.held(p.Note)
	case engine.Notice:
		c.notices = append(c.notices, p.Message)
	case engine.SessionStart, engine.Rewrite, engine.Gate, engine.Thought, engine.Action, engine.Retrieval,
		engine.Answer, engine.Refinement, engine.ThreadContext, engine.Token:
		// Not part of the tool's result: the progress notifications show them.
	}
}

// held keeps a note that says the web was not used (once each).
func (c *collector) held(note string) {
	if note != "" && !slices.Contains(c.heldBack, note) {
		c.heldBack = append(c.heldBack, note)
	}
}

// output is the tool's result for a run that ended with an answer.
func (c *collector) output(res engine.Result, id string, p askPrivacy, note string) AskOutput {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := AskOutput{SessionID: id, Resource: sessionURI(id), Answer: res.Answer, Label: res.Label, Forced: res.Forced,
		Claims: []Claim{}, Sources: []Source{}, Counts: res.Counts, Notices: append(slices.Clone(p.Notes), c.notices...)}
	out.Web = WebReport{Policy: p.Web, UserPolicy: p.UserWeb, Requested: p.Requested, Searched: res.Counts.WebRetrievals > 0,
		NeverLeave: p.NeverLeave, Switches: c.switches, HeldBack: c.heldBack, Note: note}
	if c.final != nil {
		out.Sources = sourcesOf(*c.final)
	}
	if c.evidence != nil {
		for _, cl := range c.evidence.Claims {
			claim := Claim{Text: cl.Text, Citations: orEmpty(cl.Citations), Verdict: string(cl.Verdict), Quotes: []Quote{}}
			for _, q := range cl.Support {
				claim.Quotes = append(claim.Quotes, Quote{Source: q.N, Text: q.Quote, Score: q.Score})
			}
			out.Claims = append(out.Claims, claim)
		}
	}
	return out
}

// sourcesOf lists the final event's documents with their numbers.
func sourcesOf(f engine.Final) []Source {
	out := make([]Source, 0, len(f.Sources))
	for i, d := range f.Sources {
		n := 0
		if i < len(f.SourceNums) {
			n = f.SourceNums[i]
		}
		out = append(out, Source{N: n, ID: sourceID(d), Title: d.Title, URL: d.URL, Locator: d.Locator,
			Origin: d.Source, Cited: slices.Contains(f.Citations, n), Cached: d.Cached})
	}
	return out
}

// sourceID is the id a source is fetched or opened by: CORPUS:PASSAGE for
// a local passage, the document's own id (its URL) otherwise.
func sourceID(d sources.Document) string {
	if n, ok := sources.ParseName(d.Source); ok && n.Kind.IsCorpus() && d.ID != "" {
		return passageID(n.ID, d.ID)
	}
	if d.ID == "" {
		return d.URL
	}
	return d.ID
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
