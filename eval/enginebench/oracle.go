// Package enginebench measures what the engine itself costs: a question is
// run through the real engine with a zero-latency in-process model (the
// Oracle) and in-memory BM25 sources, and everything that is neither the
// model nor retrieval is the engine's overhead. It also measures how much of
// each reasoning prompt repeats the previous one byte for byte (what a
// server's prompt cache can reuse) and counts allocations.
package enginebench

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/llm"
)

// Oracle is a scripted model that knows the gold answers of a question set.
// It plays a plausible PrefRAG trajectory: Hops searches (the question
// first, then the titles of supporting paragraphs), a selection-judge
// verdict that is true when the new documents hold the answer or a
// supporting title not yet seen, and a Final Answer with a Self-Evaluation.
// It answers the gold answer only when a document it was shown contains
// it, and otherwise says "unknown" with the label INCORRECT (which sets off
// PrefRAG's reflection). It is safe for concurrent use.
type Oracle struct {
	items map[string]oracleItem
	hops  int
}

type oracleItem struct {
	gold   string
	titles []string // supporting paragraph titles, for follow-up searches
	known  bool     // answered without documents (oracle_gate.go)
	index  int      // position in the question set
}

// NewOracle builds an oracle for questions; hops < 1 means 1.
func NewOracle(qs []eval.Question, hops int) *Oracle {
	o := &Oracle{items: make(map[string]oracleItem, len(qs)), hops: max(hops, 1)}
	for i, q := range qs {
		it := oracleItem{gold: q.Gold[0], index: i}
		for _, p := range q.Paragraphs {
			if p.Supporting && p.Title != "" {
				it.titles = append(it.titles, p.Title)
			}
		}
		o.items[q.Text] = it
	}
	return o
}

// Unknown is the oracle's answer when the documents do not hold the gold.
const Unknown = "unknown"

// Generate implements engine.LLM with no latency: the reply is computed at
// once, cut at the stop sequences and streamed word by word.
func (o *Oracle) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	text := cutAtStop(o.Reply(req.Prompt, len(req.Schema) > 0), req.Stop)
	if onToken != nil {
		streamWords(text, onToken)
	}
	return llm.Response{Text: text, Model: "oracle", PromptTokens: approxTokens(req.Prompt),
		OutputTokens: approxTokens(text), DoneReason: "stop"}, nil
}

// Reply is the oracle's text for a prompt; judge selects the selection
// judge's JSON verdict.
func (o *Oracle) Reply(prompt string, judge bool) string {
	if text, ok := o.gateReply(prompt, judge); ok {
		return text
	}
	if judge {
		return o.judge(prompt)
	}
	q, it, ok := o.find(prompt, "Question: ")
	if !ok {
		return "Thought: I cannot tell which question this is.\nFinal Answer: " + Unknown +
			"\nSelf-Evaluation: INCORRECT\nExplanation: the question was not recognised."
	}
	evidence := documentText(prompt)
	answer := Unknown
	if containsFold(evidence, it.gold) || (it.known && evidence == "") {
		answer = it.gold
	}
	label, why := "CORRECT", "the documents state it."
	if answer == Unknown {
		label, why = "INCORRECT", "the documents do not give the answer.\nImprovement Suggestions: search again for the missing fact."
	}
	switch {
	case strings.Contains(prompt, "\nReply in exactly this format:"):
		// Single-shot answer prompt (vanilla baselines).
		return "Final Answer: " + answer
	case strings.HasSuffix(strings.TrimRight(prompt, " "), "Final Answer:"):
		// Forced answer: the prompt already ends with the label.
		return " " + answer + "\nSelf-Evaluation: " + label + "\nExplanation: " + why
	}
	scratch := prompt[strings.Index(prompt, "Question: "+q)+len("Question: "+q):]
	searches := strings.Count(scratch, "\nAction:")
	if strings.HasPrefix(scratch, "Action:") {
		searches++
	}
	if searches < o.hops {
		tools := toolNames(prompt)
		tool := tools[searches%len(tools)]
		query := q
		if searches > 0 {
			query = nextTitle(it.titles, evidence, searches, q)
		}
		return "Thought: I need to look this up.\nAction: " + tool + "\nAction Input: " + query + "\n"
	}
	return "Thought: I now know the final answer to the original question\nFinal Answer: " + answer +
		"\nSelf-Evaluation: " + label + "\nExplanation: " + why + "\n"
}

// nextTitle is the follow-up query: the first supporting title not yet
// among the documents shown, else the titles in turn, else the question.
func nextTitle(titles []string, evidence string, searches int, question string) string {
	for _, t := range titles {
		if !containsFold(evidence, "title: "+t+"\n") {
			return t
		}
	}
	if len(titles) == 0 {
		return question
	}
	return titles[(searches-1)%len(titles)]
}

// judge answers the selection judge.
func (o *Oracle) judge(prompt string) string {
	_, it, _ := o.find(prompt, "Original question: ")
	obtained, fresh := prompt, ""
	if i := strings.Index(prompt, "\nNew information:\n"); i >= 0 {
		obtained, fresh = prompt[:i], prompt[i:]
	}
	status := it.gold != "" && containsFold(fresh, it.gold)
	for _, t := range it.titles {
		if !status && containsFold(fresh, "title: "+t+"\n") && !containsFold(obtained, "title: "+t+"\n") {
			status = true
		}
	}
	analysis := "The new documents do not add what is missing."
	if status {
		analysis = "The new documents add facts that help answer the question."
	}
	b, _ := json.Marshal(struct {
		Analysis string `json:"analysis"`
		Status   bool   `json:"status"`
	}{analysis, status})
	return string(b)
}

// find locates the question after a marker at the start of a line.
func (o *Oracle) find(prompt, marker string) (string, oracleItem, bool) {
	for rest, off := prompt, 0; ; {
		i := strings.Index(rest, marker)
		if i < 0 {
			return "", oracleItem{}, false
		}
		start := off + i + len(marker)
		if off+i == 0 || prompt[off+i-1] == '\n' {
			line := prompt[start:]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if it, ok := o.items[strings.TrimSpace(line)]; ok {
				return strings.TrimSpace(line), it, true
			}
		}
		rest, off = prompt[start:], start
	}
}

// documentText keeps the document lines of a prompt ("[n] title: …" and
// "content: …"), which is all the oracle reads its answers from.
func documentText(prompt string) string {
	var b strings.Builder
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimPrefix(line, "Observation: ")
		if strings.HasPrefix(line, "content: ") || (strings.HasPrefix(line, "[") && strings.Contains(line, "] title: ")) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// toolNames reads the tool list of a step prompt ("exactly one of [A, B]").
func toolNames(prompt string) []string {
	const marker = "exactly one of ["
	i := strings.Index(prompt, marker)
	if i < 0 {
		return []string{"Search_Engine"}
	}
	rest := prompt[i+len(marker):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return []string{"Search_Engine"}
	}
	var out []string
	for _, t := range strings.Split(rest[:j], ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return []string{"Search_Engine"}
	}
	return out
}

func containsFold(s, sub string) bool {
	return sub != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func cutAtStop(text string, stop []string) string {
	cut := len(text)
	for _, s := range stop {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && i < cut {
			cut = i
		}
	}
	return text[:cut]
}

// streamWords hands text to onToken in chunks of leading space plus word,
// as servers stream it.
func streamWords(text string, onToken llm.TokenFunc) {
	start, inWord := 0, false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t'
		if space && inWord {
			onToken(text[start:i])
			start, inWord = i, false
		} else if !space {
			inWord = true
		}
	}
	if start < len(text) {
		onToken(text[start:])
	}
}

func approxTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
