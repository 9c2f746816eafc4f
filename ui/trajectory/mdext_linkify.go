package trajectory

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// linkifyParser finds bare links in text (GFM's extended autolinks):
// "www.example.org/…", "http://", "https://" and "ftp://" URLs and e-mail
// addresses, at the start of a line or after white space, "*", "_", "~"
// or "(". Trailing punctuation and an unbalanced ")" are left out of the
// link.
type linkifyParser struct{}

func (linkifyParser) Trigger() []byte {
	// ' ' stands for any white space and for the start of a line.
	return []byte{' ', '*', '_', '~', '('}
}

var (
	prefixWWW = []byte("www.")
	protocols = [][]byte{[]byte("http://"), []byte("https://"), []byte("ftp://")}
)

func (linkifyParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, seg := block.PeekLine()
	if len(line) == 0 {
		return nil
	}
	skip := 0
	switch line[0] {
	case ' ', '\t', '*', '_', '~', '(':
		skip = 1
	}
	rest := line[skip:]
	typ := ast.AutoLinkURL
	var protocol []byte
	n := urlLength(rest)
	if n == 0 && bytes.HasPrefix(rest, prefixWWW) {
		// "www." and at least two more labels ("www.0" is no link)
		if d := domainLength(rest); d > len(prefixWWW) && bytes.IndexByte(rest[len(prefixWWW):d], '.') > 0 {
			n = d + pathLength(rest[d:])
			protocol = []byte("http")
		}
	}
	if n == 0 {
		if n = emailLength(rest); n == 0 {
			return nil
		}
		typ = ast.AutoLinkEmail
	} else {
		n = trimURLEnd(rest[:n])
	}
	if n == 0 {
		return nil
	}
	if skip > 0 {
		ast.MergeOrAppendTextSegment(parent, seg.WithStop(seg.Start+skip))
	}
	start := seg.Start + skip
	block.Advance(skip + n)
	link := ast.NewAutoLink(typ, ast.NewTextSegment(text.NewSegment(start, start+n)))
	link.Protocol = protocol
	return link
}

// urlLength returns the length of the URL that starts b ("scheme://"
// then a domain), 0 if none does.
func urlLength(b []byte) int {
	for _, p := range protocols {
		if bytes.HasPrefix(b, p) {
			d := domainLength(b[len(p):])
			if d == 0 {
				return 0
			}
			n := len(p) + d
			return n + pathLength(b[n:])
		}
	}
	return 0
}

// domainLength returns the length of the domain at the start of b:
// labels of letters, digits, "-" and "_" (and any non-ASCII) joined by
// dots, at least one dot, no "_" in the last two labels, a last label of
// lower-case letters (so "http://10.0.0.1" is no link, as in goldmark); an optional
// ":port" follows. 0 if there is none.
func domainLength(b []byte) int {
	d, ok := scanDomain(b)
	if !ok {
		return 0
	}
	d.trim(b)
	if !d.valid(b) {
		return 0
	}
	n := d.n
	if n < len(b) && b[n] == ':' { // a port
		p := n + 1
		for p < len(b) && b[p] >= '0' && b[p] <= '9' {
			p++
		}
		if p > n+1 {
			n = p
		}
	}
	return n
}

// domain is what scanDomain found at the start of b: its length n, how
// many dots it has, where the last two are and where its last "_" is (-1
// for none).
type domain struct {
	n, dots, lastDot, prevDot int
	underscore                int
}

// scanDomain reads the bytes a domain may have, up to the first other one
// or a dot that ends it ("see www.x.org."); ok is false for two dots in a
// row or a leading dot.
func scanDomain(b []byte) (d domain, ok bool) {
	d = domain{lastDot: -1, prevDot: -1, underscore: -1}
	for ; d.n < len(b); d.n++ {
		c := b[d.n]
		switch {
		case c == '.':
			if d.n == 0 || b[d.n-1] == '.' {
				return d, false
			}
			if d.n+1 >= len(b) || !domainByte(b[d.n+1]) {
				return d, true // a dot that ends the domain
			}
			d.dots++
			d.prevDot, d.lastDot = d.lastDot, d.n
		case c == '_':
			d.underscore = d.n
		case domainByte(c):
		default:
			return d, true
		}
	}
	return d, true
}

// trim drops a trailing "_" ("_www.example.org_": emphasis, not domain)
// and a trailing dot.
func (d *domain) trim(b []byte) {
	for d.n > 0 && b[d.n-1] == '_' {
		d.n--
	}
	if d.n > 0 && b[d.n-1] == '.' {
		d.n--
		d.dots--
		d.lastDot = d.prevDot
	}
	if d.underscore >= d.n {
		d.underscore = -1
		for i := 0; i < d.n; i++ {
			if b[i] == '_' {
				d.underscore = i
			}
		}
	}
}

// valid reports whether the trimmed domain is one: a dot, no "_" in the
// last two labels, no "-" or "_" at its end, and a last label of
// lower-case letters.
func (d domain) valid(b []byte) bool {
	n := d.n
	if d.dots == 0 || n == 0 || d.underscore > d.prevDot {
		return false
	}
	if b[n-1] == '-' || b[n-1] == '_' || n-d.lastDot < 2 {
		return false
	}
	for _, c := range b[d.lastDot+1 : n] { // a top-level domain of letters
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func domainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80
}

// pathLength returns the length of what continues a URL after its domain:
// everything up to white space or "<", if it starts with "/", "?" or "#".
func pathLength(b []byte) int {
	if len(b) == 0 || (b[0] != '/' && b[0] != '?' && b[0] != '#') {
		return 0
	}
	n := 0
	for n < len(b) {
		c := b[n]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' {
			break
		}
		n++
	}
	return n
}

// trimURLEnd returns the length of u without trailing punctuation, an
// unbalanced closing parenthesis or a trailing entity reference ("&amp;").
func trimURLEnd(u []byte) int {
	n := len(u)
	for n > 0 {
		switch c := u[n-1]; c {
		case '?', '!', '.', ',', ':', '*', '_', '~', '\'', '"':
			n--
			continue
		case ')':
			if bytes.Count(u[:n], []byte{'('}) < bytes.Count(u[:n], []byte{')'}) {
				n--
				continue
			}
		case ';':
			i := n - 2
			for i >= 0 && isAlnum(u[i]) {
				i--
			}
			if i >= 0 && i < n-2 && u[i] == '&' {
				n = i
				continue
			}
		}
		break
	}
	return n
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// emailLength returns the length of the e-mail address that starts b, 0
// if none does: a local part of letters, digits and ".+-_" (starting with
// a letter or digit), "@", then a
// domain of at least two labels of letters, digits and "-" (neither first
// nor last in a label), not followed by "-" or "_".
func emailLength(b []byte) int {
	if len(b) == 0 || !isAlnum(b[0]) {
		return 0 // "+a@b.org", ".a@b.org": no link
	}
	at := 0
	for at < len(b) && (isAlnum(b[at]) || b[at] == '.' || b[at] == '+' || b[at] == '-' || b[at] == '_') {
		at++
	}
	if at == 0 || at >= len(b) || b[at] != '@' {
		return 0
	}
	n, labels := at+1, 0
	for {
		// one label
		if n >= len(b) || !isAlnum(b[n]) {
			break
		}
		end := n
		for end < len(b) && (isAlnum(b[end]) || b[end] == '-') {
			end++
		}
		for end > n && b[end-1] == '-' {
			end--
		}
		labels++
		n = end
		if n+1 < len(b) && b[n] == '.' && isAlnum(b[n+1]) {
			n++
			continue
		}
		break
	}
	if labels < 2 {
		return 0
	}
	if n < len(b) && (b[n] == '-' || b[n] == '_') {
		return 0
	}
	return n
}
