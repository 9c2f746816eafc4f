package engine

import (
	"context"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
	"github.com/prefrag/prefrag/sources"
)

// runLoop is the Thought/Action/Observation loop shared by PrefRAG, its
// ablations and the ReAct baselines (DESIGN.md steps 1–8).
func runLoop(ctx context.Context, r *run, m Strategy) error {
	tools := r.tools(m)
	format, err := r.prompts.AnswerFormat(r.settings.AnswerStyle)
	if err != nil {
		return &FatalError{Err: err}
	}
	data := prompts.StepData{Tools: tools, MaxSteps: r.settings.MaxSteps, AnswerFormat: format, Question: r.req.Question, Thread: r.pad.thread}
	if m.Preference {
		data.Preference = r.preferenceSentence()
	}
	if r.pad.head, err = r.prompts.StepHead(data); err != nil {
		return &FatalError{Err: err}
	}
	r.calibrateByTokenizer(ctx, r.pad.head)
	r.refinement.refineOn = m.Refine
	hard := r.settings.MaxSteps + 1
	consumed, err := r.runSeeds(ctx, m, tools)
	if err != nil {
		return err
	}
	reflections := 0
	for consumed < hard {
		r.pad.turn++
		out, err := r.step(ctx)
		if err != nil {
			return err
		}
		if !out.Parseable() {
			// Unrecoverable even after the corrective retry.
			break
		}
		if out.Thought != "" {
			r.emit(Event{Step: r.pad.turn, Payload: Thought{Text: out.Thought, Role: string(llm.PurposeStep)}})
		}
		r.pad.scratch.WriteString(out.Text)
		if out.HasAnswer {
			r.answer(out, string(llm.PurposeStep))
			if m.Reflect && NegativeLabel(out.Label) && reflections < r.settings.MaxReflections {
				reflections++
				r.tally.counts.Reflections++
				if err := r.supplement(ctx); err != nil {
					return err
				}
				continue // a reflection turn does not consume a step
			}
			return nil
		}
		consumed++
		r.emit(Event{Step: r.pad.turn, Payload: Action{Tool: out.Action, Query: out.ActionInput}})
		if err := r.retrieve(ctx, m, out.Action, out.ActionInput); err != nil {
			return err
		}
	}
	return r.forcedAnswer(ctx)
}

// step runs one reasoning call, with one corrective retry for output that
// has neither an action nor an answer.
func (r *run) step(ctx context.Context) (StepOutput, error) {
	resp, err := r.sendFitted(ctx, r.eng.cfg.LLM, r.pad.turn, r.reasoning(ctx, llm.PurposeStep, ""))
	if err != nil {
		return StepOutput{}, err
	}
	out := ParseStep(resp.Text)
	if out.Parseable() {
		return out, nil
	}
	if resp.Truncated() {
		// Cut by the generation limit: a corrective retry would be cut
		// again (or overflow the context). The forced answer follows,
		// with the truncated text in the scratchpad.
		r.pad.scratch.WriteString(out.Text)
		return out, nil
	}
	fix, err := r.prompts.CorrectiveSuffix()
	if err != nil {
		return StepOutput{}, &FatalError{Err: err}
	}
	r.warn(r.pad.turn, "", "the model's reply had neither an action nor an answer; asking once more")
	// Keep the failed reply in the scratchpad so the prompt stays append-only.
	bad := out.Text
	if strings.TrimSpace(bad) == "" {
		bad = "Thought:"
	}
	r.pad.scratch.WriteString(bad + fix)
	resp, err = r.sendFitted(ctx, r.eng.cfg.LLM, r.pad.turn, r.reasoning(ctx, llm.PurposeStep, ""))
	if err != nil {
		return StepOutput{}, err
	}
	out = ParseStep(resp.Text)
	if !out.Parseable() {
		r.pad.scratch.WriteString(out.Text)
		r.warn(r.pad.turn, "", "the model's reply still did not follow the format; asking for the answer directly")
	}
	return out, nil
}

// reasoning builds a reasoning call (a step, or the forced answer with its
// suffix) within the context budget: the scratchpad is fitted to it first
// (refine.go).
func (r *run) reasoning(ctx context.Context, p llm.Purpose, suffix string) func() (llm.Request, error) {
	return func() (llm.Request, error) {
		if err := r.fitBudget(ctx, suffix); err != nil {
			return llm.Request{}, err
		}
		return llm.Request{Purpose: p, Prompt: r.pad.head + r.pad.scratch.String() + suffix, Stop: stepStop, Options: r.options()}, nil
	}
}

func (r *run) answer(out StepOutput, role string) {
	o := sanitizeOutput(out)
	r.outcome.lastAnswer = &o
	r.emit(Event{Step: r.pad.turn, Payload: Answer{Text: out.Answer, Label: out.Label, Explanation: out.Explanation, Suggestions: out.Suggestions, Role: role}})
}

// forcedAnswer asks for the answer from the scratchpad alone.
func (r *run) forcedAnswer(ctx context.Context) error {
	suffix, err := r.prompts.ForcedSuffix()
	if err != nil {
		return &FatalError{Err: err}
	}
	r.pad.turn++
	r.outcome.forced = true
	resp, err := r.sendFitted(ctx, r.eng.cfg.LLM, r.pad.turn, r.reasoning(ctx, llm.PurposeForced, suffix))
	if err != nil {
		return err
	}
	out := ParseStep("Final Answer: " + resp.Text)
	if !out.HasAnswer || out.Answer == "" {
		out.HasAnswer = true
		out.Answer = strings.TrimSpace(resp.Text)
	}
	r.answer(out, string(llm.PurposeForced))
	return nil
}

// tools lists the search tools the step prompt advertises.
func (r *run) tools(m Strategy) []prompts.Tool {
	if m.Retrieval != RetrievalChosen && !r.settings.PerSourceTools {
		return []prompts.Tool{{
			Name:        GenericTool,
			Description: "a general search engine over a knowledge base; use it to look up facts and learn what you need to know",
			Input:       "the phrase or question to search for",
		}}
	}
	var out []prompts.Tool
	for _, s := range r.usable(r.sources.local) {
		out = append(out, prompts.Tool{Name: toolName(s), Description: toolDescription(s), Input: "the phrase or question to search for"})
	}
	for _, s := range r.usable(r.sources.web) {
		out = append(out, prompts.Tool{Name: toolName(s), Description: "searches the public web (" + sourceID(s) + ")", Input: "the phrase or question to search for"})
	}
	if len(out) == 0 {
		return r.tools(Strategy{})
	}
	return out
}

func (r *run) preferenceSentence() string {
	local := r.usable(r.sources.local)
	if len(local) == 0 {
		return ""
	}
	what := "the user's local corpus"
	if local[0].Kind().IsMCP() {
		what = "the user's source \"" + sourceID(local[0]) + "\""
	}
	s := "Prefer " + toolName(local[0]) + ": search " + what + " first"
	if len(r.usable(r.sources.web)) > 0 {
		s += ", and use the web only when the local corpus does not have what you need"
	}
	return s + "."
}

var nonIdent = lazyre.New(`[^A-Za-z0-9]+`)

// toolName is the Search_<name> tool of a source: corpora by name, web
// engines as Search_Web (one web engine) or Search_Web_<engine>.
func toolName(s Source) string {
	if s.Kind() == sources.KindWeb {
		return "Search_Web"
	}
	parts := strings.Fields(nonIdent().ReplaceAllString(sourceID(s), " "))
	for i, p := range parts {
		parts[i] = strings.ToUpper(p[:1]) + p[1:]
	}
	return "Search_" + strings.Join(parts, "_")
}

// toolDescription is how the step prompt describes a corpus's or an MCP
// server's Search_<name> tool.
func toolDescription(s Source) string {
	if s.Kind().IsMCP() {
		return "searches \"" + sourceID(s) + "\", a knowledge source the user connected (an MCP server)"
	}
	return "searches the local corpus \"" + sourceID(s) + "\", curated by the user"
}

// sourceID is the id part of a source's name: the corpus, server or engine.
func sourceID(s Source) string {
	n, _ := sources.ParseName(s.Name())
	return n.ID
}

// sourceForTool maps a tool name back to a source; nil for the generic
// tool or an unknown Search_* name (which falls back to the generic one).
func (r *run) sourceForTool(tool string) Source {
	if strings.EqualFold(tool, GenericTool) {
		return nil
	}
	for _, s := range append(r.usable(r.sources.local), r.usable(r.sources.web)...) {
		if strings.EqualFold(toolName(s), tool) {
			return s
		}
	}
	if strings.EqualFold(tool, "Search_Local") {
		if l := r.usable(r.sources.local); len(l) > 0 {
			return l[0]
		}
	}
	if strings.HasPrefix(strings.ToLower(tool), "search_web") {
		if w := r.usable(r.sources.web); len(w) > 0 {
			return w[0]
		}
	}
	return nil
}
