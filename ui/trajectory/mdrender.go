package trajectory

import (
	stdhtml "html"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"golang.org/x/net/html"
)

// This file renders an answer's Markdown for the terminal with goldmark's
// parser and our own layout, in the look of glamour's standard styles (a
// two-column margin, "## " headings, "• " bullets, "│ " quotes). It replaced
// glamour so that chroma (glamour's code highlighter, whose lexer and style
// registries cost ~20 ms at every start of the binary) is not linked: code
// blocks are shown in one colour instead of highlighted.

// mdTheme is how each Markdown element looks: SGR parameters ("" plain) and
// the few layout choices that differ between the colour and no-colour looks.
type mdTheme struct {
	text, heading, h1, h6, strong, emph, strike, code, codeBlock string
	link, linkText, image, imageText, hr, item                   string
	// h1Pad shows a level-1 heading as " Title " (on a background) rather
	// than "# Title".
	h1Pad bool
	// codeWrap surrounds inline code: a no-break space or nothing.
	codeWrap string
	// strikeWrap surrounds struck-out text where it cannot be crossed out.
	strikeWrap       string
	listIndent       int
	quoteToken       string
	ticked, unticked string
	tableSep         string
	// defMark starts a definition list's description.
	defMark string
	// claim marks the current claim's sentence in an answer; claimWarn
	// marks it when it has no support (mdmark.go).
	claim, claimWarn string
}

func mdThemeFor(name string) mdTheme {
	t := mdTheme{
		strong: "1", emph: "3", strike: "9", item: "",
		h1Pad: true, codeWrap: "\u00a0", listIndent: 2, quoteToken: "│ ",
		ticked: "[✓] ", unticked: "[ ] ", tableSep: "│", defMark: "🠶 ",
		claim: "1;7", claimWarn: "1;4;38;5;221",
	}
	switch name {
	case "notty":
		// No colour, but text attributes: NO_COLOR forbids colour, not bold
		// or italics.
		t.strike = ""
		t.heading = "1"
		t.h1Pad, t.codeWrap, t.strikeWrap = false, "", "~~"
		t.listIndent, t.quoteToken = 4, "| "
		t.ticked, t.tableSep, t.defMark = "[x] ", "|", "* "
		t.claimWarn = "1;4"
	case "light":
		t.text, t.heading, t.h1, t.h6 = "38;5;234", "1;38;5;27", "1;38;5;228;48;5;63", "38;5;27"
		t.code, t.codeBlock = "38;5;203;48;5;254", "38;5;242"
		t.link, t.linkText, t.image, t.imageText, t.hr = "4;38;5;36", "1;38;5;29", "4;38;5;205", "38;5;243", "38;5;249"
		t.claimWarn = "1;4;38;5;130"
	default: // dark
		t.text, t.heading, t.h1, t.h6 = "38;5;252", "1;38;5;39", "1;38;5;228;48;5;63", "38;5;35"
		t.code, t.codeBlock = "38;5;203;48;5;236", "38;5;244"
		t.link, t.linkText, t.image, t.imageText, t.hr = "4;38;5;30", "1;38;5;35", "4;38;5;212", "38;5;243", "38;5;240"
	}
	return t
}

// sgr styles s with the SGR parameters p (none when p is empty).
func sgr(p, s string) string {
	if p == "" || s == "" {
		return s
	}
	return "\x1b[" + p + "m" + s + "\x1b[m"
}

// mdRenderer renders one document for one width.
type mdRenderer struct {
	th  mdTheme
	src []byte
	// inCell is set while a table cell is rendered: there "\|" in a code
	// span stands for "|" (GFM).
	inCell bool
	// mark is the span of the source shown marked (mdmark.go).
	mark markState
}

// renderMarkdown renders src for width columns: every line starts with a
// two-column margin and text wraps at width-8 columns (at least 12), as
// glamour did with a word wrap of width-4; code blocks and tables are not
// wrapped here.
func renderMarkdown(th mdTheme, src string, width int, mark mdMark) string {
	r := &mdRenderer{th: th, src: []byte(src)}
	r.setMark(mark)
	lines := r.blocks(parseMarkdown(r.src), max(width-4, 16)-4)
	for i, l := range lines {
		lines[i] = strings.TrimRight("  "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// blocks renders the block children of n for width columns, a blank line
// between blocks.
func (r *mdRenderer) blocks(n ast.Node, width int) []string {
	var out []string
	tight := false // the previous block was HTML: no blank line
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width)
		if b == nil {
			continue
		}
		_, isHTML := c.(*ast.HTMLBlock)
		if len(out) > 0 && !isHTML && !tight {
			out = append(out, "")
		}
		tight = isHTML
		out = append(out, b...)
	}
	return out
}

func (r *mdRenderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		return r.heading(n, width)
	case *ast.Paragraph, *ast.TextBlock:
		return r.wrap(r.inlines(n, r.th.text), width)
	case *ast.List:
		return r.list(n, width)
	case *ast.Blockquote:
		return r.quote(n, width)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n)
	case *ast.ThematicBreak:
		return []string{sgr(r.th.hr, "--------")}
	case *ast.HTMLBlock:
		return r.htmlBlock(n)
	case *mdTable:
		return r.table(n, width)
	case *mdDefList:
		return r.definitions(n, width)
	}
	return r.blocks(n, width)
}

// wrap word-wraps styled text; explicit line breaks are kept.
func (r *mdRenderer) wrap(s string, width int) []string { return wrapAt(s, width, "") }

// listBreaks are where list items may also break, as glamour broke them
// (a line may then end one column past the width with its punctuation).
const listBreaks = " ,.;-+|"

func wrapAt(s string, width int, breaks string) []string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(ansi.Strip(s)) == "" {
		return nil
	}
	lines := strings.Split(lipgloss.Wrap(keepClusters(s), width, breaks), "\n")
	// Text that fills the last line exactly leaves an empty line behind,
	// holding only the styles that were open: it is no line of the text.
	for len(lines) > 1 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func (r *mdRenderer) heading(n *ast.Heading, width int) []string {
	st, body := r.th.heading, r.inlines(n, "")
	switch {
	case n.Level == 1 && r.th.h1Pad:
		return r.wrap(sgr(r.th.h1, " "+ansi.Strip(body)+" "), width)
	case n.Level == 6 && r.th.h6 != "":
		st = r.th.h6
	}
	return r.wrap(sgr(st, strings.Repeat("#", n.Level)+" ")+styleAround(st, body), width)
}

// styleAround applies st to the unstyled stretches of s, keeping the styles
// of its styled parts.
func styleAround(st, s string) string {
	if st == "" {
		return s
	}
	parts := strings.Split(s, "\x1b[m")
	for i, p := range parts {
		pre, rest, ok := strings.Cut(p, "\x1b[")
		if !ok {
			parts[i] = sgr(st, p)
			continue
		}
		parts[i] = sgr(st, pre) + "\x1b[" + rest
	}
	return strings.Join(parts, "\x1b[m")
}

func (r *mdRenderer) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	if num == 0 {
		num = 1
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		marker = sgr(r.th.item, marker)
		if startsWithCheckBox(c) {
			marker = ""
		}
		var body []string
		first := true
		for b := c.FirstChild(); b != nil; b = b.NextSibling() {
			var lines []string
			switch b := b.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				s := r.inlines(b, r.th.text)
				if first {
					s = marker + s
				}
				lines = wrapAt(s, width, listBreaks)
			case *ast.List:
				lines = indent(r.list(b, max(width-r.th.listIndent, 1)), strings.Repeat(" ", r.th.listIndent))
			default:
				lines = r.block(b, width)
			}
			if first && len(lines) == 0 {
				lines = []string{marker}
			}
			first = false
			body = append(body, lines...)
		}
		if first {
			body = []string{marker}
		}
		out = append(out, body...)
	}
	return out
}

func indent(lines []string, pre string) []string {
	for i, l := range lines {
		lines[i] = pre + l
	}
	return lines
}

func (r *mdRenderer) quote(n *ast.Blockquote, width int) []string {
	tok := r.th.quoteToken
	return indent(r.blocks(n, max(width-ansi.StringWidth(tok), 1)), tok)
}

// code shows a code block as it is, in one colour, indented by two columns.
func (r *mdRenderer) code(n ast.Node) []string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	s := strings.TrimRight(b.String(), "\n")
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = "  " + sgr(r.th.codeBlock, l)
	}
	return out
}

// htmlBlock shows the text of an HTML block without its tags (as glamour
// did), right under the block before it.
func (r *mdRenderer) htmlBlock(n ast.Node) []string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	s := strings.TrimSpace(stripTags(b.String()))
	if s == "" {
		return nil
	}
	return strings.Split(sgr(r.th.text, s), "\n")
}

// stripTags returns the text of an HTML fragment: tags and comments
// dropped, entities decoded, the content of script and style elements left
// out.
func stripTags(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			if name, _ := z.TagName(); skipContent(string(name)) {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); skipContent(string(name)) && skip > 0 {
				skip--
			}
		}
	}
}

func skipContent(tag string) bool { return tag == "script" || tag == "style" }

func (r *mdRenderer) definitions(n *mdDefList, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *mdDefTerm:
			out = append(out, r.wrap(r.inlines(c, r.th.text), width)...)
		case *mdDefDescrip:
			var b strings.Builder
			for p := c.FirstChild(); p != nil; p = p.NextSibling() {
				if b.Len() > 0 {
					b.WriteString(" ")
				}
				b.WriteString(r.inlines(p, r.th.text))
			}
			out = append(out, r.wrap(r.th.defMark+b.String(), width)...)
		}
	}
	return out
}

// table lays a table out with lipgloss's table across the text width,
// cells wrapped, inner borders only.
func (r *mdRenderer) table(n *mdTable, width int) []string {
	t := table.New().Width(width).Wrap(true)
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			r.inCell = true
			cells = append(cells, r.inlines(c, r.th.text))
			r.inCell = false
		}
		if row, ok := row.(*mdTableRow); ok && row.header {
			t.Headers(cells...)
		} else {
			t.Row(cells...)
		}
	}
	t.StyleFunc(func(_, col int) lipgloss.Style {
		st := lipgloss.NewStyle().Inline(false).Margin(0, 1)
		if col < len(n.aligns) {
			switch n.aligns[col] {
			case alignLeft:
				st = st.Align(lipgloss.Left).PaddingRight(0)
			case alignCenter:
				st = st.Align(lipgloss.Center)
			case alignRight:
				st = st.Align(lipgloss.Right).PaddingLeft(0)
			}
		}
		return st
	})
	b := lipgloss.NormalBorder()
	if r.th.tableSep == "|" {
		b = lipgloss.Border{Top: "-", Bottom: "-", Left: "|", Right: "|", Middle: "|"}
	}
	t.Border(b).BorderTop(false).BorderLeft(false).BorderRight(false).BorderBottom(false)
	return strings.Split(t.String(), "\n")
}

// inlines renders the inline children of n, plain text styled st.
func (r *mdRenderer) inlines(n ast.Node, st string) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c, st)
	}
	return b.String()
}

func (r *mdRenderer) inline(b *strings.Builder, n ast.Node, st string) {
	th := r.th
	switch n := n.(type) {
	case *ast.Text:
		r.text(b, n.Segment.Start, n.Segment.Stop, st)
		if n.SoftLineBreak() || n.HardLineBreak() {
			if r.within(n.Segment.Stop) && r.within(n.Segment.Stop-1) {
				b.WriteString(sgr(joinSGR(st, r.mark.sgr), " "))
			} else {
				b.WriteString(" ")
			}
		}
	case *ast.String:
		b.WriteString(sgr(st, stdhtml.UnescapeString(string(n.Value))))
	case *ast.CodeSpan:
		var s strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				s.Write(t.Segment.Value(r.src))
			}
		}
		// A line ending inside a code span is a space (CommonMark).
		code := strings.ReplaceAll(s.String(), "\n", " ")
		if r.inCell {
			code = strings.ReplaceAll(code, `\|`, "|")
		}
		b.WriteString(r.markedCode(n, th.codeWrap+code+th.codeWrap, th.code))
	case *ast.Emphasis:
		p := th.emph
		if n.Level >= 2 {
			p = th.strong
		}
		b.WriteString(r.inlines(n, joinSGR(st, p)))
	case *mdStrike:
		inner := r.inlines(n, joinSGR(st, th.strike))
		if th.strikeWrap != "" {
			inner = th.strikeWrap + inner + th.strikeWrap
		}
		b.WriteString(inner)
	case *ast.Link:
		label := r.inlines(n, th.linkText)
		dest := string(n.Destination)
		if strings.TrimSpace(ansi.Strip(label)) != "" {
			b.WriteString(label)
			if dest != "" && !strings.HasPrefix(dest, "#") {
				b.WriteString(" ")
			}
		}
		if dest != "" && !strings.HasPrefix(dest, "#") {
			b.WriteString(sgr(th.link, dest))
		}
	case *ast.AutoLink:
		u := string(n.URL(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail {
			b.WriteString(sgr(th.linkText, u))
		} else {
			b.WriteString(sgr(th.link, u))
		}
	case *ast.Image:
		alt := ansi.Strip(r.inlines(n, ""))
		b.WriteString(sgr(th.imageText, "Image: "+alt+" →") + " " + sgr(th.image, string(n.Destination)))
	case *mdCheckBox:
		if n.checked {
			b.WriteString(th.ticked)
		} else {
			b.WriteString(th.unticked)
		}
	case *ast.RawHTML:
		// An inline tag or comment: dropped, as glamour dropped it.
	default:
		b.WriteString(r.inlines(n, st))
	}
}

func joinSGR(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ";" + b
}

func startsWithCheckBox(item ast.Node) bool {
	if p := item.FirstChild(); p != nil {
		_, ok := p.FirstChild().(*mdCheckBox)
		return ok
	}
	return false
}
