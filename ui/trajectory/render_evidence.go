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
// colour when there are colours), elided in the middle when long, and
// under it the claims it supports only weakly.
func (r *Renderer) quotes(ev *engine.Evidence, n, indent, w int) []string {
	if ev == nil || n <= 0 {
		return nil
	}
	var out []string
	pad := strings.Repeat(" ", indent)
	for _, q := range ev.QuotesOf(n) {
		text := textsafe.ElideMiddle(termtext.Line(q.Quote), max(w-indent-4, 8))
		out = append(out, pad+r.st.Query.Render("┃ "+quote(text)))
		for _, c := range ev.WeakFor(q) {
			out = append(out, pad+r.st.Note.Render(truncate("  ~ weak support for: "+termtext.Line(c.Text), max(w-indent, 8))))
		}
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
	for _, ck := range ev.Doubted() {
		out = append(out, r.st.Note.Render(truncate("⚠ the judge model doubts the quotes for: "+termtext.Line(ev.Claims[ck.Claim].Text), w)))
		out = append(out, r.doubtReason(ck, 2, w)...)
	}
	return out
}

// modelCheck is the judge model's check (--verify-claims) of claim i of
// ev (from 0), false when it was not asked about it.
func modelCheck(ev *engine.Evidence, i int) (engine.ClaimCheck, bool) {
	if ev == nil {
		return engine.ClaimCheck{}, false
	}
	return ev.CheckOf(i)
}

// modelCheckLines say the judge model's verdict on a claim's quotes, with
// its reason wrapped under it.
func (r *Renderer) modelCheckLines(ck engine.ClaimCheck, indent, w int) []string {
	pad := strings.Repeat(" ", indent)
	if !ck.Doubt() {
		return []string{r.st.OK.Render(truncate(pad+"✓ the judge model finds the quotes support it", w))}
	}
	return append([]string{r.st.Warn.Render(truncate(pad+"⚠ the judge model doubts the quotes support it", w))}, r.doubtReason(ck, indent+2, w)...)
}

// doubtReason is the judge model's analysis, wrapped and indented.
func (r *Renderer) doubtReason(ck engine.ClaimCheck, indent, w int) []string {
	text := termtext.Line(ck.Analysis)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, l := range wrap(text, max(w-indent, 8)) {
		out = append(out, r.st.Dim.Render(pad+l))
	}
	return out
}
