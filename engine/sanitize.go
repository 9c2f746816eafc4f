package engine

import "github.com/prefrag/prefrag/internal/textsafe"

// sanitize removes terminal control sequences (CSI, OSC, DCS, …), control
// characters other than newline and tab, and bidirectional overrides and
// isolates from every text an event carries: model text (thoughts, answers,
// self-evaluations, the judge's analysis), queries, notes, messages and the
// documents of local files and web pages. Events are stored and printed as
// JSON, and `jq -r` writes a string's escape sequences straight to the
// terminal. Document titles, URLs and locators become one line. Slices are
// copied: the run keeps its own documents unchanged.
func sanitize(ev Event) Event {
	if ev.Payload != nil {
		ev.Payload = ev.Payload.sanitized()
	}
	return ev
}

// clean is the sanitizing of one text of a payload.
func clean(s string) string { return textsafe.ForTerminal(s) }

func sanitizeIDs(ids []string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = textsafe.ForTerminal(id)
	}
	return out
}

func sanitizeDocs(docs []Document) []Document {
	if docs == nil {
		return nil
	}
	out := make([]Document, len(docs))
	for i, d := range docs {
		out[i] = d.Sanitized()
	}
	return out
}

// sanitizeOutput is sanitize for a parsed model output kept as the run's
// answer: the result (and the session's stored answer) holds the same text
// as the events.
func sanitizeOutput(o StepOutput) StepOutput {
	c := textsafe.ForTerminal
	o.Thought = c(o.Thought)
	o.Answer = c(o.Answer)
	o.Label = c(o.Label)
	o.Explanation = c(o.Explanation)
	o.Suggestions = c(o.Suggestions)
	return o
}

// sanitizeGate is sanitize for the retrieval gate's payload (model text:
// the heuristic answer, the analysis and the queries).
func sanitizeGate(g Gate) Gate {
	c := textsafe.ForTerminal
	g.HeuristicAnswer = c(g.HeuristicAnswer)
	g.Analysis = c(g.Analysis)
	if g.Queries != nil {
		qs := make([]string, len(g.Queries))
		for i, q := range g.Queries {
			qs[i] = textsafe.OneLine(q)
		}
		g.Queries = qs
	}
	return g
}
