package ingest

import (
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// fileNameTitle matches a <title> that is only a file name, as EPUB
// converters write them: "ch01.xhtml", "index_split_003.html",
// "OEBPS/part0004.xhtml".
var fileNameTitle = lazyre.New(`(?i)^[\w./\-]+\.(x?html?|xml)$`)

// IsFileNameTitle reports whether a page title is only a file name.
func IsFileNameTitle(t string) bool { return fileNameTitle().MatchString(strings.TrimSpace(t)) }

// navLabel finds the labels of a texinfo navigation line ("Next: Types,
// Previous: Closures, Up: Top   [Contents][Index]"), each at the line's
// start or after a comma.
var navLabel = lazyre.New(`(?:^|,\s*)(Next|Previous|Prev|Up):\s`)

// navLinks are the bracketed links texinfo puts after the labels.
var navLinks = lazyre.New(`\[(Contents|Index)\]\s*$`)

// isNavLine reports whether a line of page text is a texinfo-style
// navigation line: it starts with a label and names two of them, or ends
// with the [Contents]/[Index] links. A sentence that merely begins with
// "Next:" is kept.
func isNavLine(line string) bool {
	line = strings.TrimSpace(line)
	if len(line) > 400 {
		return false
	}
	if loc := navLabel().FindStringIndex(line); loc == nil || loc[0] != 0 {
		return false
	}
	labels := map[string]bool{}
	for _, m := range navLabel().FindAllStringSubmatch(line, -1) {
		labels[m[1]] = true
	}
	return len(labels) >= 2 || navLinks().MatchString(line)
}

// dropNavLines removes texinfo-style navigation lines from page text.
func dropNavLines(text string) string {
	if !strings.Contains(text, ":") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	dropped := false
	for _, l := range lines {
		if isNavLine(l) {
			dropped = true
			continue
		}
		out = append(out, l)
	}
	if !dropped {
		return text
	}
	return strings.Join(out, "\n")
}
