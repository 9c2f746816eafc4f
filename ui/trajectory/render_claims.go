package trajectory

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/prefrag/prefrag/evidence"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// verdictText says a claim's (or a citation's) verdict in words.
func verdictText(v evidence.Verdict) string {
	switch v {
	case evidence.Supported:
		return "✓ supported"
	case evidence.Weak:
		return "~ weak support"
	case evidence.Unsupported:
		return "⚠ no support found in the cited source"
	case evidence.Uncited:
		return "⚠ cites no source"
	}
	return string(v)
}

func (r *Renderer) verdictStyle(v evidence.Verdict) lipgloss.Style {
	switch v {
	case evidence.Supported:
		return r.st.OK
	case evidence.Weak:
		return r.st.Note
	}
	return r.st.Warn
}

// claimPanel renders the current claim (ref) under its answer: its turn
// and number, verdict, citations and text, and the key that opens it.
func (r *Renderer) claimPanel(t *Trajectory, ref ClaimRef, w int) []string {
	c, _ := claimOf(t, ref)
	head := "▶ " + ClaimTitle(t, ref)
	line := r.st.Current.Render(head) + r.st.Dim.Render(" · ") + r.verdictStyle(c.Verdict).Render(verdictText(c.Verdict))
	if len(c.Citations) > 0 {
		line += r.st.Dim.Render(" · cites " + citeList(c.Citations))
	}
	out := []string{"", truncate(line, w)}
	for _, l := range wrap(termtext.Line(c.Text), w-2) {
		out = append(out, "  "+r.st.Current.Render(l))
	}
	if _, ev := turnAnswer(t, ref.Turn); ev != nil {
		if ck, ok := modelCheck(ev, ref.N-1); ok {
			out = append(out, r.modelCheckLines(ck, 2, w)...)
		}
	}
	out = append(out, r.st.Dim.Render(truncate("  e: open the cited passage · [ ]: previous/next claim", w)))
	return out
}

func citeList(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	return strings.Join(parts, " ")
}

// Passage is a claim's cited passages, for the passage pager.
type Passage struct {
	// Lines are the rendered lines, none wider than the view.
	Lines []string
	// QuoteLine is the line of the first highlighted quote, -1 without.
	QuoteLine int
}

// Passage renders claim ref (of any turn's answer) with the text of each
// document it cites, the supporting quotes highlighted (their byte offsets
// into the document's text, as the turn's final event carries it). A
// citation without support, a claim without a citation and a cited number
// with no document are said so in place.
func (r *Renderer) Passage(t *Trajectory, ref ClaimRef, w int) Passage {
	out := Passage{QuoteLine: -1}
	c, ok := claimOf(t, ref)
	if !ok {
		return out
	}
	f, ev := turnAnswer(t, ref.Turn)
	lines := []string{r.rule(ClaimTitle(t, ref), w, true)}
	lines = append(lines, r.verdictStyle(c.Verdict).Render(truncate(verdictText(c.Verdict), w)))
	for _, l := range wrap(termtext.Line(c.Text), w) {
		lines = append(lines, r.st.Current.Render(l))
	}
	if ck, ok := modelCheck(ev, ref.N-1); ok {
		lines = append(lines, r.modelCheckLines(ck, 0, w)...)
	}
	if len(c.Citations) == 0 {
		lines = append(lines, "", r.st.Warn.Render(truncate("This claim cites no source: there is no passage to check it against.", w)))
	}
	docs := map[int]sources.Document{}
	for _, ls := range f.SourceList() {
		if ls.Num > 0 {
			docs[ls.Num] = ls.Doc
		}
	}
	for _, n := range c.Citations {
		lines = append(lines, "")
		verdict := citationVerdict(c, n)
		d, ok := docs[n]
		if !ok {
			lines = append(lines, r.st.Warn.Render(truncate(fmt.Sprintf("[%d] is not among the answer's sources: no passage to show.", n), w)))
			continue
		}
		title := termtext.Line(d.DisplayTitle())
		if title == "" {
			title = termtext.Line(d.ID)
		}
		head := r.st.DocTitle.Render(fmt.Sprintf("[%d] %s", n, title)) + r.st.Dim.Render(" — "+sourceLabel(termtext.Line(d.Source))+" · ") +
			r.verdictStyle(verdict).Render(verdictText(verdict))
		lines = append(lines, truncate(head, w))
		var spans [][2]int
		for _, q := range c.Support {
			if q.N == n {
				spans = append(spans, [2]int{q.Start, q.End})
			}
		}
		body, first := r.highlight(d.Text, spans, w)
		if first >= 0 && out.QuoteLine < 0 {
			out.QuoteLine = len(lines) + first
		}
		lines = append(lines, body...)
	}
	fit(lines, w)
	out.Lines = lines
	return out
}

// citationVerdict is the verdict on claim c's citation n.
func citationVerdict(c evidence.Result, n int) evidence.Verdict {
	for _, ct := range c.Cited {
		if ct.N == n {
			return ct.Verdict
		}
	}
	for _, q := range c.Support {
		if q.N == n {
			return c.Verdict
		}
	}
	return evidence.Unsupported
}

// highlight wraps a document's text to w columns with the byte spans
// highlighted (QuoteMark). Spans out of range, reversed or not on rune
// boundaries are dropped; overlapping ones merge. It returns the lines and
// the line the first span starts on (-1 without spans). Every piece goes
// through termtext.Clean: the text is untrusted.
func (r *Renderer) highlight(text string, spans [][2]int, w int) ([]string, int) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var ok [][2]int
	for _, s := range spans {
		if s[0] >= 0 && s[0] < s[1] && s[1] <= len(text) && boundary(text, s[0]) && boundary(text, s[1]) {
			ok = append(ok, s)
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i][0] < ok[j][0] })
	var merged [][2]int
	for _, s := range ok {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	mark := func(seg string) {
		parts := strings.Split(seg, "\n")
		for i, p := range parts {
			if i > 0 {
				b.WriteByte('\n')
			}
			if p != "" {
				b.WriteString(r.st.QuoteMark.Render(p))
			}
		}
	}
	at, first := 0, -1
	for _, s := range merged {
		b.WriteString(termtext.Clean(text[at:s[0]]))
		if first < 0 {
			first = max(len(wrapStyled(b.String(), w))-1, 0)
		}
		mark(termtext.Clean(text[s[0]:s[1]]))
		at = s[1]
	}
	b.WriteString(termtext.Clean(text[at:]))
	return wrapStyled(b.String(), w), first
}

// boundary reports whether byte i of s starts a rune (or is its end).
func boundary(s string, i int) bool { return i == len(s) || utf8.RuneStart(s[i]) }

// wrapStyled word-wraps styled text, carrying the styles over the breaks.
func wrapStyled(s string, w int) []string {
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return nil
	}
	return strings.Split(lipgloss.Wrap(s, max(w, 8), ""), "\n")
}

// Claim is one claim of an answer with its evidence.
type Claim = evidence.Result
