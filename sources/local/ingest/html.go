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

// skipped elements hold no main text: code, styling, navigation, chrome.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Nav: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Iframe: true,
	atom.Button: true, atom.Select: true, atom.Canvas: true, atom.Object: true,
	atom.Head: true, atom.Dialog: true, atom.Menu: true,
}

// blocks end a paragraph of text.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Li: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Dt: true, atom.Dd: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Blockquote: true,
	atom.Pre: true, atom.Table: true, atom.Tr: true, atom.Figure: true,
	atom.Figcaption: true, atom.Hr: true, atom.Body: true, atom.Details: true,
	atom.Summary: true, atom.Address: true, atom.Caption: true,
}

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
func ExtractHTML(r io.Reader) (HTMLText, error) {
	lr := &io.LimitedReader{R: r, N: MaxHTMLBytes + 1}
	z := html.NewTokenizer(lr)
	var all, main htmlWriter
	var title, h1, heading strings.Builder
	var inHeading atom.Atom // the first heading, while it is open
	var skipStack []atom.Atom
	// mainStack holds the open elements that started a main region, with
	// how many same-named elements opened inside them since.
	type region struct {
		tag  atom.Atom
		nest int
	}
	var mainStack []region
	preDepth := 0
	inTitle, inH1 := false, false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			err := z.Err()
			if lr.N <= 0 {
				return HTMLText{}, fmt.Errorf("HTML file larger than %d MB", MaxHTMLBytes>>20)
			}
			if errors.Is(err, io.EOF) {
				return finishHTML(title.String(), h1.String(), heading.String(), &all, &main), nil
			}
			return HTMLText{}, err
		case html.TextToken:
			if inTitle {
				title.Write(z.Text())
				continue
			}
			if len(skipStack) > 0 {
				continue
			}
			t := string(z.Text())
			if inH1 {
				h1.WriteString(t)
			}
			if inHeading != 0 {
				heading.WriteString(t)
			}
			if startsWithSpace(t) {
				all.space()
				if len(mainStack) > 0 {
					main.space()
				}
			}
			all.text(t, preDepth > 0)
			if len(mainStack) > 0 {
				main.text(t, preDepth > 0)
			}
			if endsWithSpace(t) {
				all.space()
				if len(mainStack) > 0 {
					main.space()
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			selfClosing := tt == html.SelfClosingTagToken || isVoid(a)
			if a == atom.Title && !selfClosing && title.Len() == 0 &&
				(len(skipStack) == 0 || len(skipStack) == 1 && skipStack[0] == atom.Head) {
				inTitle = true
				continue
			}
			if len(skipStack) > 0 {
				if skipped[a] && !selfClosing {
					skipStack = append(skipStack, a)
				}
				continue
			}
			roleMain := hasAttr && hasRoleMain(z)
			if skipped[a] && !selfClosing && !roleMain {
				skipStack = append(skipStack, a)
				continue
			}
			switch {
			case a == atom.Br:
				all.lineBreak()
				if len(mainStack) > 0 {
					main.lineBreak()
				}
			case blocks[a]:
				all.paragraph()
				if len(mainStack) > 0 {
					main.paragraph()
				}
			case a == atom.Td || a == atom.Th:
				all.space()
				if len(mainStack) > 0 {
					main.space()
				}
			}
			if selfClosing {
				continue
			}
			if n := len(mainStack); n > 0 && mainStack[n-1].tag == a {
				mainStack[n-1].nest++
			} else if a == atom.Main || a == atom.Article || roleMain {
				mainStack = append(mainStack, region{tag: a})
				main.paragraph()
			}
			if a == atom.Pre {
				preDepth++
			}
			if a == atom.H1 && h1.Len() == 0 {
				inH1 = true
			}
			if isHeading(a) && inHeading == 0 && strings.TrimSpace(heading.String()) == "" {
				inHeading = a
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				inTitle = false
				continue
			}
			if len(skipStack) > 0 {
				for i := len(skipStack) - 1; i >= 0; i-- {
					if skipStack[i] == a {
						skipStack = skipStack[:i]
						break
					}
				}
				continue
			}
			if blocks[a] {
				all.paragraph()
				if len(mainStack) > 0 {
					main.paragraph()
				}
			}
			if n := len(mainStack); n > 0 && mainStack[n-1].tag == a {
				if mainStack[n-1].nest > 0 {
					mainStack[n-1].nest--
				} else {
					mainStack = mainStack[:n-1]
				}
			}
			switch a {
			case atom.Pre:
				if preDepth > 0 {
					preDepth--
				}
			case atom.H1:
				inH1 = false
			}
			if a == inHeading {
				inHeading = 0
			}
		}
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

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img,
		atom.Input, atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

func startsWithSpace(s string) bool { return s != "" && isSpace(s[0]) }
func endsWithSpace(s string) bool   { return s != "" && isSpace(s[len(s)-1]) }

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}
