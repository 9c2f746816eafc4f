package trajectory

import (
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// retrievalCount is what a search gave, for its head line: a document
// count (with "cached, 3 h old" when the web cache answered), or that it
// was blocked, cut at the size limit or unavailable — never "0 documents"
// for a search that failed.
func (r *Renderer) retrievalCount(rt Retrieval) string {
	switch {
	case rt.Outcome == engine.OutcomeBlocked:
		return r.st.Warn.Render("blocked — no documents")
	case rt.Outcome == engine.OutcomeTruncated && len(rt.Docs) == 0:
		return r.st.Warn.Render("answer truncated — no documents could be read")
	case rt.Outcome == engine.OutcomeTruncated:
		return r.st.Dim.Render(countDocs(len(rt.Docs))) + r.st.Warn.Render(" · answer truncated, later results lost")
	case rt.Outcome == engine.OutcomeDegraded:
		return r.st.Dim.Render(countDocs(len(rt.Docs))) + r.st.Warn.Render(" · by words only")
	case rt.Outcome != "":
		return r.st.Warn.Render("unavailable — no documents")
	}
	s := r.st.Dim.Render(countDocs(len(rt.Docs)))
	for _, d := range rt.Docs {
		if n := d.CacheNote(rt.At); n != "" {
			return s + r.st.Note.Render(" · "+n)
		}
	}
	if rt.Cached {
		return s + r.st.Note.Render(" · cached, no request sent")
	}
	return s
}

// cacheWhen says when a cached document was fetched.
func cacheWhen(d sources.Document) string {
	if d.CachedAt.IsZero() {
		return "from the web cache"
	}
	return "from the web cache, fetched " + d.CachedAt.UTC().Format("2006-01-02 15:04 UTC")
}

// sources lists the final answer's sources with the numbers the answer
// cites them by: cited ones first, then the rest of the context marked as
// not cited. Under a source, the quotes of it that support a claim (ev).
func (r *Renderer) sources(f *engine.Final, ev *engine.Evidence, at time.Time, w int) []string {
	if len(f.Sources) == 0 {
		return nil
	}
	label := "Sources"
	if len(f.Citations) == 0 {
		label = "Sources (none cited)"
	}
	out := []string{r.st.FieldLabel.Render(label)}
	for _, ls := range f.SourceList() {
		d, num := ls.Doc, ls.Num
		if ls.FirstUncited {
			out = append(out, r.st.FieldLabel.Render("Also in the context, not cited"))
		}
		where := termtext.Line(d.Ref())
		if where == "" {
			where = sourceLabel(termtext.Line(d.Source))
		}
		if n := d.CacheNote(at); n != "" {
			where += " · " + n
		}
		title := termtext.Line(d.DisplayTitle())
		if title == "" {
			title = termtext.Line(d.ID)
		}
		lead := "  -   "
		if num > 0 {
			lead = fmt.Sprintf("  [%d] ", num)
		}
		st := r.st.Text
		if !ls.Cited {
			st = r.st.Dim
		}
		out = append(out, lead+st.Render(truncate(title, w-len(lead))))
		out = append(out, strings.Repeat(" ", len(lead))+r.st.Dim.Render(truncate(where, w-len(lead))))
		out = append(out, r.quotes(ev, num, len(lead), w)...)
	}
	return out
}
