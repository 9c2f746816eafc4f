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

func badge(source string) string {
	kind, name, _ := strings.Cut(source, ":")
	switch kind {
	case "local":
		return "LOCAL " + name
	case "web":
		return "WEB " + name
	}
	return strings.ToUpper(source)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}

func (textRenderer) render(w io.Writer, ev engine.Event) {
	switch ev.Type {
	case engine.EventSession:
		fmt.Fprintf(w, "Question: %s\n", clean(ev.Question))
		if ev.Config != nil {
			c := ev.Config
			fmt.Fprintf(w, "  %s · model %s · corpora %s · web %s (%s) · k=%d · max steps %d\n",
				c.Strategy, clean(c.Model), strings.Join(c.Corpora, ", "), c.Web, c.WebEngine, c.K, c.MaxSteps)
		}
	case engine.EventThought:
		fmt.Fprintf(w, "\n[%d] Thought: %s\n", ev.Step, clean(ev.Text))
	case engine.EventAction:
		fmt.Fprintf(w, "[%d] Action: %s(%q)\n", ev.Step, clean(ev.Tool), clean(ev.Query))
	case engine.EventRetrieval:
		fmt.Fprintf(w, "[%d] %s: %d document(s) for %q\n", ev.Step, badge(ev.Source), len(ev.Docs), clean(ev.Query))
		for i, d := range ev.Docs {
			fmt.Fprintf(w, "      %d. %s (%.2f)\n", i+1, clean(textsafe.Truncate(d.Title, 70)), d.Score)
		}
	case engine.EventSelection:
		if ev.Status != nil && *ev.Status {
			fmt.Fprintf(w, "[%d] Judge: local sufficient — %s\n", ev.Step, clean(ev.Analysis))
		} else {
			next := "the next source"
			if ev.NextSource != nil {
				next = *ev.NextSource
			}
			fmt.Fprintf(w, "[%d] Judge: switching to %s — %s\n", ev.Step, next, clean(ev.Analysis))
		}
	case engine.EventObservation:
		fmt.Fprintf(w, "[%d] Observation: %d document(s) from %s", ev.Step, len(ev.DocIDs), badge(ev.Source))
		if len(ev.Discarded) > 0 {
			fmt.Fprintf(w, " (%d local discarded)", len(ev.Discarded))
		}
		fmt.Fprintln(w)
		if ev.Note != "" {
			fmt.Fprintf(w, "      note: %s\n", clean(ev.Note))
		}
	case engine.EventAnswer:
		label := ev.Label
		if label == "" {
			label = "unlabelled"
		}
		fmt.Fprintf(w, "\n[%d] Answer (%s): %s\n", ev.Step, label, clean(ev.Text))
		if ev.Explanation != "" {
			fmt.Fprintf(w, "      explanation: %s\n", clean(ev.Explanation))
		}
		if ev.Suggestions != "" {
			fmt.Fprintf(w, "      suggestions: %s\n", clean(ev.Suggestions))
		}
	case engine.EventSupplement:
		fmt.Fprintf(w, "[%d] Reflection: supplementing with %d document(s) from every source for the original question\n", ev.Step, len(ev.DocIDs))
	case engine.EventError:
		kind := "warning"
		if ev.Fatal {
			kind = "error"
		}
		fmt.Fprintf(w, "      %s: %s\n", kind, clean(ev.Message))
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
		if len(ev.Sources) > 0 {
			fmt.Fprintln(w, "Sources:")
			for _, d := range ev.Sources {
				loc := d.Locator
				if loc == "" {
					loc = d.URL
				}
				fmt.Fprintf(w, "  - %s [%s] %s\n", clean(textsafe.Truncate(d.Title, 70)), badge(d.Source), clean(loc))
			}
		}
		if c := ev.Counts; c != nil {
			fmt.Fprintf(w, "LLM calls %d (judge %d) · retrievals local %d, web %d, used %d · tokens in %d (cached %d) out %d · %.1fs\n",
				c.LLMCalls, c.JudgeCalls, c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals,
				c.PromptTokens, c.CachedPromptTokens, c.OutputTokens, float64(c.TotalMillis)/1000)
		}
	}
}
