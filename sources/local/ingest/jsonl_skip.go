package ingest

// Syntax checks for the values the fast .jsonl scanner does not keep. They
// accept exactly what encoding/json's scanner accepts (short of deep
// nesting), since a line is only decoded by the fast path when encoding/json
// would have decoded it too.

// skipJSONValue checks the value at b[i] (whitespace before it already
// skipped) and returns the index just after it. Nesting is followed with a
// bit stack rather than recursion: bit d is set when the container at depth
// d+1 is an object.
func skipJSONValue(b []byte, i int) (next int, ok bool) {
	var objects uint64
	depth := 0
	for {
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; c {
		case '"':
			i, ok = skipJSONString(b, i)
		case '{', '[':
			if depth == maxSkipDepth {
				return 0, false
			}
			i = skipJSONSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				ok = true
				break
			}
			if c == '{' {
				objects |= 1 << depth
				if i, ok = skipJSONKey(b, i); !ok {
					return 0, false
				}
			} else {
				objects &^= 1 << depth
			}
			depth++
			continue // to the first member's value
		case 't':
			i, ok = skipLiteral(b, i, "true")
		case 'f':
			i, ok = skipLiteral(b, i, "false")
		case 'n':
			i, ok = skipLiteral(b, i, "null")
		default:
			i, ok = skipJSONNumber(b, i)
		}
		if !ok {
			return 0, false
		}
		// After a value: close containers until one has a next member.
		for {
			if depth == 0 {
				return i, true
			}
			i = skipJSONSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			inObject := objects>>(depth-1)&1 == 1
			if b[i] == ',' {
				i = skipJSONSpace(b, i+1)
				if inObject {
					if i, ok = skipJSONKey(b, i); !ok {
						return 0, false
					}
				}
				break
			}
			if (inObject && b[i] == '}') || (!inObject && b[i] == ']') {
				i++
				depth--
				continue
			}
			return 0, false
		}
	}
}

// skipJSONKey checks `"key" :` at b[i] and returns the index of the value
// that follows, whitespace skipped.
func skipJSONKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := skipJSONString(b, i)
	if !ok {
		return 0, false
	}
	i = skipJSONSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipJSONSpace(b, i+1), true
}

// skipJSONString checks the string at b[i] == '"'. Like encoding/json's
// scanner it takes any byte but a control character, so invalid UTF-8 is
// fine here: encoding/json keeps it raw in a json.RawMessage.
func skipJSONString(b []byte, i int) (int, bool) {
	for j := i + 1; ; {
		j, _ = plainRun(b, j)
		if j >= len(b) || b[j] < 0x20 {
			return 0, false
		}
		if b[j] == '"' {
			return j + 1, true
		}
		// A backslash.
		if j+1 >= len(b) {
			return 0, false
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if _, ok := hex4(b, j+2); !ok {
				return 0, false
			}
			j += 6
		default:
			return 0, false
		}
	}
}

// skipLiteral checks that lit (true, false, null) is at b[i]. What follows
// is checked by the caller, which wants a delimiter.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipJSONNumber checks a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipJSONNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
