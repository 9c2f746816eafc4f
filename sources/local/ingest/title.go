package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTitleRunes is the longest first line TextTitle takes as a title.
const MaxTitleRunes = 120

// TextTitle returns the first line of a plain text file when it looks like a
// title, or "". The heuristic: leading blank lines are skipped; the first
// non-blank line (a markdown "# heading" marker is stripped) is a title when
// it has 3 to MaxTitleRunes characters, at least one letter, does not end
// in a period, colon, comma or semicolon (a sentence or a lead-in) and
// stands alone: the next line is blank and more text follows. A file of
// one line is not titled by it.
func TextTitle(sample []byte) string {
	lines := strings.Split(string(sample), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "" || !moreText(lines[i+2:]) {
		return ""
	}
	t := strings.TrimSpace(lines[i])
	if h := strings.TrimLeft(t, "#"); h != t && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
		t = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
	}
	t = strings.Join(strings.Fields(CleanString(t)), " ")
	if n := utf8.RuneCountInString(t); n < 3 || n > MaxTitleRunes {
		return ""
	}
	if strings.ContainsAny(t[len(t)-1:], ".:,;") || !strings.ContainsFunc(t, unicode.IsLetter) {
		return ""
	}
	return t
}

func moreText(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}

// junkTitles are metadata titles that name nothing (lower case).
var junkTitles = map[string]bool{
	"untitled": true, "untitled document": true, "title": true, "document": true,
	"no title": true, "(no title)": true, "none": true, "unknown": true, "slide 1": true,
}

// MetadataTitle returns a document property title cleaned for display, or
// "" when it names nothing: empty, a placeholder such as "untitled", an
// application prefix over a file name ("Microsoft Word - x.doc"), or a bare
// file name (ends in an extension such as .doc, .pdf, .tex).
func MetadataTitle(s string) string {
	t := strings.Join(strings.Fields(CleanString(s)), " ")
	l := strings.ToLower(t)
	if t == "" || junkTitles[l] || !strings.ContainsFunc(t, unicode.IsLetter) {
		return ""
	}
	for _, p := range []string{"microsoft word - ", "microsoft powerpoint - ", "microsoft excel - "} {
		if strings.HasPrefix(l, p) {
			return ""
		}
	}
	for _, ext := range []string{".doc", ".docx", ".pdf", ".tex", ".dvi", ".ps", ".rtf", ".odt", ".txt", ".indd", ".qxd", ".ppt", ".pptx"} {
		if strings.HasSuffix(l, ext) {
			return ""
		}
	}
	return t
}

// FirstLineTitle returns the first non-blank line of a page's text when it
// is 3 to MaxTitleRunes characters long and has a letter, else "". It is the
// title of a PDF without a usable /Title.
func FirstLineTitle(text []byte) string {
	for _, l := range strings.Split(string(text), "\n") {
		t := strings.Join(strings.Fields(CleanString(l)), " ")
		if t == "" {
			continue
		}
		if n := utf8.RuneCountInString(t); n < 3 || n > MaxTitleRunes || !strings.ContainsFunc(t, unicode.IsLetter) {
			return ""
		}
		return t
	}
	return ""
}
