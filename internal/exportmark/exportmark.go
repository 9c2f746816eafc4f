// Package exportmark is the mark every file prefrag exports carries, so that
// `prefrag index` can recognise its own output and keep it out of a corpus:
// an export holds web-derived text and earlier answers, never a source.
//
// Markdown and HTML exports begin with the comment Comment; JSON, JSON Lines
// and preference-pair exports carry the key Key (value Version) as the first
// key of each object.
package exportmark

import "bytes"

// Key is the JSON key that marks an exported object.
const Key = "prefrag_export"

// Version is the value of Key.
const Version = 1

// Comment is the first line of a Markdown or HTML export.
// (No double hyphen inside: HTML comments may not hold one.)
const Comment = `<!-- prefrag export: written by prefrag, so "prefrag index" skips this file -->`

// commentStart is what Is looks for: the comment's stable beginning.
const commentStart = "<!-- prefrag export:"

// HeadSize is how many leading bytes of a file Is needs.
const HeadSize = 1024

// Is reports whether head, the first bytes of a file (HeadSize is enough),
// starts an export: the comment at the start of the file (after an optional
// byte-order mark and white space) or after an HTML doctype/opening tag
// within head, or a JSON object (or array of objects) whose first key is Key.
func Is(head []byte) bool {
	s := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	s = bytes.TrimLeft(s, " \t\r\n")
	if bytes.HasPrefix(s, []byte(commentStart)) {
		return true
	}
	if len(s) > 0 && s[0] == '<' {
		lower := bytes.ToLower(s[:min(len(s), 16)])
		if bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")) {
			return bytes.Contains(s, []byte(commentStart))
		}
		return false
	}
	if len(s) > 0 && s[0] == '[' {
		s = bytes.TrimLeft(s[1:], " \t\r\n")
	}
	if len(s) == 0 || s[0] != '{' {
		return false
	}
	s = bytes.TrimLeft(s[1:], " \t\r\n")
	return bytes.HasPrefix(s, []byte(`"`+Key+`"`))
}
