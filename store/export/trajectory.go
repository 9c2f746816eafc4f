package export

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// trajectory writes the appendix: every event the fold kept (what the
// store holds), in order, under a heading per step.
func (r *report) trajectory(b *strings.Builder) {
	b.WriteString("## Appendix: how the answer was found\n\n")
	evs := r.tr.Events
	if len(evs) == 0 {
		b.WriteString("*No steps were recorded for this session.*\n\n")
		return
	}
	step := 0
	for _, ev := range evs {
		p := ev.Payload
		if _, ok := p.(engine.SessionStart); ok {
			continue
		}
		if ev.Step > 0 && ev.Step != step {
			step = ev.Step
			fmt.Fprintf(b, "### Step %d\n\n", step)
		}
		if _, ok := p.(engine.Final); ok && step >= 0 {
			step = -1
			b.WriteString("### Outcome\n\n")
		}
		r.event(b, ev, p)
	}
}

func (r *report) event(b *strings.Builder, ev engine.Event, p engine.Payload) {
	switch p := p.(type) {
	case engine.Thought:
		fmt.Fprintf(b, "**Thought.** %s\n\n", block(p.Text))
	case engine.Action:
		fmt.Fprintf(b, "**Action.** %s with the query “%s”\n\n", codeSpan(p.Tool), inline(p.Query))
	case engine.Retrieval:
		r.retrieval(b, ev.Time, p)
	case engine.Selection:
		r.selection(b, ev.Seq, p)
	case engine.Observation:
		r.observation(b, p)
	case engine.Answer:
		r.selfEvaluated(b, p)
	case engine.Supplement:
		fmt.Fprintf(b, "**Supplement.** The self-evaluation judged the answer weak, so every source was searched again with the original question. Added to the context: %s.\n\n",
			r.docRefs(p.DocIDs, p.DocNums))
	case engine.Final:
		r.outcome(b, p)
	case engine.Notice:
		kind := "Warning"
		if p.Fatal {
			kind = "Error"
		}
		where := ""
		if p.Source != "" {
			where = " (" + inline(p.Source) + ")"
		}
		fmt.Fprintf(b, "**%s%s.** %s\n\n", kind, where, inline(p.Message))
	case engine.Gate:
		r.gate(b, p)
	case engine.Refinement:
		fmt.Fprintf(b, "**Refinement.** To fit the context, the observations%s%s were cut from %d to %d characters.\n\n",
			refinedSteps(p.Steps), p.ThreadNote(), p.BeforeChars, p.AfterChars)
	case engine.ThreadContext:
		fmt.Fprintf(b, "**Thread context.** The follow-up %s.\n\n", inline(p.Summary()))
	case engine.Rewrite:
		fmt.Fprintf(b, "**Question rewritten.** The follow-up “%s” was rewritten as the standalone question “%s”.\n\n",
			inline(p.Original), inline(p.Rewritten))
	case engine.Evidence:
		evidenceNote(b, p)
	case engine.SessionStart, engine.Token:
		// The question heads the report (trajectory skips the event);
		// tokens are never stored.
	default:
		line, _ := ev.MarshalJSON()
		fmt.Fprintf(b, "**%s event.** %s\n\n", inline(ev.Type()), codeSpan(textsafe.ForTerminal(string(line))))
	}
}

func (r *report) retrieval(b *strings.Builder, at time.Time, p engine.Retrieval) {
	if p.Outcome != "" && p.Outcome != engine.OutcomeDegraded && len(p.Docs) == 0 {
		fmt.Fprintf(b, "**Searched %s** for “%s”: %s.\n\n", inline(p.Source), inline(p.Query), failedSearch(p))
		return
	}
	if len(p.Docs) == 0 {
		what := "nothing came back"
		if p.Cached {
			what = "the web cache held an empty answer (no request was sent)"
		}
		what += searchMarks(p)
		fmt.Fprintf(b, "**Searched %s** for “%s”: %s.\n\n", inline(p.Source), inline(p.Query), what)
		return
	}
	noun := "documents"
	if len(p.Docs) == 1 {
		noun = "document"
	}
	fmt.Fprintf(b, "**Searched %s** for “%s”: %d %s%s.\n\n", inline(p.Source), inline(p.Query), len(p.Docs), noun, searchMarks(p))
	for _, d := range p.Docs {
		title := inline(d.DisplayTitle())
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
		if legs := d.LegNote(); legs != "" {
			extra = append(extra, "found by "+legs)
		}
		if note := d.TitleNote(); note != "" {
			extra = append(extra, note)
		}
		if note := d.CacheNote(at); note != "" {
			extra = append(extra, note)
		}
		fmt.Fprintf(b, "- %s — %s\n", title, strings.Join(extra, ", "))
	}
	b.WriteString("\n")
}

func (r *report) selection(b *strings.Builder, seq int, p engine.Selection) {
	src := "the retrieval"
	if p.Source != "" {
		src = inline(p.Source)
	}
	var verdict string
	switch {
	case p.Status != nil && *p.Status:
		verdict = "useful, the documents are kept"
	case p.NextSource != nil && *p.NextSource != "":
		verdict = "not useful, switching to " + inline(*p.NextSource)
	default:
		verdict = "not useful, but there is no other source to switch to"
	}
	if p.NothingNew {
		fmt.Fprintf(b, "**Nothing new from %s: %s.** %s\n\n", src, strings.TrimPrefix(verdict, "not useful, "), block(p.NothingNewReason()))
		return
	}
	fmt.Fprintf(b, "**Selection judge on %s: %s.** %s\n\n", src, verdict, block(p.Analysis))
	if p.JudgeRepeated != "" {
		fmt.Fprintf(b, "*Retrieved again, obtained before (shown to the judge as such, not as new):* %s\n\n", inline(p.JudgeRepeated))
	}
	if v, ok := r.rec.Verdicts[seq]; ok {
		fmt.Fprintf(b, "*Analyst's verdict on this decision: %s.*\n\n", inline(v))
	}
}

func (r *report) observation(b *strings.Builder, p engine.Observation) {
	if len(p.DocIDs) == 0 {
		fmt.Fprintf(b, "**Observation from %s:** no documents.", inline(p.Source))
	} else {
		fmt.Fprintf(b, "**Observation from %s:** %s.", inline(p.Source), r.docRefs(p.DocIDs, p.DocNums))
	}
	if p.Note != "" {
		fmt.Fprintf(b, " *%s*", inline(p.Note))
	}
	b.WriteString("\n\n")
	if len(p.Discarded) > 0 {
		ids := make([]string, len(p.Discarded))
		for i, id := range p.Discarded {
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
			title := inline(r.numbered[nums[i]].DisplayTitle())
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

func (r *report) selfEvaluated(b *strings.Builder, p engine.Answer) {
	what := "Answer"
	if p.Role == "forced" {
		what = "Forced answer"
	}
	label := "no self-evaluation label"
	if p.Label != "" {
		label = "self-evaluated " + inline(p.Label)
	}
	fmt.Fprintf(b, "**%s (%s).** %s\n\n", what, label, block(p.Text))
	if p.Explanation != "" {
		fmt.Fprintf(b, "> *Explanation:* %s\n", quoted(p.Explanation))
	}
	if p.Explanation != "" && p.Suggestions != "" {
		b.WriteString(">\n")
	}
	if p.Suggestions != "" {
		fmt.Fprintf(b, "> *Improvement suggestions:* %s\n", quoted(p.Suggestions))
	}
	if p.Explanation != "" || p.Suggestions != "" {
		b.WriteString("\n")
	}
}

func (r *report) outcome(b *strings.Builder, p engine.Final) {
	fmt.Fprintf(b, "%s\n\n", strings.Join(outcomeParts(p, "The final answer was forced.", inline), " "))
}

// outcomeParts are the sentences that say how a turn ended, shared by the
// Markdown and HTML reports: forced is the sentence for a forced answer,
// text writes the model's label in the report's own escaping.
func outcomeParts(p engine.Final, forced string, text func(string) string) []string {
	var parts []string
	switch {
	case p.Cancelled:
		parts = append(parts, "The run was cancelled.")
	case p.Forced:
		parts = append(parts, forced)
	default:
		parts = append(parts, "The final answer was given by the reasoning model.")
	}
	if p.Label != "" {
		parts = append(parts, "Its self-evaluation: "+text(p.Label)+".")
	}
	if len(p.Citations) > 0 {
		parts = append(parts, "It cites "+numberList(p.Citations)+".")
	}
	return parts
}

func (r *report) settingsTable(b *strings.Builder) {
	rows := settingsRows(r.settings)
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Settings\n\n| setting | value |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", row.Key, cell(row.Value))
	}
	b.WriteString("\n")
}

func (r *report) countsTable(b *strings.Builder) {
	rows := countsRows(r.counts)
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Counts\n\n| measure | value |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", row.Key, row.Value)
	}
	b.WriteString("\n")
}

func ms(n int64) string {
	return (time.Duration(n) * time.Millisecond).Round(100 * time.Millisecond).String()
}
