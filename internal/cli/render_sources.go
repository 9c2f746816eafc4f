package cli

import (
	"fmt"
	"io"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// retrievalLine says what a search gave: its documents, or that it was
// blocked, cut or unavailable — never "0 document(s)" for a search that
// failed — and whether the results came from the web cache.
func retrievalLine(w io.Writer, ev engine.Event) {
	q := line(ev.Query)
	who := badge(ev.Source)
	if ev.Reflection {
		who = "Reflection search · " + who
	}
	switch {
	case ev.Outcome == engine.OutcomeBlocked:
		fmt.Fprintf(w, "[%d] %s: search blocked for %q — no documents\n", ev.Step, who, q)
	case ev.Outcome == engine.OutcomeTruncated && len(ev.Docs) == 0:
		fmt.Fprintf(w, "[%d] %s: answer truncated at the size limit for %q — no documents could be read\n", ev.Step, who, q)
	case ev.Outcome == engine.OutcomeTruncated:
		fmt.Fprintf(w, "[%d] %s: %d document(s) for %q — answer truncated, later results lost\n", ev.Step, who, len(ev.Docs), q)
	case ev.Outcome != "":
		fmt.Fprintf(w, "[%d] %s: unavailable for %q — no documents\n", ev.Step, who, q)
	default:
		fmt.Fprintf(w, "[%d] %s: %d document(s) for %q%s\n", ev.Step, who, len(ev.Docs), q, cacheMark(ev.Docs, ev))
	}
}

// cacheMark is " (cached, 3 h old)" when the documents came from the web
// cache.
func cacheMark(docs []sources.Document, ev engine.Event) string {
	for _, d := range docs {
		if n := d.CacheNote(ev.Time); n != "" {
			return " (" + n + ")"
		}
	}
	return ""
}

// sourceList prints the final answer's sources with the numbers the
// answer cites them by: the cited ones first, then the rest of the context
// under its own heading, marked as not cited.
func sourceList(w io.Writer, ev engine.Event) {
	if len(ev.Sources) == 0 {
		return
	}
	cited := map[int]bool{}
	for _, n := range ev.Citations {
		cited[n] = true
	}
	heading := "Sources:"
	if len(ev.Citations) == 0 {
		heading = "Documents in the context (the answer cites none):"
	}
	fmt.Fprintln(w, heading)
	restHeaded := len(ev.Citations) == 0
	for i, d := range ev.Sources {
		num := 0
		switch {
		case i < len(ev.SourceNums):
			num = ev.SourceNums[i]
		case i < len(ev.Citations):
			num = ev.Citations[i] // sessions stored before source_nums
		}
		if !cited[num] && !restHeaded {
			fmt.Fprintln(w, "Also in the context, not cited:")
			restHeaded = true
		}
		lead := "  -"
		if num > 0 {
			lead = fmt.Sprintf("  [%d]", num)
		}
		extra := ""
		if n := d.CacheNote(ev.Time); n != "" {
			extra = " · " + n
		}
		fmt.Fprintf(w, "%s %s [%s] %s%s\n", lead, textsafe.Truncate(line(d.Title), 70), badge(d.Source), line(d.Ref()), extra)
	}
}
