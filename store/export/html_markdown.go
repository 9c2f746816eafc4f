package export

import (
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// The answer's Markdown in the HTML report. The model writes Markdown
// (**bold**, lists, headings, links); the page shows it rendered, as the
// workspace does, under the same safety rules as the Markdown export
// (mdlinks.go) and stricter ones of its own:
//
//   - The text is first made safe as Markdown (neutralise: only http(s)
//     links survive as links, images become links, every "<" is escaped),
//     then parsed by goldmark's CommonMark parser.
//   - The HTML is written here, element by element, from a fixed list (p,
//     h4–h6, strong, em, code, pre, ul, ol, li, blockquote, hr, br, a); no
//     attribute but a link's href (an absolute http(s) URL, or the anchor of
//     one of the page's sources), ol's start number and the cite class.
//     Raw HTML that got through anyway is shown as its text, an image never
//     becomes an <img> (the page loads nothing).
//   - Every text is decoded (backslash escapes, character references),
//     cleaned of control characters and escape sequences, and HTML-escaped.
//
// This is the only HTML of the page not written by html/template's
// escaping: markdownHTML is the one function that returns template.HTML
// from stored text.

// Citations are replaced by private-use markers before parsing, so "[1][2]"
// is never read as a reference link and a citation can be linked wherever
// it lands in the tree.
const (
	citeOpen  = "\ue000"
	citeClose = "\ue001"
)

// markdownHTML renders model-written Markdown as safe HTML. cite says where
// a citation [n] links ("" when no source has that number: it is shown as
// a citation that links nowhere); with cite nil citations are not links (a
// step's answer, whose numbers are those of its own context).
func markdownHTML(src string, cite func(n int) string) template.HTML {
	return renderMarkdownHTML(src, cite, false)
}

// inlineMarkdownHTML renders one sentence of model-written Markdown (a
// claim) as markdownHTML does, without paragraph elements: it sits in a
// line of the page.
func inlineMarkdownHTML(src string) template.HTML {
	return renderMarkdownHTML(oneLineText(src), nil, true)
}

func renderMarkdownHTML(src string, cite func(n int) string, inline bool) template.HTML {
	src = strings.NewReplacer(citeOpen, "", citeClose, "").Replace(blockText(src))
	src = citationRe().ReplaceAllString(src, citeOpen+"$1"+citeClose)
	source := []byte(neutralise(src))
	doc := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...)).Parse(text.NewReader(source))
	w := &mdHTML{src: source, cite: cite, inline: inline}
	w.children(doc)
	if inline {
		return template.HTML(strings.TrimSpace(w.b.String())) //nolint:gosec // as below
	}
	return template.HTML(w.b.String()) //nolint:gosec // written element by element above, every text escaped
}

// mdHTML writes one document's HTML.
type mdHTML struct {
	b    strings.Builder
	src  []byte
	cite func(int) string
	// inline writes paragraphs as their text alone.
	inline bool
}

func (w *mdHTML) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.node(c)
	}
}

// wrap writes n's children inside one element of the list.
func (w *mdHTML) wrap(tag string, n ast.Node) {
	w.b.WriteString("<" + tag + ">")
	w.children(n)
	w.b.WriteString("</" + tag + ">")
}

func (w *mdHTML) node(n ast.Node) {
	if w.inline && n.Type() == ast.TypeBlock {
		// A sentence's blocks (a list item, a quote) are text in a line.
		switch n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock:
			w.literal(linesOf(n, w.src))
		}
		w.children(n)
		if !n.HasChildren() || n.FirstChild().Type() != ast.TypeBlock {
			w.b.WriteByte(' ')
		}
		return
	}
	switch n := n.(type) {
	case *ast.Paragraph:
		w.wrap("p", n)
		w.b.WriteByte('\n')
	case *ast.TextBlock:
		w.children(n)
		if n.NextSibling() != nil {
			w.b.WriteString("<br>")
		}
	case *ast.Heading:
		// The page's own headings go down to h3 (the answer's): the
		// answer's start below them.
		w.wrap("h"+strconv.Itoa(min(n.Level+3, 6)), n)
		w.b.WriteByte('\n')
	case *ast.List:
		w.list(n)
	case *ast.ListItem:
		w.wrap("li", n)
		w.b.WriteByte('\n')
	case *ast.Blockquote:
		w.b.WriteString("<blockquote>\n")
		w.children(n)
		w.b.WriteString("</blockquote>\n")
	case *ast.ThematicBreak:
		w.b.WriteString("<hr>\n")
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		w.b.WriteString("<pre><code>")
		w.literal(linesOf(n, w.src))
		w.b.WriteString("</code></pre>\n")
	case *ast.HTMLBlock:
		// Shown as the text the model wrote (neutralise leaves none).
		w.b.WriteString("<p>")
		w.literal(linesOf(n, w.src))
		w.b.WriteString("</p>\n")
	default:
		w.inlineNode(n)
	}
}

func (w *mdHTML) list(n *ast.List) {
	switch {
	case !n.IsOrdered():
		w.b.WriteString("<ul>\n")
	case n.Start != 1:
		w.b.WriteString(`<ol start="` + strconv.Itoa(n.Start) + `">` + "\n")
	default:
		w.b.WriteString("<ol>\n")
	}
	w.children(n)
	if n.IsOrdered() {
		w.b.WriteString("</ol>\n")
	} else {
		w.b.WriteString("</ul>\n")
	}
}

func (w *mdHTML) inlineNode(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		w.text(string(n.Segment.Value(w.src)))
		switch {
		case n.HardLineBreak():
			w.b.WriteString("<br>\n")
		case n.SoftLineBreak():
			w.b.WriteByte('\n')
		}
	case *ast.String:
		w.text(string(n.Value))
	case *ast.Emphasis:
		tag := "em"
		if n.Level >= 2 {
			tag = "strong"
		}
		w.wrap(tag, n)
	case *ast.CodeSpan:
		var raw strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				raw.Write(t.Segment.Value(w.src))
			}
		}
		w.b.WriteString("<code>")
		w.literal(raw.String())
		w.b.WriteString("</code>")
	case *ast.Link:
		w.link(string(n.Destination), n)
	case *ast.AutoLink:
		url := string(n.URL(w.src))
		if href, ok := webHref(url); ok && n.AutoLinkType == ast.AutoLinkURL {
			w.b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer">`)
			w.literal(url)
			w.b.WriteString("</a>")
			return
		}
		w.literal(url)
	case *ast.Image:
		// Never an <img>: the page loads nothing. neutralise turned
		// images into links already; this is the guard behind it.
		w.text("image: ")
		w.link(string(n.Destination), n)
	case *ast.RawHTML:
		var raw strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			raw.Write(seg.Value(w.src))
		}
		w.literal(raw.String())
	default:
		w.children(n)
	}
}

// link writes n's children as a link to dest when dest is an absolute
// http(s) URL, as plain text otherwise.
func (w *mdHTML) link(dest string, n ast.Node) {
	href, ok := webHref(dest)
	if !ok {
		w.children(n)
		return
	}
	w.b.WriteString(`<a href="` + html.EscapeString(href) + `" rel="noopener noreferrer">`)
	w.children(n)
	w.b.WriteString("</a>")
}

// text writes Markdown text: backslash escapes and character references
// decoded, control characters removed, citations linked, HTML-escaped.
func (w *mdHTML) text(s string) {
	w.cited(textsafe.ForTerminal(html.UnescapeString(unescapeMD(s))))
}

// literal writes text as it is (code, raw HTML shown as text): only
// citations restored, control characters removed, HTML-escaped.
func (w *mdHTML) literal(s string) {
	s = textsafe.ForTerminal(s)
	s = strings.NewReplacer(citeOpen, "[", citeClose, "]").Replace(s)
	w.b.WriteString(html.EscapeString(s))
}

// cited writes text with its citation markers as links to their sources.
func (w *mdHTML) cited(s string) {
	for {
		i := strings.Index(s, citeOpen)
		j := strings.Index(s, citeClose)
		if i < 0 || j < i {
			w.b.WriteString(html.EscapeString(strings.NewReplacer(citeOpen, "", citeClose, "").Replace(s)))
			return
		}
		w.b.WriteString(html.EscapeString(s[:i]))
		num := s[i+len(citeOpen) : j]
		n, err := strconv.Atoi(num)
		switch {
		case err != nil:
			w.b.WriteString(html.EscapeString("[" + num + "]"))
		case w.cite == nil:
			w.b.WriteString(`<span class="cite">[` + strconv.Itoa(n) + `]</span>`)
		default:
			if href := w.cite(n); href != "" {
				w.b.WriteString(`<a class="cite" href="` + html.EscapeString(href) + `">[` + strconv.Itoa(n) + `]</a>`)
			} else {
				w.b.WriteString(`<span class="cite missing" title="no document in the context had this number">[` + strconv.Itoa(n) + `]</span>`)
			}
		}
		s = s[j+len(citeClose):]
	}
}

// linesOf is a block's source lines joined.
func linesOf(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimRight(b.String(), "\n")
}

// webHref decodes a link destination and returns it when it is an
// absolute http(s) URL with a host and no control character.
func webHref(dest string) (string, bool) {
	d := strings.TrimSpace(html.UnescapeString(unescapeMD(dest)))
	for _, r := range d {
		if r < ' ' || r == 0x7f {
			return "", false
		}
	}
	return d, isWebLink(d)
}
