package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// retrievalLine says what a search gave: its documents, or that it was
// blocked, cut or unavailable — never "0 document(s)" for a search that
// failed — and whether the results came from the web cache.
func (r textRenderer) retrievalLine(w io.Writer, ev engine.Event, p engine.Retrieval) {
	q := line(p.Query)
	who := r.badge(p.Source)
	if p.Reflection {
		who = "Reflection search · " + who
	}
	switch {
	case p.Outcome == engine.OutcomeBlocked:
		fmt.Fprintf(w, "[%d] %s: search blocked for %q — no documents\n", ev.Step, who, q)
	case p.Outcome == engine.OutcomeTruncated && len(p.Docs) == 0:
		fmt.Fprintf(w, "[%d] %s: answer truncated at the size limit for %q — no documents could be read\n", ev.Step, who, q)
	case p.Outcome == engine.OutcomeTruncated:
		fmt.Fprintf(w, "[%d] %s: %s for %q — answer truncated, later results lost\n", ev.Step, who, plural.N(len(p.Docs), "document"), q)
	case p.Outcome == engine.OutcomeDegraded:
		fmt.Fprintf(w, "[%d] %s: %s for %q — by words only\n", ev.Step, who, plural.N(len(p.Docs), "document"), q)
	case p.Outcome != "":
		fmt.Fprintf(w, "[%d] %s: unavailable for %q — no documents\n", ev.Step, who, q)
	default:
		fmt.Fprintf(w, "[%d] %s: %s for %q%s\n", ev.Step, who, plural.N(len(p.Docs), "document"), q, cacheMark(p, ev.Time))
	}
}

// cacheMark is " (cached, 3 h old)" when the answer came from the web
// cache, " (cached, no request sent)" for an empty cached answer.
func cacheMark(p engine.Retrieval, at time.Time) string {
	for _, d := range p.Docs {
		if n := d.CacheNote(at); n != "" {
			return " (" + n + ")"
		}
	}
	if p.Cached {
		return " (cached, no request sent)"
	}
	return ""
}

// sourceList prints the final answer's sources with the numbers the
// answer cites them by: the cited ones first, then the rest of the context
// under its own heading, marked as not cited. Under each source, the
// quotes of it that support a claim (evid, when the run had evidence).
func (r textRenderer) sourceList(w io.Writer, at time.Time, p engine.Final, evid *engine.Evidence) {
	if len(p.Sources) == 0 {
		return
	}
	heading := "Sources:"
	if len(p.Citations) == 0 {
		heading = "Documents in the context (the answer cites none):"
	}
	fmt.Fprintln(w, heading)
	for _, ls := range p.SourceList() {
		d, num := ls.Doc, ls.Num
		if ls.FirstUncited {
			fmt.Fprintln(w, "Also in the context, not cited:")
		}
		lead := "  -"
		if num > 0 {
			lead = fmt.Sprintf("  [%d]", num)
		}
		extra := ""
		if n := d.CacheNote(at); n != "" {
			extra = " · " + n
		}
		fmt.Fprintf(w, "%s %s %s %s%s\n", lead, textsafe.Truncate(line(d.Title), 70)+d.PageNote(), r.tag(d.Source), line(d.Ref()), extra)
		quoteLines(w, evid, num)
	}
}

// scoreNote is a retrieved document's score, for a hybrid or dense search
// which legs found it ("0.03 · words #3, meaning #1"), and for a passage
// the title heuristics ranked ahead, why.
func scoreNote(d sources.Document) string {
	s := fmt.Sprintf("%.2f", d.Score)
	if legs := d.LegNote(); legs != "" {
		s = fmt.Sprintf("%.3f · %s", d.Score, legs)
	}
	if note := d.TitleNote(); note != "" {
		s += " · " + note
	}
	return s
}
