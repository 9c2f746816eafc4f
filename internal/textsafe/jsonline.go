package textsafe

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// JSONStrings returns a JSON text with ForTerminal applied to every string
// in it (keys and values), for JSON written before text was sanitised at
// the source (sessions stored by older versions): `jq -r` would otherwise
// write a stored escape sequence to the terminal. Everything else — key
// order, numbers, spacing — is copied byte for byte, and a text that needs
// no change is returned as it is. Raw control bytes outside strings (only
// in invalid JSON) are dropped too.
func JSONStrings(b []byte) []byte {
	if !needsJSONCleaning(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '"' {
			if c >= 0x20 || c == '\n' || c == '\t' || c == '\r' {
				out = append(out, c)
			}
			i++
			continue
		}
		end := stringEnd(b, i)
		tok := b[i:end]
		var s string
		if json.Unmarshal(tok, &s) != nil {
			// An unterminated or broken string: keep its text, sanitised,
			// as a string.
			s = string(tok[1:])
		} else if ForTerminal(s) == s && utf8.Valid(tok) {
			out = append(out, tok...)
			i = end
			continue
		}
		enc, _ := json.Marshal(ForTerminal(s))
		out = append(out, enc...)
		i = end
	}
	return out
}

// stringEnd returns the index after the JSON string starting at b[i] (a
// quote), or len(b) when it is not terminated.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// needsJSONCleaning is a cheap test for anything ForTerminal could remove:
// an escaped control character (\b, \f, \r or \u00XX — Go's encoder also
// writes <, > and & as \u00XX, so this over-matches a little), a raw
// control byte, DEL, or
// any non-ASCII byte (C1 controls, bidi controls, invalid UTF-8).
func needsJSONCleaning(b []byte) bool {
	for _, esc := range []string{`\u`, `\b`, `\f`, `\r`} {
		if bytes.Contains(b, []byte(esc)) {
			return true
		}
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c >= 0x7f {
			return true
		}
	}
	return false
}
