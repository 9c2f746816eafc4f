package trajectory

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// note renders a note block (gate, rewrite, refinement) as one dim field,
// its untrusted text on one line; a note this build cannot read renders
// nothing.
func (r *Renderer) note(b *Block, w int) []string {
	if b.Note == nil {
		return nil
	}
	var label, text string
	switch p := b.Note.Payload.(type) {
	case engine.Gate:
		label, text = "Gate", "answered without retrieval"
		if p.Retrieve {
			text = "retrieval needed"
		}
		if len(p.Queries) > 0 {
			qs := make([]string, len(p.Queries))
			for i, q := range p.Queries {
				qs[i] = quote(termtext.Line(q))
			}
			text += " · " + strings.Join(qs, ", ")
		}
		if a := termtext.Line(p.Analysis); a != "" {
			text += " — " + a
		}
	case engine.Rewrite:
		label, text = "Rewritten", quote(termtext.Line(p.Rewritten))+" (was "+quote(termtext.Line(p.Original))+")"
	case engine.ThreadContext:
		label, text = "Context", p.Summary()
	case engine.Refinement:
		label, text = "Refined", fmt.Sprintf("observations%s cut from %d to %d characters to fit the context", p.ThreadNote(), p.BeforeChars, p.AfterChars)
	default:
		return nil
	}
	return r.field(label, r.st.Dim, text, w)
}
