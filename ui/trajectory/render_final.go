package trajectory

import (
	"fmt"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// live renders the text still streaming in. Paragraphs that are complete
// are wrapped once; only the one still growing is wrapped again.
func (r *Renderer) live(t *Trajectory, w int) []string {
	l := t.Live()
	if l.Text == "" {
		return nil
	}
	var out []string
	last := t.Last()
	if last == nil || l.Step > last.Step || (last.Answer != nil && l.Role != "judge") {
		title := fmt.Sprintf("Step %d", l.Step)
		if l.Role == roleForced {
			title += " · forced answer"
		}
		h := &r.liveHead
		if h.title != title || h.width != w {
			h.title, h.width, h.rule = title, w, r.rule(title, w, false)
		}
		out = append(out, "", h.rule)
	}
	label := "Thinking…"
	if l.Role == "judge" {
		label = "Judging…"
	}
	if r.liveHead.label != label {
		r.liveHead.label = label
		r.liveHead.labelOut = r.st.FieldLabel.Render(padRight(label, labelWidth))
	}
	text := strings.TrimLeft(l.Text, "\n ")
	done, growing := "", text
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		done, growing = text[:i], text[i+1:]
	}
	c := &r.liveWrap
	if c.width != w || c.prefix != done {
		c.width, c.prefix = w, done
		c.lines = c.lines[:0]
		for _, p := range strings.Split(termtext.Clean(done), "\n") {
			if p == "" {
				c.lines = append(c.lines, "")
				continue
			}
			var g growWrap
			c.lines = append(c.lines, g.update(p, w-labelWidth)...)
		}
		if done == "" {
			c.lines = c.lines[:0]
		}
	}
	body := append([]string(nil), c.lines...)
	body = append(body, r.growing.update(termtext.Clean(growing), w-labelWidth)...)
	pad := strings.Repeat(" ", labelWidth)
	for i, line := range body {
		lead := pad
		if i == 0 {
			lead = r.liveHead.labelOut
		}
		out = append(out, lead+r.streaming(line))
	}
	return out
}

// final renders the current turn's final answer with its claim sel
// (1-based, 0 for none) marked; it returns the line the mark starts on
// (-1 without).
func (r *Renderer) final(t *Trajectory, sel, w int) ([]string, int) {
	title := "Final answer"
	if n := len(t.Turns); n > 1 {
		title = fmt.Sprintf("Final answer · turn %d", n)
	}
	return r.finalOf(t.Final, t.Evidence, t.FinalAt, t.Label(), title, sel, w)
}

// finalOf renders a final event under title, with its label, and the
// quotes of its evidence (ev, nil without) under the sources. Claim sel of
// ev (1-based, 0 for none) is marked in the answer; markAt is the line it
// starts on (-1 when not marked).
func (r *Renderer) finalOf(f *engine.Final, ev *engine.Evidence, at time.Time, label, title string, sel, w int) (out []string, markAt int) {
	markAt = -1
	out = []string{"", r.rule(title, w, false)}
	var tags []string
	if l := label; l != "" {
		tags = append(tags, r.st.LabelBadge(l))
	}
	if f.Forced {
		tags = append(tags, r.st.Warn.Render("forced at the step limit"))
	}
	if f.Cancelled {
		tags = append(tags, r.st.Warn.Render("cancelled"))
	}
	if len(tags) > 0 {
		out = append(out, strings.Join(tags, r.st.Dim.Render(" · ")))
	}
	if f.Cancelled && strings.TrimSpace(termtext.Clean(f.Answer)) == "" {
		out = append(out, r.st.Dim.Render("Cancelled before any answer."))
	} else {
		text := termtext.Clean(f.Answer)
		md := r.md.renderMarked(text, w, claimMark(text, ev, sel))
		if md.markLine >= 0 {
			markAt = len(out) + md.markLine
		}
		out = append(out, strings.Split(md.text, "\n")...)
	}
	out = append(out, r.unbacked(ev, w)...)
	out = append(out, r.sources(f, ev, at, w)...)
	if len(f.InvalidCitations) > 0 {
		nums := make([]string, len(f.InvalidCitations))
		for i, n := range f.InvalidCitations {
			nums[i] = fmt.Sprintf("[%d]", n)
		}
		out = append(out, r.st.Note.Render(truncate("⚠ cites documents it never saw: "+strings.Join(nums, " "), w)))
	}
	if f.Counts != nil {
		out = append(out, r.field("Counts", r.st.Dim, CountsLine(*f.Counts), w)...)
	}
	fit(out, w)
	return out, markAt
}

// searchesText is "searches: 1 local, 1 mcp, 0 web, 2 used" (mcp only when
// an MCP server was searched).
func searchesText(c engine.Counts) string {
	mcp := ""
	if c.MCPRetrievals > 0 {
		mcp = fmt.Sprintf("%d mcp, ", c.MCPRetrievals)
	}
	return fmt.Sprintf("searches: %d local, %s%d web, %d used", c.LocalRetrievals, mcp, c.WebRetrievals, c.UsedRetrievals)
}

// CountsLine summarises a session's efficiency figures in one sentence.
func CountsLine(c engine.Counts) string {
	parts := []string{
		fmt.Sprintf("%d LLM calls (%s)", c.LLMCalls, strings.Join(callKinds(c), ", ")),
		searchesText(c),
		fmt.Sprintf("tokens: %s prompt (%s cached), %s generated", plural.Thousands(c.PromptTokens), plural.Thousands(c.CachedPromptTokens), plural.Thousands(c.OutputTokens)),
	}
	if c.TotalMillis > 0 {
		parts = append(parts, fmt.Sprintf("%.1f s", float64(c.TotalMillis)/1000))
	}
	return strings.Join(parts, " · ")
}

// callKinds names the calls counted in LLMCalls besides the reasoning
// steps: the judge's and the forced ones always, the follow-up rewrites and
// the claim checks (--verify-claims) when there were any.
func callKinds(c engine.Counts) []string {
	kinds := []string{fmt.Sprintf("%d judge", c.JudgeCalls), fmt.Sprintf("%d forced", c.ForcedCalls)}
	if c.RewriteCalls > 0 {
		kinds = append(kinds, plural.N(c.RewriteCalls, "rewrite"))
	}
	if c.VerifyCalls > 0 {
		kinds = append(kinds, plural.N(c.VerifyCalls, "claim check"))
	}
	return kinds
}

func (r *Renderer) contextBefore(t *Trajectory, i, w int) []string {
	docs := t.ContextBefore(i)
	if len(docs) == 0 {
		return r.field("In context", r.st.Dim, "the question only — nothing retrieved yet", w)
	}
	var out []string
	for j, cd := range docs {
		num := cd.Num
		if num == 0 {
			num = j + 1
		}
		title := termtext.Line(cd.Doc.DisplayTitle())
		if title == "" {
			title = termtext.Line(cd.Doc.ID)
		}
		text := fmt.Sprintf("[%d] %s — %s", num, title, sourceLabel(termtext.Line(cd.Doc.Source)))
		label := ""
		if j == 0 {
			label = "In context"
		}
		out = append(out, r.st.FieldLabel.Render(padRight(label, labelWidth))+r.st.Dim.Render(truncate(text, w-labelWidth)))
	}
	return out
}

// sourceLabel turns "local:wiki" into "LOCAL wiki" without styling.
func sourceLabel(src string) string {
	n, ok := sources.ParseName(src)
	if !ok {
		return src
	}
	return n.Badge()
}
