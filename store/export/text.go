package export

import (
	"net/url"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/internal/textsafe"
)

var spaceRun = lazyre.New(`\s+`)

// mdEscaper backslash-escapes the characters that would make untrusted
// inline text into Markdown or HTML structure.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `#`, `\#`, `|`, `\|`, `~`, `\~`,
)

// inline makes untrusted text safe for one line of Markdown: no control
// characters, no line breaks, no Markdown or HTML syntax.
func inline(s string) string {
	s = textsafe.ForTerminal(s)
	s = strings.TrimSpace(spaceRun().ReplaceAllString(s, " "))
	return mdEscaper.Replace(s)
}

// cell is inline text for a table cell.
func cell(s string) string { return inline(s) }

var heading = lazyre.New(`^#{1,6}(\s|$)`)

// block keeps model-written Markdown (answers in report style use it) but
// removes control characters, neutralises raw HTML, keeps only http(s)
// links and no images (see neutralise), and keeps the text's headings and
// rules from breaking the document's structure.
func block(s string) string {
	s = textsafe.ForTerminal(s)
	s = strings.TrimSpace(s)
	s = neutralise(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case heading().MatchString(t):
			// Headings of the text sit below the document's own.
			lines[i] = "#### " + strings.TrimLeft(t, "# ")
		case strings.HasPrefix(t, "---") || strings.HasPrefix(t, "===") || strings.HasPrefix(t, "***"):
			lines[i] = `\` + t
		}
	}
	return strings.Join(lines, "\n")
}

// quoted is block text continued inside a "> " quote.
func quoted(s string) string {
	return strings.ReplaceAll(block(s), "\n", "\n> ")
}

// codeSpan wraps s in enough backticks that none inside can close it.
func codeSpan(s string) string {
	s = strings.TrimSpace(spaceRun().ReplaceAllString(textsafe.ForTerminal(s), " "))
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	// A | would end a table cell even inside a code span.
	s = strings.ReplaceAll(s, "|", `\|`)
	return fence + pad + s + pad + fence
}

// redactURL drops credentials a server address may carry.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = url.User("redacted")
	return u.String()
}
