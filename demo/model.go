package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/llm"
)

// Model is the scripted model: an in-process stand-in for a model server
// that plays the reasoning model, the selection judge and the follow-up
// rewriter. It follows the script of the sample questions (script.go),
// reading its prompts for the question and the numbered documents; it
// streams its replies word by word, Pace apart.
type Model struct {
	// Pace is the pause between streamed words (0: none).
	Pace time.Duration
}

// The engine's call purposes the model tells apart beyond llm's own.
const (
	purposeRewrite llm.Purpose = "rewrite"
	purposeVerify  llm.Purpose = "verify"
)

// Generate answers one call.
func (m *Model) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	var text string
	switch req.Purpose {
	case llm.PurposeJudge:
		text = judge(req.Prompt, len(req.Schema) > 0)
	case purposeRewrite:
		text = rewrite(req.Prompt)
	case purposeVerify:
		text = `{"claims": []}`
	case llm.PurposeRefine:
		text = refine(req.Prompt)
	default: // step, forced, answer
		text = step(req.Prompt, req.Purpose != llm.PurposeStep)
	}
	if err := m.stream(ctx, text, onToken); err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Text: text, Model: ModelName, PromptTokens: len(req.Prompt) / 4,
		OutputTokens: len(strings.Fields(text)), DoneReason: "stop"}, nil
}

// stream hands text to onToken a word at a time.
func (m *Model) stream(ctx context.Context, text string, onToken llm.TokenFunc) error {
	if onToken == nil {
		return ctx.Err()
	}
	for _, w := range strings.SplitAfter(text, " ") {
		if m.Pace > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(m.Pace):
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		onToken(w)
	}
	return nil
}

// Check, Digest and Model make it a model as the app checks one: it is
// always there.
func (m *Model) Check(context.Context) error            { return nil }
func (m *Model) Digest(context.Context) (string, error) { return "", nil }
func (m *Model) Model() string                          { return ModelName }

// docTitleRE finds the numbered documents of observations and thread
// blocks: "[3] title: Maren Osk".
var docTitleRE = lazyre.New(`\[(\d+)\] title: ([^\n]*)`)

// numbers maps each document title of a prompt to its number.
func numbers(prompt string) map[string]string {
	out := map[string]string{}
	for _, m := range docTitleRE().FindAllStringSubmatch(prompt, -1) {
		out[strings.TrimSpace(m[2])] = m[1]
	}
	return out
}

// questionOf is the question of a step prompt (its last "Question:" line)
// and what follows it: the scratchpad.
func questionOf(prompt string) (question, scratch string) {
	i := strings.LastIndex(prompt, "\nQuestion: ")
	if i < 0 {
		return "", prompt
	}
	rest := prompt[i+len("\nQuestion: "):]
	question, scratch, _ = strings.Cut(rest, "\n")
	return strings.TrimSpace(question), scratch
}

// step is a reasoning step: the next search of the script, or the answer
// once every step's fact is in the context. final asks for the answer now
// (the forced answer, a single-shot call).
func step(prompt string, final bool) string {
	q, scratch := questionOf(prompt)
	// What the model can see: the thread block (before the question) and
	// the scratchpad, white space runs as one space (passages keep their
	// files' line breaks).
	seen := flat(prompt)
	s := sampleFor(q)
	if s == nil {
		return improvise(q, scratch, final)
	}
	for _, st := range s.steps {
		if strings.Contains(seen, st.need) {
			continue
		}
		if final || strings.Count(scratch, "Action Input: "+st.query) >= 2 {
			return partial(s, prompt)
		}
		return fmt.Sprintf("Thought: %s\nAction: Search_Engine\nAction Input: %s", st.thought, st.query)
	}
	return "Thought: I now know the final answer to the original question\nFinal Answer: " + cite(s.answer, numbers(prompt)) +
		"\nSelf-Evaluation: CORRECT\nExplanation: " + s.explanation + "\nImprovement Suggestions: None"
}

// partial is the answer when a step's fact never came: the sentences of
// the answer whose every source is in the context.
func partial(s *sample, prompt string) string {
	nums := numbers(prompt)
	var kept []string
	for _, sentence := range strings.SplitAfter(s.answer, "}.") {
		ok := strings.TrimSpace(sentence) != ""
		for _, m := range citeRE().FindAllStringSubmatch(sentence, -1) {
			_, found := nums[strings.TrimSpace(m[1])]
			ok = ok && found
		}
		if ok {
			kept = append(kept, strings.TrimSpace(sentence))
		}
	}
	answer := "The documents found do not answer the question."
	if len(kept) > 0 {
		answer = cite(strings.Join(kept, " "), nums) + " The rest of the question is not answered by the documents found."
	}
	return "Thought: The searches did not find everything the question needs.\nFinal Answer: " + answer +
		"\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: part of the answer was not found in the documents.\nImprovement Suggestions: search another source."
}

// citeRE is a citation placeholder of an answer: "{Title}".
var citeRE = lazyre.New(`\s*\{([^}]+)\}`)

// cite replaces each {Title} with the document's number, or drops it when
// no document of that title is in the context.
func cite(answer string, nums map[string]string) string {
	return citeRE().ReplaceAllStringFunc(answer, func(m string) string {
		title := strings.TrimSpace(strings.Trim(strings.TrimSpace(m), "{}"))
		if n, ok := nums[title]; ok {
			return " [" + n + "]"
		}
		return ""
	})
}

// improvise is the script for a question it does not know: search it
// once, then say what was found, and that this is a script.
func improvise(q, scratch string, final bool) string {
	if !final && !strings.Contains(scratch, "Action Input:") {
		return "Thought: I am the scripted demo model: I follow a script for the demo's sample questions and only search and quote for others.\nAction: Search_Engine\nAction Input: " + q
	}
	var found []string
	for _, m := range docTitleRE().FindAllStringSubmatch(scratch, 4) {
		found = append(found, fmt.Sprintf("%s [%s]", strings.TrimSpace(m[2]), m[1]))
	}
	answer := "This is the scripted demo model: it answers only its sample questions (press ↑ in an empty question box for them), and a real model is needed for this one."
	if len(found) > 0 {
		answer += " The search found: " + strings.Join(found, "; ") + "."
	}
	return "Thought: I cannot answer this from a script.\nFinal Answer: " + answer +
		"\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: the demo model does not reason; it only quotes the titles it found.\nImprovement Suggestions: run prefrag with a real model (see Set up a model in the README)."
}

// judge is the selection judge: the new documents are useful when they say
// the fact of the first step the documents already obtained do not.
func judge(prompt string, structured bool) string {
	q := between(prompt, "Original question: ", "\n")
	obtained := flat(between(prompt, "Information already obtained:\n", "\nNew information:"))
	fresh := flat(after(prompt, "\nNew information:\n"))
	status, analysis := judgeSample(sampleFor(q), obtained, fresh)
	b, _ := json.Marshal(struct {
		Analysis string `json:"analysis"`
		Status   bool   `json:"status"`
	}{analysis, status})
	return string(b)
}

func judgeSample(s *sample, obtained, fresh string) (bool, string) {
	if s == nil {
		if strings.Contains(fresh, "title: ") {
			return true, "The scripted demo judge keeps whatever the search found for a question outside its script."
		}
		return false, "The search found nothing."
	}
	for _, st := range s.steps {
		if strings.Contains(obtained, st.need) {
			continue
		}
		if strings.Contains(fresh, st.need) {
			return true, st.judgeYes
		}
		return false, st.judgeNo
	}
	return false, "Everything the question needs was already obtained; the new documents add nothing."
}

// rewrite makes a follow-up standalone: the script's rewrite of a known
// follow-up, else the follow-up as typed.
func rewrite(prompt string) string {
	fu := strings.TrimSpace(between(prompt, "Follow-up question: ", "\n"))
	for _, s := range samples {
		for _, f := range s.followUps {
			if f[0] == strings.ToLower(fu) {
				return f[1]
			}
		}
	}
	return fu
}

// contentRE is the first sentence of a document's content.
var contentRE = lazyre.New(`(?m)^content: ([^.]*\.)`)

// refine condenses observations to their documents' first sentences.
func refine(prompt string) string {
	var b strings.Builder
	for _, m := range contentRE().FindAllStringSubmatch(prompt, -1) {
		b.WriteString(m[1] + " ")
	}
	if b.Len() == 0 {
		return "Nothing relevant."
	}
	return strings.TrimSpace(b.String())
}

// flat is s with every run of white space one space.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// between is the text after start up to end ("" without start).
func between(s, start, end string) string {
	rest := after(s, start)
	if i := strings.Index(rest, end); i >= 0 {
		return rest[:i]
	}
	return rest
}

func after(s, start string) string {
	if _, rest, ok := strings.Cut(s, start); ok {
		return rest
	}
	return ""
}
