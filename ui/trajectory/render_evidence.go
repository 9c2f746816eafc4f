package trajectory

import (
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// quotes renders, under source n, the sentences of it that support a claim
// of the answer: one highlighted line each (a quote bar, and the query
// colour when there are colours), elided in the middle when long.
func (r *Renderer) quotes(ev *engine.Evidence, n, indent, w int) []string {
	if ev == nil || n <= 0 {
		return nil
	}
	var out []string
	pad := strings.Repeat(" ", indent)
	for _, q := range ev.QuotesOf(n) {
		text := textsafe.ElideMiddle(termtext.Line(q.Quote), max(w-indent-4, 8))
		out = append(out, pad+r.st.Query.Render("┃ "+quote(text)))
	}
	return out
}

// unbacked marks the answer's claims without support (none found in the
// sources they cite, or no citation).
func (r *Renderer) unbacked(ev *engine.Evidence, w int) []string {
	if ev == nil {
		return nil
	}
	var out []string
	for _, c := range ev.Unbacked() {
		why := "no source cited"
		if c.Verdict == evidence.Unsupported {
			why = "no support found in the cited source"
		}
		out = append(out, r.st.Note.Render(truncate("⚠ "+why+": "+termtext.Line(c.Text), w)))
	}
	return out
}
