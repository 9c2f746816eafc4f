package trajectory

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// turnStart renders the rewrite block that opens a follow-up turn: the
// earlier turn's final answer (the trajectory's Final is the latest
// turn's), then the turn's heading, the follow-up as asked and the
// standalone question it was rewritten into. When the current claim is
// one of that answer's, its sentence is marked and its panel follows the
// answer; at says where. It returns nil for any other block.
func (r *Renderer) turnStart(t *Trajectory, b *Block, v View, w int) (out []string, at claimAt) {
	at = noClaim
	if b.Kind != KindNote || b.Note == nil {
		return nil, at
	}
	rw, ok := b.Note.Payload.(engine.Rewrite)
	if !ok {
		return nil, at
	}
	n := max(b.Turn, 2)
	if k := answerTurn(t, b); k > 0 {
		tu := t.Turns[k-1]
		sel := 0
		if v.Claim.Turn == k {
			sel = v.Claim.N
		}
		fl, mark := r.finalOf(tu.Final, tu.Evidence, tu.FinalAt, t.TurnLabel(k), fmt.Sprintf("Final answer · turn %d", k), sel, w)
		if mark >= 0 {
			at.mark = mark
		}
		out = append(out, fl...)
		if _, ok := claimOf(t, v.Claim); ok && sel > 0 {
			at.claim = len(out) + 1
			out = append(out, r.claimPanel(t, v.Claim, w)...)
		}
	}
	head := fmt.Sprintf("══ Turn %d · follow-up ", n)
	out = append(out, "", r.st.Current.Render(head)+r.st.StepRule.Render(repeatRule(w-ansi.StringWidth(head))))
	out = append(out, r.field("Follow-up", r.st.Bold, termtext.Line(rw.Original), w)...)
	label := "Rewritten"
	text := termtext.Line(rw.Rewritten)
	if text == termtext.Line(rw.Original) {
		text += " (unchanged)"
	}
	out = append(out, r.field(label, r.st.Query, text, w)...)
	if p := rw.Privacy; p != nil {
		// What this turn may send off the machine: the thread's privacy
		// where stricter than the turn's own settings.
		style := r.st.Dim
		if len(p.Kept) > 0 || len(p.Loosened) > 0 {
			style = r.st.Warn
		}
		out = append(out, r.field("Privacy", style, termtext.Line(p.Describe()), w)...)
	}
	fit(out, w)
	return out, at
}

func repeatRule(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]rune, n)
	for i := range b {
		b[i] = '═'
	}
	return string(b)
}
