package engine

import (
	"fmt"
	"sort"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/prompts"
)

// Fewer passages. When even condensed earlier observations leave a step
// prompt over the budget — a single observation of many long passages, or
// a prompt the server said is larger than counted — the newest
// observation keeps its first (best ranked) documents only: the others are
// left out of the prompt, from the last, until it fits or one is left. A
// line in the observation tells the model, and a notice tells the user,
// which documents were left out; they keep their numbers.

// trimNewest leaves documents of the newest observation out until size()
// is within budget (or one document is left), and returns size().
func (r *run) trimNewest(budget int, size func() int) int {
	est := size()
	i := len(r.refinement.spans) - 1
	if i < 0 || r.refinement.spans[i].refined || len(r.refinement.spans[i].docs) < 2 {
		return est
	}
	sp := r.refinement.spans[i]
	kept := len(sp.docs)
	var leftOut []int
	for est > budget && kept > 1 {
		kept--
		leftOut = append([]int{sp.docs[kept].Num}, leftOut...)
		line := fmt.Sprintf("%s left out to fit the context; %s", numList(leftOut), plural.Noun(len(leftOut), "it keeps its number", "they keep their numbers"))
		text, err := r.prompts.Observation(prompts.ObservationData{Docs: sp.docs[:kept], Notes: append(append([]string(nil), sp.notes...), line)})
		if err != nil {
			return est
		}
		r.replaceSpans(map[int]string{i: text})
		est = size()
	}
	if len(leftOut) > 0 {
		sort.Ints(leftOut)
		r.refinement.spans[i].docs = sp.docs[:kept]
		r.refinement.spans[i].notes = append(append([]string(nil), sp.notes...), fmt.Sprintf("%s left out to fit the context", numList(leftOut)))
		r.warn(r.pad.turn, "", fmt.Sprintf("to fit the context budget of %d tokens, the prompt shows the first %d of the %d documents found at step %d; %s %s left out (%s)",
			budget, kept, len(sp.docs), sp.step, numList(leftOut), plural.Noun(len(leftOut), "is", "are"), plural.Noun(len(leftOut), "it keeps its number", "they keep their numbers")))
	}
	return est
}
