package export

import (
	"html"
	"net/url"
	"strings"
)

// neutralise makes model-written Markdown safe to publish: the only links
// left are http(s) links, written by this function in one canonical form;
// images become links ("![alt](http://x)" → "[image: alt](http://x)", so
// no remote image — a tracking pixel — loads when the report is opened); and
// every other "<" and every bracket that could start a link or a link
// definition is backslash-escaped, so no other link
// (a javascript: or data: destination, a reference-style link or its
// definition, an autolink "<javascript:…>") and no raw HTML ("<img src=…>",
// "<a href=…>") can form. Citations such as "[6]" stay as written.
// What the model wrote stays readable: an unsafe link shows as its text.
// Backslash escapes already in the text are kept as they are.
func neutralise(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	rawClose := -1 // the "]" of a bracket pair kept as it is
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			// An escaped character is already literal.
			b.WriteString(s[i : i+2])
			i += 2
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if text, dest, end, ok := inlineLink(s, i+1); ok {
				if alt := strings.TrimSpace(text); alt != "" {
					text = "image: " + alt
				} else {
					text = "image"
				}
				b.WriteString(safeLink(text, dest, s[i:end]))
				i = end
				continue
			}
			b.WriteByte('!')
			i++
		case c == '[':
			if text, dest, end, ok := inlineLink(s, i); ok {
				b.WriteString(safeLink(text, dest, s[i:end]))
				i = end
				continue
			}
			if j, ok := plainPair(s, i); ok && rawClose < i {
				rawClose = j
				b.WriteByte('[')
			} else {
				b.WriteString(`\[`)
			}
			i++
		case c == ']':
			if i == rawClose {
				b.WriteByte(']')
			} else {
				b.WriteString(`\]`)
			}
			i++
		case c == '<':
			if dest, end, ok := autolink(s, i); ok {
				if u, ok := webURL(dest); ok {
					b.WriteString("[" + inlineText(dest) + "](" + u + ")")
					i = end
					continue
				}
			}
			b.WriteString(`\<`)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// plainPair reports whether the "[" at s[i] opens a bracket pair that
// can only be a shortcut reference ("[6]", a citation): no brackets or line
// break inside, and after the "]" neither "(", "[" nor ":". Such a pair is
// a link only when the document defines its label, and no definition can
// survive (their "]:" is escaped), so it is kept as written. It returns
// the index of the "]".
func plainPair(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '[', '\n':
			return 0, false
		case ']':
			if j+1 < len(s) && (s[j+1] == '(' || s[j+1] == '[' || s[j+1] == ':') {
				return 0, false
			}
			return j, true
		}
	}
	return 0, false
}

// safeLink is a link to dest when dest is an http(s) URL, and the escaped
// original text otherwise.
func safeLink(text, dest, orig string) string {
	if u, ok := webURL(dest); ok {
		t := inlineText(text)
		if t == "" {
			t = inlineText(dest)
		}
		return "[" + t + "](" + u + ")"
	}
	return escapeAll(orig)
}

// escapeAll writes orig with its brackets and "<" escaped (backslash
// escapes kept), so it shows as the characters the model wrote.
func escapeAll(orig string) string {
	var b strings.Builder
	for i := 0; i < len(orig); i++ {
		c := orig[i]
		switch {
		case c == '\\' && i+1 < len(orig) && isASCIIPunct(orig[i+1]):
			b.WriteString(orig[i : i+2])
			i++
		case c == '[' || c == ']' || c == '<':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// inlineText is a link's text made literal, on one line.
func inlineText(s string) string {
	return inline(unescapeMD(s))
}

// inlineLink parses "[text](dest "title")" at s[i] == '['. The text holds
// no brackets (escaped ones aside) and no line break; the title is dropped.
func inlineLink(s string, i int) (text, dest string, end int, ok bool) {
	j, ok := linkTextEnd(s, i+1)
	if !ok || j+1 >= len(s) || s[j+1] != '(' {
		return "", "", 0, false
	}
	dest, k, ok := linkDest(s, skipBlanks(s, j+2))
	if !ok {
		return "", "", 0, false
	}
	k, ok = skipLinkTitle(s, skipBlanks(s, k))
	if !ok || k >= len(s) || s[k] != ')' {
		return "", "", 0, false
	}
	return s[i+1 : j], dest, k + 1, true
}

// linkTextEnd finds the "]" that closes a link's text starting at s[j]; a
// bracket or a line break before it means no link.
func linkTextEnd(s string, j int) (int, bool) {
	for ; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '[', '\n':
			return 0, false
		case ']':
			return j, true
		}
	}
	return 0, false
}

// linkDest parses a link's destination at s[k]: "<…>" (no "<" or line
// break inside), or bare up to a blank or the ")" that balances the
// parentheses it opened. end is the index after it.
func linkDest(s string, k int) (dest string, end int, ok bool) {
	if k < len(s) && s[k] == '<' {
		e := k + 1
		for ; e < len(s) && s[e] != '>'; e++ {
			if s[e] == '<' || s[e] == '\n' {
				return "", 0, false
			}
			if s[e] == '\\' && e+1 < len(s) && isASCIIPunct(s[e+1]) {
				e++
			}
		}
		if e >= len(s) {
			return "", 0, false
		}
		return s[k+1 : e], e + 1, true
	}
	depth, e := 0, k
loop:
	for ; e < len(s); e++ {
		switch c := s[e]; {
		case c == '\\' && e+1 < len(s) && isASCIIPunct(s[e+1]):
			e++
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				break loop
			}
			depth--
		case c <= ' ':
			break loop
		}
	}
	return s[k:e], e, true
}

// skipLinkTitle skips a link's title at s[k] ("…", '…' or (…)) and the
// blanks after it; ok is false for a title never closed.
func skipLinkTitle(s string, k int) (int, bool) {
	if k >= len(s) || (s[k] != '"' && s[k] != '\'' && s[k] != '(') {
		return k, true
	}
	closing := s[k]
	if closing == '(' {
		closing = ')'
	}
	e := k + 1
	for ; e < len(s) && s[e] != closing; e++ {
		if s[e] == '\\' && e+1 < len(s) {
			e++
		}
	}
	if e >= len(s) {
		return 0, false
	}
	return skipBlanks(s, e+1), true
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// autolink parses "<scheme:…>" at s[i] == '<'.
func autolink(s string, i int) (dest string, end int, ok bool) {
	e := i + 1
	for ; e < len(s) && s[e] != '>'; e++ {
		if s[e] <= ' ' || s[e] == '<' {
			return "", 0, false
		}
	}
	if e >= len(s) || !strings.Contains(s[i+1:e], ":") {
		return "", 0, false
	}
	return s[i+1 : e], e + 1, true
}

// webURL decodes a link destination as a Markdown renderer would (backslash
// escapes, then character references) and returns it written for a link
// destination when it is an absolute http(s) URL with a host.
func webURL(dest string) (string, bool) {
	d := strings.TrimSpace(html.UnescapeString(unescapeMD(dest)))
	low := strings.ToLower(d)
	if !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") {
		return "", false
	}
	for _, r := range d {
		if r < ' ' || r == 0x7f {
			return "", false
		}
	}
	if !isWebLink(d) {
		return "", false
	}
	esc := destEscaper.Replace(d)
	// The written form must parse too (a host may not hold the escapes).
	if !isWebLink(html.UnescapeString(esc)) {
		return "", false
	}
	return esc, true
}

func isWebLink(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// destEscaper writes a URL as a link destination that no renderer can read
// differently: no parentheses, angle brackets, quotes, backslashes,
// backticks or spaces, and "&" as a character reference.
var destEscaper = strings.NewReplacer(
	"(", "%28", ")", "%29", "<", "%3C", ">", "%3E", `"`, "%22", `\`, "%5C", " ", "%20", "&", "&amp;",
	"`", "%60",
)

// unescapeMD removes Markdown backslash escapes.
func unescapeMD(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
