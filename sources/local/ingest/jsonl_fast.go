package ingest

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// The fast path of ParseJSONLLine. Decoding each line into a
// map[string]json.RawMessage and then each field again made encoding/json
// the largest cost of reading a .jsonl corpus. This scanner reads the line
// once, keeps the values of the keys we want and checks the syntax of the
// rest. It only has to be right when it says ok: on anything it is not sure
// to decode exactly as encoding/json would (a key with an escape, a wanted
// value that is not a plain string, invalid UTF-8 or a lone surrogate in a
// wanted string, a fractional id, deep nesting, any syntax error) it gives
// up, and encoding/json decodes the line and words the error.

// maxSkipDepth bounds the nesting of skipped values; the container stack is
// one bit per level of a uint64. encoding/json allows far more (10000), so
// giving up here never accepts a line that it rejects.
const maxSkipDepth = 64

// maxIDDigits bounds a numeric id the scanner takes itself: an integer of at
// most 300 digits is always within float64 range, so the slow path's
// strconv.ParseFloat check cannot fail on it.
const maxIDDigits = 300

// Indexes of the wanted keys in scanJSONLObject's values.
const (
	keyText = iota
	keyContents
	keyTitle
	keyURL
	keyID
	keyCount
)

// scanJSONLObject scans a trimmed, non-blank line. When ok, the fields are
// exactly what parseJSONLSlow would pass to record: for duplicate keys the
// last value wins, as in encoding/json's map decoding.
//
// Strings with escapes are decoded into buf (appended to, so values already
// there stay valid even if it has to grow); the caller gives a scratch
// buffer on its stack, as the values are only read until record copies
// them out.
func scanJSONLObject(line, buf []byte) (f jsonlFields, ok bool) {
	var vals [keyCount][]byte
	n := len(line)
	if n == 0 || line[0] != '{' {
		return f, false
	}
	i := skipJSONSpace(line, 1)
	if i < n && line[i] == '}' {
		i++
	} else {
		for {
			key, next, ok := scanPlainKey(line, i)
			if !ok {
				return f, false
			}
			i = skipJSONSpace(line, next)
			if i >= n || line[i] != ':' {
				return f, false
			}
			i = skipJSONSpace(line, i+1)
			k := wantedKey(key)
			if k < 0 {
				i, ok = skipJSONValue(line, i)
			} else {
				vals[k], buf, i, ok = scanWantedValue(line, i, buf, k == keyID)
			}
			if !ok {
				return f, false
			}
			i = skipJSONSpace(line, i)
			if i >= n {
				return f, false
			}
			if line[i] == ',' {
				i = skipJSONSpace(line, i+1)
				continue
			}
			if line[i] != '}' {
				return f, false
			}
			i++
			break
		}
	}
	if skipJSONSpace(line, i) != n {
		return f, false // trailing data after the object
	}
	f.id, f.title, f.url = vals[keyID], vals[keyTitle], vals[keyURL]
	f.text = pickText(vals[keyText], vals[keyContents])
	return f, true
}

func wantedKey(key []byte) int {
	switch string(key) {
	case "text":
		return keyText
	case "contents":
		return keyContents
	case "title":
		return keyTitle
	case "url":
		return keyURL
	case "id":
		return keyID
	}
	return -1
}

// scanPlainKey reads an object key at i. A key with an escape gives up (it
// could decode to a wanted name); one with raw invalid UTF-8 is kept as is,
// as it cannot equal a wanted (ASCII) name either raw or decoded.
func scanPlainKey(b []byte, i int) (key []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// scanWantedValue reads the value of a wanted key: a string, null (which
// encoding/json's callers treat as absent: nil), or for the id an integer,
// kept as its literal like json.Number.
func scanWantedValue(b []byte, i int, buf []byte, isID bool) (val, outBuf []byte, next int, ok bool) {
	if i >= len(b) {
		return nil, buf, 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return scanJSONString(b, i, buf)
	case c == 'n':
		next, ok = skipLiteral(b, i, "null")
		return nil, buf, next, ok
	case isID && (c == '-' || (c >= '0' && c <= '9')):
		next, ok = skipJSONNumber(b, i)
		if !ok {
			return nil, buf, 0, false
		}
		lit := b[i:next]
		digits := len(lit)
		if lit[0] == '-' {
			digits--
		}
		if digits > maxIDDigits || bytes.ContainsAny(lit, ".eE") {
			return nil, buf, 0, false
		}
		return lit, buf, next, true
	}
	return nil, buf, 0, false
}

// scanJSONString decodes the string at b[i] == '"'. Without escapes the
// value is a slice of b; with them it is decoded into buf.
func scanJSONString(b []byte, i int, buf []byte) (val, outBuf []byte, next int, ok bool) {
	start := i + 1
	j, high := plainRun(b, start)
	if j >= len(b) {
		return nil, buf, 0, false
	}
	switch b[j] {
	case '"':
		val = b[start:j]
		if high && !utf8.Valid(val) {
			return nil, buf, 0, false
		}
		return val, buf, j + 1, true
	case '\\':
		return decodeEscapedString(b, start, j, high, buf)
	}
	return nil, buf, 0, false // a control character
}

// shortEscapes maps the letter of a two-byte JSON escape to its byte.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodeEscapedString continues scanJSONString from the first backslash at
// j. The raw bytes are checked for UTF-8 over the whole span, escapes
// included: an escape is ASCII, so it cannot join or split a multi-byte
// sequence, and the span is valid exactly when every raw run is. The value
// is appended to buf; should append move buf, the values already decoded
// stay valid in the old array, which is never written again.
func decodeEscapedString(b []byte, start, j int, high bool, buf []byte) (val, outBuf []byte, next int, ok bool) {
	from := len(buf)
	run := start // start of the raw run not yet copied
	for {
		// b[j] is a quote, a backslash or a control character.
		if j >= len(b) || b[j] < 0x20 {
			return nil, buf, 0, false
		}
		if b[j] == '"' {
			if high && !utf8.Valid(b[start:j]) {
				return nil, buf, 0, false
			}
			buf = append(buf, b[run:j]...)
			return buf[from:len(buf):len(buf)], buf, j + 1, true
		}
		buf = append(buf, b[run:j]...)
		if j+1 >= len(b) {
			return nil, buf, 0, false
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			buf = append(buf, shortEscapes[e])
			j += 2
		case 'u':
			r, ok := hex4(b, j+2)
			if !ok {
				return nil, buf, 0, false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				// Only a high surrogate followed by an escaped low one is
				// taken; encoding/json's U+FFFD for the rest is left to it.
				if r >= 0xdc00 || j+1 >= len(b) || b[j] != '\\' || b[j+1] != 'u' {
					return nil, buf, 0, false
				}
				r2, ok := hex4(b, j+2)
				if !ok || r2 < 0xdc00 || r2 > 0xdfff {
					return nil, buf, 0, false
				}
				r = utf16.DecodeRune(r, r2)
				j += 6
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, buf, 0, false
		}
		run = j
		var h bool
		j, h = plainRun(b, j)
		high = high || h
	}
}

// plainRun returns the index of the first quote, backslash or control
// character at or after j (len(b) if none), and whether a non-ASCII byte
// came before it. Strings are most of a line, so it goes 8 bytes at a time.
func plainRun(b []byte, j int) (int, bool) {
	var seen uint64
	for ; j+8 <= len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		if hasByteBelow(w, 0x20) || hasByte(w, '"') || hasByte(w, '\\') {
			break
		}
		seen |= w
	}
	high := seen&highBits != 0
	for ; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"' || c == '\\' || c < 0x20:
			return j, high
		case c >= 0x80:
			high = true
		}
	}
	return j, high
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
