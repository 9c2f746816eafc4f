package trajectory

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

func (r *Renderer) block(t *Trajectory, i, w int, v View, detail bool) (lines, docs []string, docLine []int, at claimAt) {
	b := t.Blocks[i]
	if lines, at := r.turnStart(t, b, v, w); lines != nil {
		return lines, nil, nil, at
	}
	if b.Kind == KindNote {
		lines = append(lines, "")
		lines = append(lines, r.note(b, w)...)
		fit(lines, w)
		return lines, nil, nil, noClaim
	}
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
			lines = append(lines, r.selection(*it.Selection, w, detail, stayedLocal(b, *it.Selection))...)
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
	return lines, docs, docLine, noClaim
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
	head := r.st.SourceBadge(src) + " " + r.retrievalCount(rt)
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
	if len(rt.Docs) == 0 && sources.IsCorpus(rt.Source) {
		out = append(out, r.under(r.st.Note, "nothing found — the words may not occur in the corpus, or it is empty (Corpora screen, 3)", w)...)
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
		title := termtext.Line(d.DisplayTitle())
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

// stayedLocal reports whether a judge's switch did not happen: the next
// source was never searched (consent denied, the web off) and the step's
// observation came from elsewhere. A switch whose search failed (blocked)
// did happen and is shown as one.
func stayedLocal(b *Block, sel engine.Selection) bool {
	if sel.Status != nil && *sel.Status || b.Observation == nil {
		return false
	}
	target := sources.IsWeb
	if sel.NextSource != nil {
		target = func(src string) bool { return src == *sel.NextSource }
	}
	for _, rt := range b.Retrievals {
		if target(rt.Source) {
			return false
		}
	}
	return !target(b.Observation.Source)
}

func (r *Renderer) selection(e engine.Selection, w int, detail, stayed bool) []string {
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
			if n, ok := sources.ParseName(termtext.Line(*e.NextSource)); ok {
				if n.Kind == sources.KindWeb {
					target = "web (" + n.ID + ")"
				} else {
					target = n.Badge()
				}
			}
		}
		verdict := "⇄ switching to " + target
		if stayed {
			verdict = "✗ local not enough · " + target + " not used"
		}
		label := "Judge"
		if e.NothingNew {
			// No judge was asked: the search brought only documents
			// seen before (or none).
			label, analysis = "Nothing new", termtext.Clean(e.NothingNewReason())
		}
		out = append(out, r.labelled(label, r.st.JudgeSwitch.Render(verdict)))
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
		if e.JudgeRepeated != "" {
			out = append(out, r.under(r.st.FieldLabel, "and was told these came back, obtained before (not new):", w)...)
			out = append(out, r.under(r.st.Dim, termtext.Line(e.JudgeRepeated), w)...)
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
	if b.Observation == nil && b.Supplement != nil && b.Supplement.Note != "" {
		// Why the reflection's web query was not sent (policy, consent,
		// never-leave corpus).
		lines = append(lines, r.under(r.st.Note, "⚠ "+termtext.Clean(b.Supplement.Note), w)...)
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
	title := termtext.Line(d.DisplayTitle())
	if title == "" {
		title = termtext.Line(d.ID)
	}
	lead := fmt.Sprintf("%s%s%d ", mark, arrow, num)
	meta, room := docMeta(d, w-ansi.StringWidth(lead), ansi.StringWidth(title))
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
		if ref := termtext.Line(d.Ref()); ref != "" && d.ID != "" && d.ID != d.URL {
			where = append(where, "id "+ref)
		} else if ref != "" {
			where = append(where, ref)
		}
		if u := termtext.Line(d.URL); u != "" && d.URL != d.ID {
			where = append(where, u)
		}
		if d.Cached {
			where = append(where, cacheWhen(d))
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

// answer renders an Answer event: its label, the answer's Markdown
// rendered as the final answer's is (no raw "**bold**"), the
// self-evaluation's explanation and suggestions.
func (r *Renderer) answer(a engine.Answer, w int) []string {
	out := []string{r.labelled("Answer", r.st.LabelBadge(a.Label))}
	if text := termtext.Clean(a.Text); strings.TrimSpace(text) != "" {
		out = append(out, r.markdownUnder(text, w)...)
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
func (r *Renderer) errorLines(e engine.Notice, w int) []string {
	msg := termtext.Clean(e.Message)
	if src := termtext.Line(e.Source); src != "" {
		msg = sourceLabel(src) + ": " + msg
	}
	if e.Fatal {
		out := r.field("Failed", r.st.Error, "✗ "+msg, w)
		if e.Counts != nil {
			// A failed run's calls and tokens were spent all the same.
			out = append(out, r.field("Counts", r.st.Dim, CountsLine(*e.Counts)+" · the run failed", w)...)
		}
		return out
	}
	return r.field("Warning", r.st.Warn, "⚠ "+msg, w)
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

// docMeta is what follows a document's title on its line (source, cached,
// score) and the room left for the title. The title comes first: the score,
// then the rest of the meta give way before the title is cut.
func docMeta(d sources.Document, avail, titleWidth int) (string, int) {
	src := sourceLabel(termtext.Line(d.Source))
	if d.Cached {
		src += " · cached"
	}
	full := src
	if d.Score != 0 {
		full += fmt.Sprintf(" · %.2f", d.Score)
	}
	for _, note := range []string{d.LegNote(), d.TitleNote()} {
		if note != "" {
			full += " · " + note
		}
	}
	for _, meta := range []string{full, src} {
		if room := avail - ansi.StringWidth(meta) - 2; titleWidth <= room {
			return meta, room
		}
	}
	if room := avail - ansi.StringWidth(full) - 2; room >= 12 && titleWidth > avail {
		// The title is cut anyway: keep the meta whole.
		return full, room
	}
	return "", avail
}

// markdownUnder renders complete Markdown in the field column: the
// renderer's own two-column margin takes the last two columns of the
// label's, and its text fills the column (it wraps 8 columns short of the
// width it is given, as glamour did).
func (r *Renderer) markdownUnder(text string, w int) []string {
	pad := strings.Repeat(" ", labelWidth-2)
	lines := strings.Split(r.md.render(text, max(w-labelWidth+8, 24)), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = ansi.Truncate(pad+l, w, "")
		}
	}
	return lines
}
