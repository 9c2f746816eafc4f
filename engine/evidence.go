package engine

import (
	"encoding/json"

	"github.com/prefrag/prefrag/evidence"
)

// Evidence is an answer's claims with their support ("evidence"): each
// claim (a sentence of the answer with its citation numbers), for each
// citation the sentences of the cited document that support it (quote,
// byte offsets in the document's text, score), and a verdict (supported,
// weak, unsupported, uncited). It is computed by the evidence aligner over
// the documents the answer cites, without a model call, and emitted just
// before the final event of a run (each turn of a thread has its own).
type Evidence struct {
	Claims []evidence.Result `json:"claims"` // [] when nil
	// Checks are the judge model's verdicts on the claims' quotes
	// (--verify-claims), beside the aligner's; absent without the check.
	Checks []ClaimCheck `json:"model_checks,omitempty"`
}

func (Evidence) EventType() string  { return EventEvidence }
func (Evidence) StepRule() StepRule { return StepNever }

func (p Evidence) wire() any {
	type plain Evidence
	claims := make([]evidence.Result, len(p.Claims)) // not the caller's
	for i, c := range p.Claims {
		c.Citations, c.Support = orEmpty(c.Citations), orEmpty(c.Support)
		claims[i] = c
	}
	p.Claims = claims
	return plain(p)
}

func (p Evidence) MarshalJSON() ([]byte, error) { return json.Marshal(p.wire()) }

// sanitized cleans the claims' and the quotes' texts: quotes are document
// text, untrusted like every document. Offsets still point into the
// document as retrieved.
func (p Evidence) sanitized() Payload {
	out := make([]evidence.Result, len(p.Claims))
	for i, c := range p.Claims {
		c.Text = clean(c.Text)
		if c.Support != nil {
			qs := make([]evidence.Quote, len(c.Support))
			for j, q := range c.Support {
				q.Quote = clean(q.Quote)
				qs[j] = q
			}
			c.Support = qs
		}
		out[i] = c
	}
	p.Claims = out
	if p.Checks != nil {
		cs := make([]ClaimCheck, len(p.Checks))
		for i, c := range p.Checks {
			c.Analysis = clean(c.Analysis)
			cs[i] = c
		}
		p.Checks = cs
	}
	return p
}

// answerEvidence aligns an answer's claims with the documents it cites
// (docs are the context, numbered from 1; a cited number outside it is a
// citation without a passage). Documents are aligned sanitized, as the
// final event's sources carry them: the offsets point into that text.
func answerEvidence(answer string, cited []int, docs []Document) Evidence {
	var ps []evidence.Passage
	for _, n := range cited {
		if n >= 1 && n <= len(docs) {
			d := docs[n-1]
			ps = append(ps, evidence.Passage{N: n, Title: clean(d.Title), Text: clean(d.Text)})
		}
	}
	return Evidence{Claims: evidence.Align(answer, ps)}
}

// QuotesOf is the quotes that support a claim in document n, each once
// (the same sentence may support two claims), in the order of the claims.
func (p Evidence) QuotesOf(n int) []evidence.Quote {
	var out []evidence.Quote
	seen := map[[2]int]bool{}
	for _, c := range p.Claims {
		for _, q := range c.Support {
			if k := [2]int{q.Start, q.End}; q.N == n && !seen[k] {
				seen[k] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// WeakFor is the claims that quote q supports only weakly: claims whose
// support holds q and whose citation of q's document has the verdict weak
// (a quote may support one claim well and another weakly). Every place
// that shows a quote marks these, naming the claim.
func (p Evidence) WeakFor(q evidence.Quote) []evidence.Result {
	var out []evidence.Result
	for _, c := range p.Claims {
		if c.Verdict == evidence.Unsupported || c.Verdict == evidence.Uncited || !citesWeakly(c, q.N) {
			continue
		}
		for _, s := range c.Support {
			if s.N == q.N && s.Start == q.Start && s.End == q.End {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// citesWeakly says whether claim c's citation of document n has weak
// support (the claim's own verdict when it has no per-citation verdicts).
func citesWeakly(c evidence.Result, n int) bool {
	for _, ct := range c.Cited {
		if ct.N == n {
			return ct.Verdict == evidence.Weak
		}
	}
	return len(c.Cited) == 0 && c.Verdict == evidence.Weak
}

// Quotes is every quote of the claims, each once (by document and
// offsets), in the order of the claims.
func (p Evidence) Quotes() []evidence.Quote {
	var out []evidence.Quote
	seen := map[[3]int]bool{}
	for _, c := range p.Claims {
		for _, q := range c.Support {
			if k := [3]int{q.N, q.Start, q.End}; !seen[k] {
				seen[k] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// Unbacked is the claims without support: those whose cited documents say
// nothing found about them (unsupported) and those that cite nothing
// (uncited).
func (p Evidence) Unbacked() []evidence.Result {
	var out []evidence.Result
	for _, c := range p.Claims {
		if c.Verdict == evidence.Unsupported || c.Verdict == evidence.Uncited {
			out = append(out, c)
		}
	}
	return out
}
