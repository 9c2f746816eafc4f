package trajectory

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
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
}

// Renderer renders trajectories. Completed blocks and the final answer's
// Markdown are cached by width, so a streaming run only re-renders what
// changed. A Renderer is not safe for concurrent use.
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
}

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

// Forget drops cached renders of blocks that are not in t.
func (r *Renderer) Forget(t *Trajectory) {
	keep := make(map[*Block]bool, len(t.Blocks))
	for _, b := range t.Blocks {
		keep[b] = true
	}
	for b := range r.blocks {
		if !keep[b] {
			delete(r.blocks, b)
		}
	}
}

// Render renders t as v asks.
func (r *Renderer) Render(t *Trajectory, v View) Output {
	w := max(v.Width, 20)
	key := headKey{t: t, version: t.version, width: w, upto: v.Upto, detail: v.Detail,
		selected: v.Selected, expandedSig: expandedSig(v.Expanded), valid: true}
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
		tail = append(tail, r.final(t, w)...)
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
	out := Output{DocLine: map[string]int{}, FinalLine: -1}
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
		if v.Detail && i == n-1 {
			bl, docs, docLine = r.block(t, i, w, v, true)
		} else {
			bl, docs, docLine = r.cachedBlock(t, i, w, v)
		}
		for j, k := range docs {
			out.Docs = append(out.Docs, k)
			out.DocLine[k] = len(lines) + docLine[j]
		}
		lines = append(lines, bl...)
	}
	return lines, out
}

func (r *Renderer) cachedBlock(t *Trajectory, i, w int, v View) ([]string, []string, []int) {
	b := t.Blocks[i]
	sig := blockSig(i, v)
	if c, ok := r.blocks[b]; ok && c.width == w && c.version == b.version && c.sig == sig {
		return c.lines, c.docs, c.docLine
	}
	lines, docs, docLine := r.block(t, i, w, v, false)
	r.blocks[b] = cachedBlock{width: w, version: b.version, sig: sig, lines: lines, docs: docs, docLine: docLine}
	return lines, docs, docLine
}

// blockSig is the part of the view state a block's render depends on: which
// of its documents are expanded or selected.
func blockSig(i int, v View) string {
	prefix := fmt.Sprintf("b%d/", i)
	var parts []string
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

// indented renders already-styled first-line text after a label, and plain
// continuation text wrapped under it.
func (r *Renderer) labelled(label, first string) string {
	return r.st.FieldLabel.Render(padRight(label, labelWidth)) + first
}

func (r *Renderer) under(st lipgloss.Style, text string, w int) []string {
	body := wrap(text, w-labelWidth)
	out := make([]string, 0, len(body))
	for _, l := range body {
		out = append(out, strings.Repeat(" ", labelWidth)+st.Render(l))
	}
	return out
}

func (r *Renderer) block(t *Trajectory, i, w int, v View, detail bool) (lines, docs []string, docLine []int) {
	b := t.Blocks[i]
	title := fmt.Sprintf("Step %d", b.Step)
	if b.Kind == KindSupplement {
		title = "Reflection supplement"
	} else if b.ThoughtRole == roleForced || (b.Answer != nil && b.Answer.Role == roleForced) {
		title = fmt.Sprintf("Step %d · forced answer", b.Step)
	}
	lines = append(lines, "", r.rule(title, w, detail))
	if detail {
		lines = append(lines, r.contextBefore(t, i, w)...)
	}
	if b.Kind == KindSupplement {
		lines = append(lines, r.field("Why", r.st.Dim, "the answer was judged weak: search every source again with the question itself", w)...)
		if q := supplementQuery(b); q != "" {
			lines = append(lines, r.field("Query", r.st.Query, quote(q), w)...)
		}
	}
	if b.Thought != "" {
		lines = append(lines, r.field("Thought", r.st.Text, termtext.Clean(b.Thought), w)...)
	}
	if b.HasAction {
		tool := termtext.Line(b.Tool)
		if tool == "" {
			tool = "Search"
		}
		q := termtext.Line(b.Query)
		lines = append(lines, r.labelled("Action", r.st.Bold.Render(tool)+" "+r.st.Query.Render(truncate(quote(q), w-labelWidth-len(tool)-1))))
	}
	var seenBefore map[string]bool
	if detail {
		seenBefore = map[string]bool{}
		for _, cd := range t.ContextBefore(i) {
			seenBefore[cd.Doc.ID] = true
		}
	}
	for _, it := range b.Trace {
		switch {
		case it.Retrieval != nil:
			lines = append(lines, r.retrieval(b, *it.Retrieval, w, detail, seenBefore)...)
		case it.Selection != nil:
			lines = append(lines, r.selection(*it.Selection, w, detail)...)
		case it.Error != nil:
			lines = append(lines, r.errorLines(*it.Error, w)...)
		}
	}
	if b.Observation != nil || b.Supplement != nil {
		l, d, dl := r.observation(t, i, w, v)
		for j := range d {
			dl[j] += len(lines)
		}
		lines = append(lines, l...)
		docs, docLine = d, dl
	}
	if b.Answer != nil {
		lines = append(lines, r.answer(*b.Answer, w)...)
	}
	for _, e := range b.Errors {
		lines = append(lines, r.errorLines(e, w)...)
	}
	fit(lines, w)
	return lines, docs, docLine
}

// fit cuts every line to w columns; wrapping keeps text within the width,
// this catches composed lines (badges, counts) on very narrow terminals.
func fit(lines []string, w int) {
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "…")
		}
	}
}

// supplementQuery is the query of a reflection supplement: the question.
func supplementQuery(b *Block) string {
	if b.Supplement != nil && b.Supplement.Query != "" {
		return termtext.Line(b.Supplement.Query)
	}
	if len(b.Retrievals) > 0 {
		return termtext.Line(b.Retrievals[0].Query)
	}
	return ""
}

func (r *Renderer) retrieval(b *Block, rt Retrieval, w int, detail bool, seenBefore map[string]bool) []string {
	src := termtext.Line(rt.Source)
	head := r.st.SourceBadge(src) + " " + r.st.Dim.Render(countDocs(len(rt.Docs)))
	shown := termtext.Line(b.Query)
	if b.Kind == KindSupplement {
		shown = supplementQuery(b)
	}
	if q := termtext.Line(rt.Query); q != "" && q != shown {
		room := w - labelWidth - ansi.StringWidth(head) - 3
		if room > 8 {
			head += r.st.Dim.Render(" · ") + r.st.Query.Render(truncate(quote(q), room))
		}
	}
	out := []string{r.labelled("Search", head)}
	if len(rt.Docs) == 0 && strings.HasPrefix(rt.Source, "local:") {
		out = append(out, r.under(r.st.Note, "nothing found — the corpus may be empty; add files on the Corpora screen (3)", w)...)
	}
	if !detail {
		return out
	}
	used := map[string]bool{}
	if b.Observation != nil {
		for _, id := range b.Observation.DocIDs {
			used[id] = true
		}
	}
	if b.Supplement != nil {
		for _, id := range b.Supplement.DocIDs {
			used[id] = true
		}
	}
	decided := b.Observation != nil || b.Supplement != nil
	for _, d := range rt.Docs {
		title := termtext.Line(d.Title)
		if title == "" {
			title = termtext.Line(d.ID)
		}
		var mark, note string
		st := r.st.Text
		switch {
		case used[d.ID] && (b.Observation == nil || b.Observation.Source == rt.Source || b.Supplement != nil):
			mark = r.st.OK.Render("✓ kept       ")
		case !decided:
			mark = r.st.Dim.Render("· pending    ")
		case b.Kind == KindSupplement && seenBefore[d.ID]:
			mark = r.st.Dim.Render("= in context ")
			st = r.st.Dim
		default:
			mark = r.st.Error.Render("✗ discarded  ")
			st = r.st.Discarded
			if seenBefore[d.ID] {
				note = r.st.Dim.Render(" (seen before)")
			}
		}
		room := w - labelWidth - 13 - ansi.StringWidth(note)
		out = append(out, strings.Repeat(" ", labelWidth)+mark+st.Render(truncate(title, room))+note)
	}
	return out
}

func (r *Renderer) selection(e engine.Event, w int, detail bool) []string {
	var out []string
	analysis := termtext.Clean(e.Analysis)
	if e.Status != nil && *e.Status {
		out = append(out, r.labelled("Judge", r.st.JudgeOK.Render("✓ local sufficient")))
		if analysis != "" {
			out = append(out, r.under(r.st.Dim, analysis, w)...)
		}
	} else {
		target := "web"
		if e.NextSource != nil {
			ns := termtext.Line(*e.NextSource)
			if kind, name, ok := strings.Cut(ns, ":"); ok {
				if kind == "web" {
					target = "web (" + name + ")"
				} else {
					target = strings.ToUpper(kind) + " " + name
				}
			}
		}
		out = append(out, r.labelled("Judge", r.st.JudgeSwitch.Render("⇄ switching to "+target)))
		if analysis != "" {
			out = append(out, r.under(r.st.JudgeSwitch.UnsetBold(), analysis, w)...)
		}
	}
	if detail {
		if e.JudgeObtained != "" {
			out = append(out, r.under(r.st.FieldLabel, "The judge compared what was already observed:", w)...)
			out = append(out, r.under(r.st.Dim, excerpt(termtext.Clean(e.JudgeObtained), 8, w-labelWidth), w)...)
		}
		if e.JudgeNew != "" {
			out = append(out, r.under(r.st.FieldLabel, "with the new documents:", w)...)
			out = append(out, r.under(r.st.Dim, excerpt(termtext.Clean(e.JudgeNew), 8, w-labelWidth), w)...)
		}
	}
	return out
}

func (r *Renderer) observation(t *Trajectory, i, w int, v View) (lines, docs []string, docLine []int) {
	b := t.Blocks[i]
	observed := t.ObservedDocs(b)
	var head string
	var nums []int
	section := "obs"
	if b.Observation != nil {
		o := b.Observation
		nums = o.DocNums
		src := termtext.Line(o.Source)
		if src != "" {
			head = r.st.SourceBadge(src) + " "
		}
		head += r.st.Text.Render(countDocs(len(observed)) + " in context")
		if d := t.Discarded(b); len(d) > 0 {
			head += r.st.Dim.Render(fmt.Sprintf(" · %d discarded by the switch", len(d)))
		}
	} else {
		s := b.Supplement
		section = "sup"
		nums = s.DocNums
		head = r.st.Text.Render(countDocs(len(observed)) + " in context")
		var srcs []string
		for _, rt := range b.Retrievals {
			srcs = append(srcs, sourceLabel(termtext.Line(rt.Source)))
		}
		if len(srcs) > 0 {
			head += r.st.Dim.Render(" · from " + strings.Join(srcs, " + "))
		}
	}
	lines = append(lines, r.labelled("Observation", head))
	if b.Observation != nil && b.Observation.Note != "" {
		lines = append(lines, r.under(r.st.Note, "⚠ "+termtext.Clean(b.Observation.Note), w)...)
	}
	for j, d := range observed {
		key := fmt.Sprintf("b%d/%s/%d", i, section, j)
		num := j + 1
		if j < len(nums) && nums[j] > 0 {
			num = nums[j]
		}
		docs = append(docs, key)
		docLine = append(docLine, len(lines))
		lines = append(lines, r.doc(d, num, w, v.Expanded[key], v.Selected == key)...)
	}
	return lines, docs, docLine
}

// doc renders one document: its title line, then its first lines or, when
// expanded, its whole text.
func (r *Renderer) doc(d sources.Document, num, w int, expanded, selected bool) []string {
	mark, arrow := "  ", "▸ "
	if selected {
		mark = "› "
	}
	if expanded {
		arrow = "▾ "
	}
	title := termtext.Line(d.Title)
	if title == "" {
		title = termtext.Line(d.ID)
	}
	meta := sourceLabel(termtext.Line(d.Source))
	if d.Score != 0 {
		meta += fmt.Sprintf(" · %.2f", d.Score)
	}
	lead := fmt.Sprintf("%s%s%d ", mark, arrow, num)
	room := w - ansi.StringWidth(lead) - ansi.StringWidth(meta) - 2
	if room < 12 {
		meta, room = "", w-ansi.StringWidth(lead)
	}
	title = truncate(title, room)
	gap := max(w-ansi.StringWidth(lead)-ansi.StringWidth(title)-ansi.StringWidth(meta), 1)
	tst := r.st.DocTitle
	if selected {
		tst = r.st.DocSelected
	}
	out := []string{tst.Render(lead+title) + strings.Repeat(" ", gap) + r.st.DocMeta.Render(meta)}
	const indent = 6
	pad := strings.Repeat(" ", indent)
	text := termtext.Clean(d.Text)
	if expanded {
		var where []string
		if id := termtext.Line(d.ID); id != "" && d.ID != d.URL {
			where = append(where, "id "+id)
		}
		if u := termtext.Line(d.URL); u != "" {
			where = append(where, u)
		} else if l := termtext.Line(d.Locator); l != "" {
			where = append(where, l)
		}
		if len(where) > 0 {
			for _, l := range wrap(strings.Join(where, " · "), w-indent) {
				out = append(out, pad+r.st.DocMeta.Render(l))
			}
		}
		for _, l := range wrap(text, w-indent) {
			out = append(out, pad+r.st.Text.Render(l))
		}
		return out
	}
	flat := strings.Join(strings.Fields(text), " ")
	if flat == "" {
		return out
	}
	body := wrap(flat, w-indent)
	if len(body) > previewLines {
		body = body[:previewLines]
		body[previewLines-1] = truncate(body[previewLines-1]+" …", w-indent)
	}
	for _, l := range body {
		out = append(out, pad+r.st.DocText.Render(l))
	}
	return out
}

func (r *Renderer) answer(a engine.Event, w int) []string {
	out := []string{r.labelled("Answer", r.st.LabelBadge(a.Label))}
	if text := termtext.Clean(a.Text); text != "" {
		out = append(out, r.under(r.st.Bold, text, w)...)
	}
	if e := termtext.Clean(a.Explanation); e != "" {
		out = append(out, r.field("Explanation", r.st.Dim, e, w)...)
	}
	if s := termtext.Clean(a.Suggestions); s != "" {
		out = append(out, r.field("Suggestions", r.st.Dim, s, w)...)
	}
	return out
}

// errorLines renders an error event: a fatal one ended the run, any other
// is a warning the run went on after (a blocked web search, a reply that
// needed a second try).
func (r *Renderer) errorLines(e engine.Event, w int) []string {
	msg := termtext.Clean(e.Message)
	if src := termtext.Line(e.Source); src != "" {
		msg = sourceLabel(src) + ": " + msg
	}
	if e.Fatal {
		return r.field("Failed", r.st.Error, "✗ "+msg, w)
	}
	return r.field("Warning", r.st.Warn, "⚠ "+msg, w)
}

// live renders the text still streaming in. Paragraphs that are complete
// are wrapped once; only the one still growing is wrapped again.
func (r *Renderer) live(t *Trajectory, w int) []string {
	l := t.Live()
	if l.Text == "" {
		return nil
	}
	var out []string
	last := t.last()
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

func (r *Renderer) final(t *Trajectory, w int) []string {
	f := t.Final
	title := "Final answer"
	out := []string{"", r.rule(title, w, false)}
	var tags []string
	if l := t.Label(); l != "" {
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
	md := r.md.render(termtext.Clean(f.Answer), w)
	out = append(out, strings.Split(md, "\n")...)
	if len(f.Sources) > 0 {
		out = append(out, r.st.FieldLabel.Render("Sources"))
		for i, d := range f.Sources {
			num := i + 1
			if i < len(f.Citations) && f.Citations[i] > 0 {
				num = f.Citations[i]
			}
			where := termtext.Line(d.URL)
			if where == "" {
				where = termtext.Line(d.Locator)
			}
			if where == "" {
				where = sourceLabel(termtext.Line(d.Source))
			}
			title := termtext.Line(d.Title)
			if title == "" {
				title = termtext.Line(d.ID)
			}
			lead := fmt.Sprintf("  [%d] ", num)
			line := lead + r.st.Text.Render(truncate(title, w-len(lead)))
			out = append(out, line)
			out = append(out, strings.Repeat(" ", len(lead))+r.st.Dim.Render(truncate(where, w-len(lead))))
		}
	}
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
	return out
}

// CountsLine summarises a session's efficiency figures in one sentence.
func CountsLine(c engine.Counts) string {
	parts := []string{
		fmt.Sprintf("%d LLM calls (%d judge, %d forced)", c.LLMCalls, c.JudgeCalls, c.ForcedCalls),
		fmt.Sprintf("searches: %d local, %d web, %d used", c.LocalRetrievals, c.WebRetrievals, c.UsedRetrievals),
		fmt.Sprintf("tokens: %s prompt (%s cached), %s generated", thousands(c.PromptTokens), thousands(c.CachedPromptTokens), thousands(c.OutputTokens)),
	}
	if c.TotalMillis > 0 {
		parts = append(parts, fmt.Sprintf("%.1f s", float64(c.TotalMillis)/1000))
	}
	return strings.Join(parts, " · ")
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
		title := termtext.Line(cd.Doc.Title)
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
	kind, name, ok := strings.Cut(src, ":")
	if !ok {
		return src
	}
	return strings.ToUpper(kind) + " " + name
}

// Documents renders a plain list of documents (search results) the way an
// observation shows them: numbered from 1, collapsed to their first lines
// unless expanded. It returns the lines and the line of each title.
func (r *Renderer) Documents(docs []sources.Document, width int, expanded map[int]bool, selected int) (lines []string, docLine []int) {
	w := max(width, 20)
	for i, d := range docs {
		docLine = append(docLine, len(lines))
		lines = append(lines, r.doc(d, i+1, w, expanded[i], i == selected)...)
	}
	fit(lines, w)
	return lines, docLine
}
