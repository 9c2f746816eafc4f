package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/styles"
)

// textRenderer prints a trajectory for people: one block per step, the
// judge's decision on its own line, the answer and its sources.
type textRenderer struct {
	// st colours the badges like the TUI's (a terminal); nil is plain.
	st *styles.Styles
	// thread is set when the events are a thread's (sessions show of a
	// session with follow-ups): each turn's counts then name their turn,
	// the first's too. A follow-up's events name their turn anyway.
	thread bool
	// evidence holds the evidence event until the final block (nil: the
	// quotes are not shown).
	evidence *evidenceMemo
}

func clean(s string) string { return textsafe.ForTerminal(s) }

// hang is untrusted multi-line text (model output, the question) printed
// after a label: its second and later lines are indented, so only the
// program's own labels ("Final answer:", "Sources:", "[n] …") start at the
// left margin.
func hang(s string) string { return textsafe.Hang(s, "      ") }

// subHang is hang for text under an indented label ("      explanation: ").
func subHang(s string) string { return textsafe.Hang(s, "        ") }

// badge is a source as plain text: "LOCAL notes", "MCP memory", "WEB
// duckduckgo" (sources' kinds table).
func badge(source string) string {
	text, _ := sources.SourceBadge(line(source))
	return text
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}

// render prints one event; each payload type has its block.
func (r textRenderer) render(w io.Writer, ev engine.Event) {
	step := ev.Step
	switch p := ev.Payload.(type) {
	case engine.SessionStart:
		sessionHeader(w, p)
	case engine.Thought:
		fmt.Fprintf(w, "\n[%d] Thought: %s\n", step, hang(p.Text))
	case engine.Action:
		fmt.Fprintf(w, "[%d] Action: %s(%q)\n", step, line(p.Tool), clean(p.Query))
	case engine.Retrieval:
		r.retrievalLine(w, ev, p)
		for i, d := range p.Docs {
			fmt.Fprintf(w, "      %d. %s (%s)\n", i+1, textsafe.Truncate(line(d.Title), 70)+d.PageNote(), scoreNote(d))
		}
	case engine.Selection:
		r.selectionLine(w, step, p)
	case engine.Observation:
		r.observationLine(w, step, p)
	case engine.Answer:
		r.answerBlock(w, step, p)
	case engine.Supplement:
		fmt.Fprintf(w, "[%d] Reflection: supplementing with %s from every source for the original question\n", step, plural.N(len(p.DocIDs), "document"))
		if p.Note != "" {
			fmt.Fprintf(w, "      note: %s\n", line(p.Note))
		}
	case engine.Notice:
		r.noticeLine(w, ev, p)
	case engine.Final:
		r.finalBlock(w, ev, p)
	case engine.Gate:
		gateLine(w, p)
	case engine.Refinement:
		fmt.Fprintf(w, "[%d] Refinement: observations%s%s cut from %d to %d characters to fit the context\n",
			step, stepList(p.Steps), p.ThreadNote(), p.BeforeChars, p.AfterChars)
	case engine.Rewrite:
		rewriteBlock(w, ev, p)
	case engine.ThreadContext:
		fmt.Fprintf(w, "Thread context: %s\n", p.Summary())
	case engine.Evidence:
		r.keepEvidence(p) // shown by the final block
	case engine.Token:
		// Shown by the streaming printer.
	}
	// A type this build does not know (an engine.Unknown payload) prints
	// nothing.
}

// sessionHeader is the question and the run's settings.
func sessionHeader(w io.Writer, p engine.SessionStart) {
	fmt.Fprintf(w, "Question: %s\n", hang(p.Question))
	if c := p.Config; c != nil {
		// Every part is recorded text (an imported session's too).
		fmt.Fprintf(w, "  %s\n", line(fmt.Sprintf("%s · model %s · %s · %s · k=%d · max steps %d",
			c.Strategy, c.Model, corporaHeader(c), webHeader(c), c.K, c.MaxSteps)))
	}
	if pr := p.Privacy; pr != nil && len(pr.NeverLeave) > 0 {
		fmt.Fprintf(w, "  privacy: %s\n", line(pr.Describe()))
	}
}

// selectionLine is the judge's decision: local sufficient, or the switch
// to the next source (nothing new came back, or not enough).
func (r textRenderer) selectionLine(w io.Writer, step int, p engine.Selection) {
	next := "the next source"
	if p.NextSource != nil {
		next = line(*p.NextSource)
	}
	switch {
	case p.NothingNew:
		fmt.Fprintf(w, "[%d] Nothing new: %s — %s\n", step, r.paint(r.judgeSwitch(), "switching to "+next), hang(p.NothingNewReason()))
	case p.Status != nil && *p.Status:
		fmt.Fprintf(w, "[%d] Judge: %s — %s\n", step, r.paint(r.judgeOK(), "local sufficient"), hang(p.Analysis))
	default:
		fmt.Fprintf(w, "[%d] Judge: %s — %s\n", step, r.paint(r.judgeSwitch(), "switching to "+next), hang(p.Analysis))
	}
}

// observationLine is what entered the reasoning context, and why the web
// was not used when it was wanted.
func (r textRenderer) observationLine(w io.Writer, step int, p engine.Observation) {
	fmt.Fprintf(w, "[%d] Observation: %s from %s", step, plural.N(len(p.DocIDs), "document"), r.badge(p.Source))
	if len(p.Discarded) > 0 {
		fmt.Fprintf(w, " (%d local discarded)", len(p.Discarded))
	}
	fmt.Fprintln(w)
	if p.Note != "" {
		fmt.Fprintf(w, "      note: %s\n", line(p.Note))
	}
}

// answerBlock is an answer with its self-evaluation.
func (r textRenderer) answerBlock(w io.Writer, step int, p engine.Answer) {
	label := p.Label
	if label == "" {
		label = "unlabelled"
	}
	fmt.Fprintf(w, "\n[%d] Answer %s: %s\n", step, r.label(label), hang(p.Text))
	if p.Explanation != "" {
		fmt.Fprintf(w, "      explanation: %s\n", subHang(p.Explanation))
	}
	if p.Suggestions != "" {
		fmt.Fprintf(w, "      suggestions: %s\n", subHang(p.Suggestions))
	}
}

// noticeLine is a warning or an error, with the counts of a run that
// failed.
func (r textRenderer) noticeLine(w io.Writer, ev engine.Event, p engine.Notice) {
	kind := "warning"
	if p.Fatal {
		kind = "error"
	}
	// One line: a server's error text may hold newlines, and its second
	// line must not look like a line of prefrag's own.
	fmt.Fprintf(w, "      %s: %s\n", kind, line(p.Message))
	if p.Fatal && p.Counts != nil {
		fmt.Fprintln(w, "\n────────")
		r.countsLine(w, ev, *p.Counts, " · the run failed")
	}
}

// corporaHeader names the corpora a run searches and why.
func corporaHeader(c *engine.RunConfig) string {
	return corpusPart(c) + mcpPart(c)
}

// mcpPart names the run's MCP servers: " · MCP memory, wiki".
func mcpPart(c *engine.RunConfig) string {
	if len(c.MCP) == 0 {
		return ""
	}
	ids := make([]string, len(c.MCP))
	for i, s := range c.MCP {
		n, _ := sources.ParseName(s)
		ids[i] = n.ID
	}
	return " · MCP " + line(strings.Join(ids, ", "))
}

func corpusPart(c *engine.RunConfig) string {
	if len(c.Corpora) == 0 {
		switch c.CorpusChoice {
		case engine.CorporaNonePinned:
			return "no corpus (none pinned)"
		case engine.CorporaNoneExist:
			return "no corpus (none yet)"
		}
		return "no corpus"
	}
	out := "corpora " + line(strings.Join(c.Corpora, ", "))
	if c.CorpusChoice == engine.CorporaPinned {
		out += " (pinned)"
	}
	return out
}

// webHeader is the web policy in force: without a corpus the web is off
// unless the run opted in.
func webHeader(c *engine.RunConfig) string {
	switch {
	case c.Web == engine.WebNever:
	case len(c.Corpora) == 0 && !c.WebOnly && c.CorpusChoice != "":
		// (CorpusChoice is recorded since the rule exists; older sessions
		// replayed by `sessions show` are shown as they ran.)
		return "web off (no corpus; --web-only not given)"
	case len(c.Corpora) == 0:
		return fmt.Sprintf("web %s (%s), web only", c.Web, c.WebEngine)
	}
	return fmt.Sprintf("web %s (%s)", c.Web, c.WebEngine)
}
