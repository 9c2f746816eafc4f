package ingest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxHTMLBytes bounds the HTML files ExtractHTML reads.
const MaxHTMLBytes = 64 << 20

// elementRule is what an element does to the text extracted from a page:
// a set of the rule flags below.
type elementRule uint16

const (
	// ruleSkip: the element holds no main text (code, styling,
	// navigation, chrome): its content is dropped, unless it has
	// role="main".
	ruleSkip elementRule = 1 << iota
	// ruleBlock: the element starts and ends a paragraph.
	ruleBlock
	// ruleLine: the element breaks the line.
	ruleLine
	// ruleCell: the element is a table cell, apart from its neighbours.
	ruleCell
	// ruleVoid: the element never has content (no end tag).
	ruleVoid
	// ruleMain: the element holds the page's main text.
	ruleMain
	// rulePre: the element's text keeps its whitespace.
	rulePre
	// ruleHeading: the element is a heading (the title when the page has
	// none).
	ruleHeading
)

// elementRules is the table of the elements that matter to the text; any
// other element is transparent (its text flows on).
var elementRules = func() map[atom.Atom]elementRule {
	t := map[atom.Atom]elementRule{}
	set := func(r elementRule, as ...atom.Atom) {
		for _, a := range as {
			t[a] |= r
		}
	}
	set(ruleSkip, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Nav,
		atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Iframe, atom.Button, atom.Select, atom.Canvas,
		atom.Object, atom.Head, atom.Dialog, atom.Menu)
	set(ruleBlock, atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Li, atom.Ul, atom.Ol, atom.Dl,
		atom.Dt, atom.Dd, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote, atom.Pre,
		atom.Table, atom.Tr, atom.Figure, atom.Figcaption, atom.Hr, atom.Body, atom.Details, atom.Summary,
		atom.Address, atom.Caption)
	set(ruleLine, atom.Br)
	set(ruleCell, atom.Td, atom.Th)
	set(ruleVoid, atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input, atom.Link,
		atom.Meta, atom.Source, atom.Track, atom.Wbr)
	set(ruleMain, atom.Main, atom.Article)
	set(rulePre, atom.Pre)
	set(ruleHeading, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6)
	return t
}()

// is reports whether element a has rule r.
func is(a atom.Atom, r elementRule) bool { return elementRules[a]&r != 0 }

// HTMLText is what ExtractHTML finds in a page.
type HTMLText struct {
	Title string
	// Text is the main text, paragraphs separated by blank lines.
	Text string
}

type htmlWriter struct {
	sb      strings.Builder
	pending string // separator owed before the next text
}

func (w *htmlWriter) text(s string, pre bool) {
	if !pre {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			return
		}
	}
	if w.sb.Len() > 0 && w.pending != "" {
		w.sb.WriteString(w.pending)
	}
	w.pending = ""
	w.sb.WriteString(s)
}

func (w *htmlWriter) space() {
	if w.sb.Len() > 0 && w.pending == "" {
		w.pending = " "
	}
}

func (w *htmlWriter) lineBreak() {
	if w.sb.Len() > 0 && w.pending != "\n\n" {
		w.pending = "\n"
	}
}

func (w *htmlWriter) paragraph() {
	if w.sb.Len() > 0 {
		w.pending = "\n\n"
	}
}

// ExtractHTML returns the title and the main text of an HTML page: the text
// of <main>/<article> when the page has enough of it, else of the whole body,
// always without scripts, styles, navigation, headers, footers and forms.
// What each element does is its row of elementRules.
func ExtractHTML(r io.Reader) (HTMLText, error) {
	lr := &io.LimitedReader{R: r, N: MaxHTMLBytes + 1}
	x := &htmlExtractor{z: html.NewTokenizer(lr)}
	for {
		switch tt := x.z.Next(); tt {
		case html.ErrorToken:
			err := x.z.Err()
			if lr.N <= 0 {
				return HTMLText{}, fmt.Errorf("HTML file larger than %d MB", MaxHTMLBytes>>20)
			}
			if errors.Is(err, io.EOF) {
				return finishHTML(x.title.String(), x.h1.String(), x.heading.String(), &x.all, &x.main), nil
			}
			return HTMLText{}, err
		case html.TextToken:
			x.text()
		case html.StartTagToken, html.SelfClosingTagToken:
			x.start(tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			x.end()
		}
	}
}

// htmlExtractor is one page being read: the text of the whole page and of
// its main regions, the title and headings, the elements open.
type htmlExtractor struct {
	z                  *html.Tokenizer
	all, main          htmlWriter
	title, h1, heading strings.Builder
	inTitle, inH1      bool
	inHeading          atom.Atom // the first heading, while it is open
	// skipStack holds the open elements whose content is dropped.
	skipStack []atom.Atom
	// mainStack holds the open elements that started a main region, with
	// how many same-named elements opened inside them since.
	mainStack []mainRegion
	preDepth  int
}

type mainRegion struct {
	tag  atom.Atom
	nest int
}

// writers applies f to the whole page's text and, inside a main region,
// to the main text.
func (x *htmlExtractor) writers(f func(*htmlWriter)) {
	f(&x.all)
	if len(x.mainStack) > 0 {
		f(&x.main)
	}
}

func (x *htmlExtractor) text() {
	if x.inTitle {
		x.title.Write(x.z.Text())
		return
	}
	if len(x.skipStack) > 0 {
		return
	}
	t := string(x.z.Text())
	if x.inH1 {
		x.h1.WriteString(t)
	}
	if x.inHeading != 0 {
		x.heading.WriteString(t)
	}
	if startsWithSpace(t) {
		x.writers((*htmlWriter).space)
	}
	x.writers(func(w *htmlWriter) { w.text(t, x.preDepth > 0) })
	if endsWithSpace(t) {
		x.writers((*htmlWriter).space)
	}
}

func (x *htmlExtractor) start(selfClosing bool) {
	name, hasAttr := x.z.TagName()
	a := atom.Lookup(name)
	selfClosing = selfClosing || is(a, ruleVoid)
	if a == atom.Title && !selfClosing && x.title.Len() == 0 &&
		(len(x.skipStack) == 0 || len(x.skipStack) == 1 && x.skipStack[0] == atom.Head) {
		x.inTitle = true
		return
	}
	if len(x.skipStack) > 0 {
		if is(a, ruleSkip) && !selfClosing {
			x.skipStack = append(x.skipStack, a)
		}
		return
	}
	roleMain := hasAttr && hasRoleMain(x.z)
	if is(a, ruleSkip) && !selfClosing && !roleMain {
		x.skipStack = append(x.skipStack, a)
		return
	}
	switch {
	case is(a, ruleLine):
		x.writers((*htmlWriter).lineBreak)
	case is(a, ruleBlock):
		x.writers((*htmlWriter).paragraph)
	case is(a, ruleCell):
		x.writers((*htmlWriter).space)
	}
	if !selfClosing {
		x.open(a, roleMain)
	}
}

// open notes an element that has content: a main region, preformatted
// text, the first heading.
func (x *htmlExtractor) open(a atom.Atom, roleMain bool) {
	if n := len(x.mainStack); n > 0 && x.mainStack[n-1].tag == a {
		x.mainStack[n-1].nest++
	} else if is(a, ruleMain) || roleMain {
		x.mainStack = append(x.mainStack, mainRegion{tag: a})
		x.main.paragraph()
	}
	if is(a, rulePre) {
		x.preDepth++
	}
	if a == atom.H1 && x.h1.Len() == 0 {
		x.inH1 = true
	}
	if is(a, ruleHeading) && x.inHeading == 0 && strings.TrimSpace(x.heading.String()) == "" {
		x.inHeading = a
	}
}

func (x *htmlExtractor) end() {
	name, _ := x.z.TagName()
	a := atom.Lookup(name)
	if a == atom.Title {
		x.inTitle = false
		return
	}
	if len(x.skipStack) > 0 {
		for i := len(x.skipStack) - 1; i >= 0; i-- {
			if x.skipStack[i] == a {
				x.skipStack = x.skipStack[:i]
				break
			}
		}
		return
	}
	if is(a, ruleBlock) {
		x.writers((*htmlWriter).paragraph)
	}
	if n := len(x.mainStack); n > 0 && x.mainStack[n-1].tag == a {
		if x.mainStack[n-1].nest > 0 {
			x.mainStack[n-1].nest--
		} else {
			x.mainStack = x.mainStack[:n-1]
		}
	}
	if is(a, rulePre) && x.preDepth > 0 {
		x.preDepth--
	}
	if a == atom.H1 {
		x.inH1 = false
	}
	if a == x.inHeading {
		x.inHeading = 0
	}
}

func finishHTML(title, h1, heading string, all, main *htmlWriter) HTMLText {
	t := strings.Join(strings.Fields(title), " ")
	if t == "" || IsFileNameTitle(t) {
		// No title, or a file name standing for one (an EPUB chapter's
		// "ch01.xhtml"): the first <h1>, else the first heading.
		if h := strings.Join(strings.Fields(h1), " "); h != "" {
			t = h
		} else if h := strings.Join(strings.Fields(heading), " "); h != "" {
			t = h
		}
	}
	text := all.sb.String()
	if m := main.sb.String(); m != "" {
		mw, aw := CountWords(m), CountWords(text)
		if mw >= 50 || 2*mw >= aw {
			text = m
		}
	}
	text = dropNavLines(CleanString(text))
	for strings.Contains(text, "\n\n\n") {
		text = strings.ReplaceAll(text, "\n\n\n", "\n\n")
	}
	return HTMLText{Title: CleanString(t), Text: strings.TrimSpace(text)}
}

func hasRoleMain(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "role" && strings.EqualFold(strings.TrimSpace(string(v)), "main") {
			return true
		}
		if !more {
			return false
		}
	}
}

func startsWithSpace(s string) bool { return s != "" && isSpace(s[0]) }
func endsWithSpace(s string) bool   { return s != "" && isSpace(s[len(s)-1]) }
