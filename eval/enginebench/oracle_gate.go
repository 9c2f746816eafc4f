package enginebench

import (
	"encoding/json"
	"strings"
)

// Know makes the oracle know the answer of every n-th question (the first,
// the n+1-th, …) without documents: its heuristic draft states the gold,
// its retrieval gate says no search is needed, and it answers a prompt
// without documents with the gold. n < 1 knows nothing (the default).
func (o *Oracle) Know(n int) *Oracle {
	if n < 1 {
		return o
	}
	for q, it := range o.items {
		it.known = it.index%n == 0
		o.items[q] = it
	}
	return o
}

// gateReply answers the retrieval gate's prompts (prompts/templates/
// gate_*.tmpl), told apart by their question lines.
func (o *Oracle) gateReply(prompt string, judge bool) (string, bool) {
	switch {
	case strings.HasPrefix(prompt, "Heuristic draft."):
		_, it, _ := o.find(prompt, "Question: ")
		if it.known {
			return it.gold + ".", true
		}
		return "I do not know this for sure (unsure).", true
	case judge && strings.Contains(prompt, "\nQuestion to assess: "):
		_, it, _ := o.find(prompt, "Question to assess: ")
		if it.known {
			return gateJSON("The draft states the answer plainly; it is well known.", false, ""), true
		}
		return gateJSON("The draft is unsure; the facts must be looked up.", true, ""), true
	case judge && strings.Contains(prompt, "\nQuestion to decide: "):
		q, it, _ := o.find(prompt, "Question to decide: ")
		evidence := documentText(prompt)
		if it.gold != "" && containsFold(evidence, it.gold) {
			return gateJSON("The documents give the answer.", false, ""), true
		}
		return gateJSON("The answer is still missing.", true, nextTitle(it.titles, evidence, 1, q)), true
	case strings.Contains(prompt, "\nQuestion for claims: "):
		q, it, _ := o.find(prompt, "Question for claims: ")
		lines := []string{"Query: " + q}
		for i, t := range it.titles {
			if i == 2 {
				break
			}
			lines = append(lines, "Query: "+t)
		}
		return strings.Join(lines, "\n"), true
	case strings.Contains(prompt, "\nQuestion to rewrite: "):
		q, _, _ := o.find(prompt, "Question to rewrite: ")
		return "Query: " + q, true
	}
	return "", false
}

func gateJSON(analysis string, retrieve bool, query string) string {
	b, _ := json.Marshal(struct {
		Analysis string `json:"analysis"`
		Retrieve bool   `json:"retrieve"`
		Query    string `json:"query,omitempty"`
	}{analysis, retrieve, query})
	return string(b)
}
