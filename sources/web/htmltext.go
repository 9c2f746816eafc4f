package web

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// cleanLine makes untrusted text one safe line: escape sequences and
// control characters removed, invalid UTF-8 replaced, whitespace collapsed.
func cleanLine(s string) string {
	return strings.Join(strings.Fields(textsafe.ForTerminal(s)), " ")
}

// hasClass reports whether n's class attribute holds the token c.
func hasClass(n *html.Node, c string) bool {
	for _, tok := range strings.Fields(attr(n, "class")) {
		if tok == c {
			return true
		}
	}
	return false
}

// hasClassPrefix reports whether a class token of n starts with p.
func hasClassPrefix(n *html.Node, p string) bool {
	for _, tok := range strings.Fields(attr(n, "class")) {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// textOf concatenates the text below n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// stripTags returns the text of an HTML fragment ("<strong>Go</strong> is"
// becomes "Go is") as one clean line.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return cleanLine(s)
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return cleanLine(b.String())
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}
