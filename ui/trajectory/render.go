package trajectory

import (
	"fmt"
	"maps"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/ui/internal/termtext"
	"github.com/prefrag/prefrag/ui/styles"
)

// labelWidth is the column where field text starts ("Observation" + 2).
const labelWidth = 13

// previewLines is how many lines of a collapsed document are shown.
const previewLines = 2

// View says what to render.
type View struct {
	Width int
	// Expanded holds the keys of the documents shown in full.
	Expanded map[string]bool
	// Selected is the key of the highlighted document, if any.
	Selected string
	// Upto renders only the first Upto blocks (the stepper); negative means
	// every block.
	Upto int
	// ShowFinal renders the final answer when there is one.
	ShowFinal bool
	// Detail renders the last shown block with everything the stepper
	// explains: the context before it, every retrieved document kept or
	// discarded, and what the judge compared.
	Detail bool
	// Claim is the current claim (none by default): its sentence is
	// marked in its answer, and it is shown under that answer with its
	// verdict. It may be a claim of any turn's answer shown.
	Claim ClaimRef
}

// Output is a rendered trajectory.
type Output struct {
	// Lines are the rendered lines, none wider than the view. The slice is
	// the caller's.
	Lines []string
	// Docs are the keys of the expandable documents, top to bottom.
	Docs []string
	// DocLine is the line each document's title is on.
	DocLine map[string]int
	// BlockLine is the first line of each rendered block.
	BlockLine []int
	// FinalLine is the first line of the final answer, -1 when not shown.
	FinalLine int
	// ClaimLine is the line of the current claim's panel, -1 when not shown.
	ClaimLine int
	// MarkLine is the line the current claim's sentence starts on in its
	// answer, -1 when it is not found there.
	MarkLine int
	// AnswerLine is the first line of each turn's final answer shown (as
	// FinalLine), by turn.
	AnswerLine map[int]int
}

// Renderer renders trajectories. Completed blocks and the answers'
// Markdown are cached by width (and, for an answer, by the claim marked in
// it), so a streaming run only re-renders what changed. A Renderer is not safe for concurrent use.
type Renderer struct {
	st     *styles.Styles
	blocks map[*Block]cachedBlock
	md     *markdown

	// head caches everything above the streaming text.
	headKey headKey
	head    []string
	headOut Output

	// liveWrap caches the wrapped paragraphs of the streaming text that
	// are complete (up to its last newline).
	liveWrap liveCache
	growing  growWrap

	streaming func(string) string
	liveHead  struct {
		title    string
		width    int
		rule     string
		label    string
		labelOut string
	}
}

type headKey struct {
	t                     *Trajectory
	version, width, upto  int
	detail                bool
	selected, expandedSig string
	claim                 ClaimRef
	valid                 bool
}

type liveCache struct {
	width  int
	prefix string
	lines  []string
}

type cachedBlock struct {
	width, version int
	sig            string
	lines          []string
	docs           []string
	docLine        []int
	at             claimAt
}

// claimAt is where a block shows the current claim: its panel and its
// sentence in the answer (lines of the block, -1 for none).
type claimAt struct{ claim, mark int }

var noClaim = claimAt{-1, -1}

// NewRenderer returns a renderer with the given styles.
func NewRenderer(st *styles.Styles) *Renderer {
	r := &Renderer{}
	r.SetStyles(st)
	return r
}

// SetStyles switches styles (light/dark change) and drops the caches.
func (r *Renderer) SetStyles(st *styles.Styles) {
	r.st = st
	r.blocks = map[*Block]cachedBlock{}
	r.md = newMarkdown(st.Glamour)
	r.headKey = headKey{}
	r.liveWrap = liveCache{}
	r.streaming = styler(st.Streaming)
	r.liveHead.title, r.liveHead.label = "", ""
}

// styler returns a function that styles one line like st.Render, without
// lipgloss's per-call layout work: the SGR codes around a probe are reused.
func styler(st lipgloss.Style) func(string) string {
	const probe = "\x00"
	out := st.Render(probe)
	pre, post, ok := strings.Cut(out, probe)
	if !ok {
		return func(s string) string { return st.Render(s) }
	}
	return func(s string) string { return pre + s + post }
}

// Render renders t as v asks.
func (r *Renderer) Render(t *Trajectory, v View) Output {
	w := max(v.Width, 20)
	key := headKey{t: t, version: t.Version(), width: w, upto: v.Upto, detail: v.Detail,
		selected: v.Selected, expandedSig: expandedSig(v.Expanded), claim: v.Claim, valid: true}
	if key != r.headKey {
		r.head, r.headOut = r.renderHead(t, v, w)
		r.headKey = key
	}
	out := r.headOut
	out.FinalLine = -1
	lines := r.head
	var tail []string
	if v.Upto < 0 || v.Upto >= len(t.Blocks) {
		tail = append(tail, r.live(t, w)...)
	}
	if v.ShowFinal && t.Final != nil {
		out.FinalLine = len(lines) + len(tail)
		out.AnswerLine = maps.Clone(out.AnswerLine)
		out.AnswerLine[t.CurrentTurn()] = out.FinalLine
		sel := 0
		if v.Claim.Turn == t.CurrentTurn() {
			sel = v.Claim.N
		}
		fl, mark := r.final(t, sel, w)
		if mark >= 0 {
			out.MarkLine = out.FinalLine + mark
		}
		tail = append(tail, fl...)
		if _, ok := claimOf(t, v.Claim); ok && sel > 0 {
			out.ClaimLine = len(lines) + len(tail) + 1
			tail = append(tail, r.claimPanel(t, v.Claim, w)...)
		}
		for _, e := range t.Errors {
			tail = append(tail, r.errorLines(e, w)...)
		}
	}
	out.Lines = make([]string, 0, len(lines)+len(tail))
	out.Lines = append(out.Lines, lines...)
	out.Lines = append(out.Lines, tail...)
	return out
}

// Content is the output as one string.
func (o Output) Content() string { return strings.Join(o.Lines, "\n") }

func expandedSig(m map[string]bool) string {
	var keys []string
	for k, on := range m {
		if on {
			keys = append(keys, k)
		}
	}
	sortStrings(keys)
	return strings.Join(keys, ";")
}

// renderHead renders the question and the blocks: everything but the
// streaming text and the final answer.
func (r *Renderer) renderHead(t *Trajectory, v View, w int) ([]string, Output) {
	out := Output{DocLine: map[string]int{}, FinalLine: -1, ClaimLine: -1, MarkLine: -1, AnswerLine: map[int]int{}}
	var lines []string
	lines = append(lines, r.question(t, w)...)
	if t.Final == nil {
		for _, e := range t.Errors {
			lines = append(lines, r.errorLines(e, w)...)
		}
	}
	n := len(t.Blocks)
	if v.Upto >= 0 && v.Upto < n {
		n = v.Upto
	}
	for i := 0; i < n; i++ {
		out.BlockLine = append(out.BlockLine, len(lines))
		var bl, docs []string
		var docLine []int
		at := noClaim
		if v.Detail && i == n-1 {
			bl, docs, docLine, at = r.block(t, i, w, v, true)
		} else {
			bl, docs, docLine, at = r.cachedBlock(t, i, w, v)
		}
		if k := answerTurn(t, t.Blocks[i]); k > 0 {
			out.AnswerLine[k] = len(lines)
		}
		if at.claim >= 0 {
			out.ClaimLine = len(lines) + at.claim
		}
		if at.mark >= 0 {
			out.MarkLine = len(lines) + at.mark
		}
		for j, k := range docs {
			out.Docs = append(out.Docs, k)
			out.DocLine[k] = len(lines) + docLine[j]
		}
		lines = append(lines, bl...)
	}
	return lines, out
}

func (r *Renderer) cachedBlock(t *Trajectory, i, w int, v View) ([]string, []string, []int, claimAt) {
	b := t.Blocks[i]
	sig := blockSig(t, i, v)
	if c, ok := r.blocks[b]; ok && c.width == w && c.version == b.Version() && c.sig == sig {
		return c.lines, c.docs, c.docLine, c.at
	}
	lines, docs, docLine, at := r.block(t, i, w, v, false)
	r.blocks[b] = cachedBlock{width: w, version: b.Version(), sig: sig, lines: lines, docs: docs, docLine: docLine, at: at}
	return lines, docs, docLine, at
}

// blockSig is the part of the view state a block's render depends on: which
// of its documents are expanded or selected, and the current claim when
// the block shows its answer.
func blockSig(t *Trajectory, i int, v View) string {
	prefix := fmt.Sprintf("b%d/", i)
	var parts []string
	if k := answerTurn(t, t.Blocks[i]); k > 0 && v.Claim.Turn == k {
		parts = append(parts, fmt.Sprintf("c=%d", v.Claim.N))
	}
	if strings.HasPrefix(v.Selected, prefix) {
		parts = append(parts, "s="+v.Selected)
	}
	for k, on := range v.Expanded {
		if on && strings.HasPrefix(k, prefix) {
			parts = append(parts, k)
		}
	}
	sortStrings(parts)
	return strings.Join(parts, ";")
}

func (r *Renderer) question(t *Trajectory, w int) []string {
	if t.Question == "" {
		return nil
	}
	return r.field("Question", r.st.Bold, termtext.Clean(t.Question), w)
}

// rule is a section header: "── Step 2 ─────…".
func (r *Renderer) rule(title string, w int, current bool) string {
	head := "── " + title + " "
	fill := max(w-ansi.StringWidth(head), 0)
	st := r.st.StepTitle
	if current {
		head = "▶─ " + title + " "
		st = r.st.Current
	}
	return st.Render(head) + r.st.StepRule.Render(strings.Repeat("─", fill))
}

// field renders "Label        text…" with the text wrapped under itself.
func (r *Renderer) field(label string, st lipgloss.Style, text string, w int) []string {
	body := wrap(text, w-labelWidth)
	out := make([]string, 0, len(body))
	for i, l := range body {
		lead := strings.Repeat(" ", labelWidth)
		if i == 0 {
			lead = r.st.FieldLabel.Render(padRight(label, labelWidth))
		}
		out = append(out, lead+st.Render(l))
	}
	return out
}

// labelled puts already-styled text after a label.
func (r *Renderer) labelled(label, first string) string {
	return r.st.FieldLabel.Render(padRight(label, labelWidth)) + first
}

// under renders text wrapped in the field column, without a label.
func (r *Renderer) under(st lipgloss.Style, text string, w int) []string {
	body := wrap(text, w-labelWidth)
	out := make([]string, 0, len(body))
	for _, l := range body {
		out = append(out, strings.Repeat(" ", labelWidth)+st.Render(l))
	}
	return out
}
