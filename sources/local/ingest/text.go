package ingest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SniffSize is how much of a file Sniff wants to see.
const SniffSize = 8 << 10

// Encoding is the text encoding Sniff detected.
type Encoding int

const (
	UTF8 Encoding = iota
	// Windows1252 is assumed for text that is not valid UTF-8 but has no
	// binary bytes (Latin-1 and Windows "ANSI" files).
	Windows1252
)

// NotTextError says why a file was not taken as text.
type NotTextError struct {
	Reason string
}

func (e *NotTextError) Error() string { return "not a text file: " + e.Reason }

// Sniff looks at the start of a file and tells whether it is text, and in
// which encoding. A NUL byte, more than 10% control bytes or more than 30%
// bytes that are not UTF-8 mean binary data (an image or archive renamed
// .txt); fewer invalid bytes mean a Windows-1252 (Latin-1) text.
func Sniff(sample []byte) (Encoding, error) {
	if len(sample) == 0 {
		return UTF8, nil
	}
	control, invalid := 0, 0
	for i := 0; i < len(sample); {
		c := sample[i]
		if c == 0 {
			return UTF8, &NotTextError{Reason: "binary data (NUL bytes)"}
		}
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
				control++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(sample)-i < utf8.UTFMax && !utf8.FullRune(sample[i:]) {
				break // a rune cut by the end of the sample
			}
			invalid++
			i++
			continue
		}
		i += size
	}
	if control*10 > len(sample) {
		return UTF8, &NotTextError{Reason: fmt.Sprintf("binary data (%d control bytes in the first %d)", control, len(sample))}
	}
	// Latin-1 text has a few high bytes among ASCII letters; binary data
	// that is not UTF-8 has many.
	if invalid*10 > len(sample)*3 {
		return UTF8, &NotTextError{Reason: fmt.Sprintf("binary data (%d bytes that are not UTF-8 in the first %d)", invalid, len(sample))}
	}
	if invalid > 0 {
		return Windows1252, nil
	}
	return UTF8, nil
}

// Clean makes outside text safe to store and show: it keeps tabs and
// newlines, drops every other control character (C0, DEL, C1, so no escape
// sequence survives), drops bidirectional overrides, and replaces invalid
// UTF-8 with U+FFFD.
func Clean(b []byte) string {
	clean := true
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if dropRune(r) || (r == utf8.RuneError && size <= 1) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' {
				sb.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			sb.WriteRune(utf8.RuneError)
		case dropRune(r):
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// CleanString is Clean for strings.
func CleanString(s string) string { return Clean([]byte(s)) }

func dropRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || // C1 controls
		(r >= 0x202a && r <= 0x202e) || // bidi embeddings and overrides
		(r >= 0x2066 && r <= 0x2069) // bidi isolates
}

// MarkdownTitle returns the first ATX heading ("# Title") in the start of a
// markdown file, or the title of its YAML front matter, or "".
func MarkdownTitle(sample []byte) string {
	lines := strings.Split(string(sample), "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if l == "---" || l == "..." {
				break
			}
			if v, ok := strings.CutPrefix(l, "title:"); ok {
				v = strings.Trim(strings.TrimSpace(v), `"'`)
				if v = strings.Join(strings.Fields(CleanString(v)), " "); v != "" {
					return v
				}
			}
		}
	}
	fence := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(t, "#") {
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		rest := t[level:]
		if level > 6 || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
		if rest != "" {
			return strings.Join(strings.Fields(CleanString(rest)), " ")
		}
	}
	return ""
}
