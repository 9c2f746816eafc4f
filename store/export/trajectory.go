package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// trajectory writes the appendix: every stored event, grouped by step.
func (r *report) trajectory(b *strings.Builder) {
	b.WriteString("## Appendix: how the answer was found\n\n")
	evs := r.rec.Events
	if len(evs) == 0 {
		b.WriteString("*No steps were recorded for this session.*\n\n")
		return
	}
	step := 0
	for _, ev := range evs {
		if ev.Type == engine.EventSession {
			continue
		}
		if ev.Step > 0 && ev.Step != step {
			step = ev.Step
			fmt.Fprintf(b, "### Step %d\n\n", step)
		}
		if ev.Type == engine.EventFinal && step >= 0 {
			step = -1
			b.WriteString("### Outcome\n\n")
		}
		r.event(b, ev)
	}
}

func (r *report) event(b *strings.Builder, ev engine.Event) {
	switch ev.Type {
	case engine.EventThought:
		fmt.Fprintf(b, "**Thought.** %s\n\n", block(ev.Text))
	case engine.EventAction:
		fmt.Fprintf(b, "**Action.** %s with the query “%s”\n\n", codeSpan(ev.Tool), inline(ev.Query))
	case engine.EventRetrieval:
		r.retrieval(b, ev)
	case engine.EventSelection:
		r.selection(b, ev)
	case engine.EventObservation:
		r.observation(b, ev)
	case engine.EventAnswer:
		r.selfEvaluated(b, ev)
	case engine.EventSupplement:
		fmt.Fprintf(b, "**Supplement.** The self-evaluation judged the answer weak, so every source was searched again with the original question. Added to the context: %s.\n\n",
			r.docRefs(ev.DocIDs, ev.DocNums))
	case engine.EventFinal:
		r.outcome(b, ev)
	case engine.EventError:
		kind := "Warning"
		if ev.Fatal {
			kind = "Error"
		}
		where := ""
		if ev.Source != "" {
			where = " (" + inline(ev.Source) + ")"
		}
		fmt.Fprintf(b, "**%s%s.** %s\n\n", kind, where, inline(ev.Message))
	default:
		line, _ := ev.MarshalJSON()
		fmt.Fprintf(b, "**%s event.** %s\n\n", inline(ev.Type), codeSpan(textsafe.ForTerminal(string(line))))
	}
}

func (r *report) retrieval(b *strings.Builder, ev engine.Event) {
	if ev.Outcome != "" && len(ev.Docs) == 0 {
		fmt.Fprintf(b, "**Searched %s** for “%s”: %s.\n\n", inline(ev.Source), inline(ev.Query), failedSearch(ev))
		return
	}
	if len(ev.Docs) == 0 {
		fmt.Fprintf(b, "**Searched %s** for “%s”: nothing came back.\n\n", inline(ev.Source), inline(ev.Query))
		return
	}
	noun := "documents"
	if len(ev.Docs) == 1 {
		noun = "document"
	}
	fmt.Fprintf(b, "**Searched %s** for “%s”: %d %s%s.\n\n", inline(ev.Source), inline(ev.Query), len(ev.Docs), noun, searchMarks(ev))
	for _, d := range ev.Docs {
		title := inline(d.Title)
		if title == "" {
			title = "(untitled)"
		}
		extra := []string{}
		if loc := locator(d); loc != "" {
			extra = append(extra, loc)
		} else {
			extra = append(extra, codeSpan(d.ID))
		}
		if d.Score != 0 {
			extra = append(extra, "score "+strconv.FormatFloat(d.Score, 'f', 2, 64))
		}
		if note := d.CacheNote(ev.Time); note != "" {
			extra = append(extra, note)
		}
		fmt.Fprintf(b, "- %s — %s\n", title, strings.Join(extra, ", "))
	}
	b.WriteString("\n")
}

func (r *report) selection(b *strings.Builder, ev engine.Event) {
	src := "the retrieval"
	if ev.Source != "" {
		src = inline(ev.Source)
	}
	var verdict string
	switch {
	case ev.Status != nil && *ev.Status:
		verdict = "useful, the documents are kept"
	case ev.NextSource != nil && *ev.NextSource != "":
		verdict = "not useful, switching to " + inline(*ev.NextSource)
	default:
		verdict = "not useful, but there is no other source to switch to"
	}
	fmt.Fprintf(b, "**Selection judge on %s: %s.** %s\n\n", src, verdict, block(ev.Analysis))
	if v, ok := r.rec.Verdicts[ev.Seq]; ok {
		fmt.Fprintf(b, "*Analyst's verdict on this decision: %s.*\n\n", inline(v))
	}
}

func (r *report) observation(b *strings.Builder, ev engine.Event) {
	if len(ev.DocIDs) == 0 {
		fmt.Fprintf(b, "**Observation from %s:** no documents.", inline(ev.Source))
	} else {
		fmt.Fprintf(b, "**Observation from %s:** %s.", inline(ev.Source), r.docRefs(ev.DocIDs, ev.DocNums))
	}
	if ev.Note != "" {
		fmt.Fprintf(b, " *%s*", inline(ev.Note))
	}
	b.WriteString("\n\n")
	if len(ev.Discarded) > 0 {
		ids := make([]string, len(ev.Discarded))
		for i, id := range ev.Discarded {
			ids[i] = codeSpan(id)
		}
		fmt.Fprintf(b, "Kept out of the context (judged not useful): %s.\n\n", strings.Join(ids, ", "))
	}
}

// docRefs renders documents of the context as "[n] Title" (or their ids when
// they carry no numbers).
func (r *report) docRefs(ids []string, nums []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if i < len(nums) {
			title := inline(r.numbered[nums[i]].Title)
			if title == "" {
				title = codeSpan(id)
			}
			parts[i] = fmt.Sprintf("[%d] %s", nums[i], title)
		} else {
			parts[i] = codeSpan(id)
		}
	}
	return strings.Join(parts, "; ")
}

func (r *report) selfEvaluated(b *strings.Builder, ev engine.Event) {
	what := "Answer"
	if ev.Role == "forced" {
		what = "Forced answer"
	}
	label := "no self-evaluation label"
	if ev.Label != "" {
		label = "self-evaluated " + inline(ev.Label)
	}
	fmt.Fprintf(b, "**%s (%s).** %s\n\n", what, label, block(ev.Text))
	if ev.Explanation != "" {
		fmt.Fprintf(b, "> *Explanation:* %s\n", quoted(ev.Explanation))
	}
	if ev.Explanation != "" && ev.Suggestions != "" {
		b.WriteString(">\n")
	}
	if ev.Suggestions != "" {
		fmt.Fprintf(b, "> *Improvement suggestions:* %s\n", quoted(ev.Suggestions))
	}
	if ev.Explanation != "" || ev.Suggestions != "" {
		b.WriteString("\n")
	}
}

func (r *report) outcome(b *strings.Builder, ev engine.Event) {
	var parts []string
	switch {
	case ev.Cancelled:
		parts = append(parts, "The run was cancelled.")
	case ev.Forced:
		parts = append(parts, "The final answer was forced.")
	default:
		parts = append(parts, "The final answer was given by the reasoning model.")
	}
	if ev.Label != "" {
		parts = append(parts, "Its self-evaluation: "+inline(ev.Label)+".")
	}
	if len(ev.Citations) > 0 {
		parts = append(parts, "It cites "+numberList(ev.Citations)+".")
	}
	fmt.Fprintf(b, "%s\n\n", strings.Join(parts, " "))
}

func (r *report) settingsTable(b *strings.Builder) {
	s := r.settings
	if s == nil {
		return
	}
	b.WriteString("## Settings\n\n| setting | value |\n|---|---|\n")
	row := func(k string, v any) { fmt.Fprintf(b, "| %s | %s |\n", k, cell(fmt.Sprint(v))) }
	row("strategy", s.Strategy)
	row("corpora (preference order)", strings.Join(s.Corpora, ", "))
	row("web policy", s.Web)
	row("web engine", s.WebEngine)
	row("LLM backend", s.LLM)
	if s.LLMURL != "" {
		row("LLM server", redactURL(s.LLMURL))
	}
	row("model", s.Model)
	if s.JudgeModel != "" {
		row("judge model", s.JudgeModel)
	}
	row("documents per retrieval (k)", s.K)
	row("max steps", s.MaxSteps)
	row("max reflections", s.MaxReflections)
	row("judge the first retrieval", s.JudgeFirst)
	row("context window (num_ctx)", s.NumCtx)
	row("temperature", s.Temperature)
	row("top_p", s.TopP)
	if s.Seed != nil {
		row("seed", *s.Seed)
	}
	row("answer style", s.AnswerStyle)
	b.WriteString("\n")
}

func (r *report) countsTable(b *strings.Builder) {
	c := r.counts
	if c == nil || *c == (engine.Counts{}) {
		return
	}
	b.WriteString("## Counts\n\n| measure | value |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }
	row("LLM calls", fmt.Sprintf("%d (reasoning %d, judge %d, forced %d)", c.LLMCalls, c.StepCalls, c.JudgeCalls, c.ForcedCalls))
	row("retrievals", fmt.Sprintf("%d (local %d, web %d)", c.TotalRetrievals(), c.LocalRetrievals, c.WebRetrievals))
	row("retrievals used in the context", fmt.Sprintf("%d (local %d)", c.UsedRetrievals, c.UsedLocalRetrievals))
	row("documents used", strconv.Itoa(c.UsedDocs))
	row("source switches", strconv.Itoa(c.Switches))
	row("reflection supplements", strconv.Itoa(c.Reflections))
	row("prompt tokens", fmt.Sprintf("%d (%d cached)", c.PromptTokens, c.CachedPromptTokens))
	row("output tokens", strconv.Itoa(c.OutputTokens))
	row("time", fmt.Sprintf("%s total (LLM %s, retrieval %s)", ms(c.TotalMillis), ms(c.LLMMillis), ms(c.RetrievalMillis)))
	b.WriteString("\n")
}

func ms(n int64) string {
	return (time.Duration(n) * time.Millisecond).Round(100 * time.Millisecond).String()
}
