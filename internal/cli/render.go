package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// textRenderer prints a trajectory for people: one block per step, the
// judge's decision on its own line, the answer and its sources.
type textRenderer struct{}

func clean(s string) string { return textsafe.ForTerminal(s) }

// hang is untrusted multi-line text (model output, the question) printed
// after a label: its second and later lines are indented, so only the
// program's own labels ("Final answer:", "Sources:", "[n] …") start at the
// left margin.
func hang(s string) string { return textsafe.Hang(s, "      ") }

// subHang is hang for text under an indented label ("      explanation: ").
func subHang(s string) string { return textsafe.Hang(s, "        ") }

func badge(source string) string {
	kind, name, _ := strings.Cut(line(source), ":")
	switch kind {
	case "local":
		return "LOCAL " + name
	case "web":
		return "WEB " + name
	}
	return strings.ToUpper(line(source))
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}

func (textRenderer) render(w io.Writer, ev engine.Event) {
	switch ev.Type {
	case engine.EventSession:
		fmt.Fprintf(w, "Question: %s\n", hang(ev.Question))
		if ev.Config != nil {
			c := ev.Config
			fmt.Fprintf(w, "  %s · model %s · %s · %s · k=%d · max steps %d\n",
				c.Strategy, line(c.Model), corporaHeader(c), webHeader(c), c.K, c.MaxSteps)
		}
	case engine.EventThought:
		fmt.Fprintf(w, "\n[%d] Thought: %s\n", ev.Step, hang(ev.Text))
	case engine.EventAction:
		fmt.Fprintf(w, "[%d] Action: %s(%q)\n", ev.Step, line(ev.Tool), clean(ev.Query))
	case engine.EventRetrieval:
		retrievalLine(w, ev)
		for i, d := range ev.Docs {
			fmt.Fprintf(w, "      %d. %s (%.2f)\n", i+1, textsafe.Truncate(line(d.Title), 70), d.Score)
		}
	case engine.EventSelection:
		if ev.Status != nil && *ev.Status {
			fmt.Fprintf(w, "[%d] Judge: local sufficient — %s\n", ev.Step, hang(ev.Analysis))
		} else {
			next := "the next source"
			if ev.NextSource != nil {
				next = line(*ev.NextSource)
			}
			fmt.Fprintf(w, "[%d] Judge: switching to %s — %s\n", ev.Step, next, hang(ev.Analysis))
		}
	case engine.EventObservation:
		fmt.Fprintf(w, "[%d] Observation: %d document(s) from %s", ev.Step, len(ev.DocIDs), badge(ev.Source))
		if len(ev.Discarded) > 0 {
			fmt.Fprintf(w, " (%d local discarded)", len(ev.Discarded))
		}
		fmt.Fprintln(w)
		if ev.Note != "" {
			fmt.Fprintf(w, "      note: %s\n", line(ev.Note))
		}
	case engine.EventAnswer:
		label := ev.Label
		if label == "" {
			label = "unlabelled"
		}
		fmt.Fprintf(w, "\n[%d] Answer (%s): %s\n", ev.Step, line(label), hang(ev.Text))
		if ev.Explanation != "" {
			fmt.Fprintf(w, "      explanation: %s\n", subHang(ev.Explanation))
		}
		if ev.Suggestions != "" {
			fmt.Fprintf(w, "      suggestions: %s\n", subHang(ev.Suggestions))
		}
	case engine.EventSupplement:
		fmt.Fprintf(w, "[%d] Reflection: supplementing with %d document(s) from every source for the original question\n", ev.Step, len(ev.DocIDs))
		if ev.Note != "" {
			fmt.Fprintf(w, "      note: %s\n", line(ev.Note))
		}
	case engine.EventError:
		kind := "warning"
		if ev.Fatal {
			kind = "error"
		}
		fmt.Fprintf(w, "      %s: %s\n", kind, subHang(ev.Message))
	case engine.EventFinal:
		fmt.Fprintln(w, "\n────────")
		status := ""
		if ev.Forced {
			status = " (forced at the step limit)"
		}
		if ev.Cancelled {
			status = " (cancelled; best partial answer)"
		}
		switch answer := strings.TrimSpace(clean(ev.Answer)); {
		case answer == "" && ev.Cancelled:
			fmt.Fprintln(w, "Cancelled before any answer.")
		case answer == "":
			fmt.Fprintf(w, "Final answer%s: none (the model gave no answer)\n", status)
		default:
			fmt.Fprintf(w, "Final answer%s:\n%s\n", status, indent(answer, "  "))
		}
		if len(ev.InvalidCitations) > 0 {
			fmt.Fprintf(w, "  ! cites documents it never saw: %v\n", ev.InvalidCitations)
		}
		sourceList(w, ev)
		if c := ev.Counts; c != nil {
			fmt.Fprintf(w, "LLM calls %d (judge %d) · retrievals local %d, web %d, used %d · tokens in %d (cached %d) out %d · %.1fs\n",
				c.LLMCalls, c.JudgeCalls, c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals,
				c.PromptTokens, c.CachedPromptTokens, c.OutputTokens, float64(c.TotalMillis)/1000)
		}
	}
}

// corporaHeader names the corpora a run searches and why.
func corporaHeader(c *engine.Settings) string {
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
func webHeader(c *engine.Settings) string {
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
