package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// member is one key and its encoded value in an event's JSON object.
type member struct {
	key string
	val []byte
}

// MarshalJSON writes the header plus the payload's fields, keys sorted
// (CONTRACT.md). The payload's own JSON (its tags, or its MarshalJSON for
// the contract's special rules) gives its fields. An Unknown payload is
// written as it was read: the header first, then its fields, sorted.
func (e Event) MarshalJSON() ([]byte, error) {
	if u, ok := e.Payload.(Unknown); ok || e.Payload == nil {
		return e.marshalUnknown(u)
	}
	var v any = e.Payload
	if w, ok := e.Payload.(wirer); ok {
		v = w.wire() // no MarshalJSON: encoded in one pass
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.Type(), err)
	}
	ms, err := members(body)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.Type(), err)
	}
	ms = e.appendHeader(ms, stepRuleOf(e.Payload))
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	return writeObject(ms, len(body)+160), nil
}

// appendHeader adds the header's members: type, session, seq, time, and
// turn and step when they are written.
func (e Event) appendHeader(ms []member, step StepRule) []member {
	ms = append(ms,
		member{"type", appendString(nil, e.Type())},
		member{"session", appendString(nil, e.Session)},
		member{"seq", strconv.AppendInt(nil, int64(e.Seq), 10)},
		member{"time", strconv.AppendQuote(nil, e.Time.UTC().Format(time.RFC3339Nano))})
	if e.Turn != 0 {
		ms = append(ms, member{"turn", strconv.AppendInt(nil, int64(e.Turn), 10)})
	}
	if step == StepAlways || (step == StepOptional && e.Step != 0) {
		ms = append(ms, member{"step", strconv.AppendInt(nil, int64(e.Step), 10)})
	}
	return ms
}

// marshalUnknown writes an event of a type this build does not know: the
// header in its order (turn and step when set), then the fields as read.
func (e Event) marshalUnknown(u Unknown) ([]byte, error) {
	ms := e.appendHeader(nil, StepOptional)
	keys := make([]string, 0, len(u.Fields))
	for k := range u.Fields {
		if !headerKey(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(u.Fields[k]) // compacted, HTML escaped
		if err != nil {
			return nil, fmt.Errorf("event %s field %s: %w", u.Type, k, err)
		}
		ms = append(ms, member{string(key[1 : len(key)-1]), val})
	}
	return writeObject(ms, 256), nil
}

// appendString appends s as a JSON string, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func headerKey(k string) bool {
	switch k {
	case "type", "session", "seq", "time", "turn", "step":
		return true
	}
	return false
}

func writeObject(ms []member, size int) []byte {
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	for i, m := range ms {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, m.key...)
		buf = append(buf, '"', ':')
		buf = append(buf, m.val...)
	}
	return append(buf, '}')
}

var errNotObject = errors.New("payload is not a JSON object")

// members splits a compact JSON object, as encoding/json writes it, into
// its members. Keys are payload tags: plain ASCII, no escapes.
func members(b []byte) ([]member, error) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, errNotObject
	}
	ms := make([]member, 0, 16)
	i := 1
	for i < len(b)-1 {
		if b[i] != '"' {
			return nil, errNotObject
		}
		end := i + 1
		for end < len(b) && b[end] != '"' {
			end++
		}
		key := string(b[i+1 : end])
		i = end + 2 // past `":`
		start := i
		depth, inString := 0, false
	value:
		for ; i < len(b)-1; i++ {
			c := b[i]
			switch {
			case inString:
				if c == '\\' {
					i++
				} else if c == '"' {
					inString = false
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			case c == ',' && depth == 0:
				break value
			}
		}
		if start >= i {
			return nil, errNotObject
		}
		ms = append(ms, member{key, b[start:i]})
		i++ // past ','
	}
	return ms, nil
}

func stepRuleOf(p Payload) StepRule {
	if r, ok := p.(stepRuler); ok {
		return r.StepRule()
	}
	return StepAlways
}

// UnmarshalJSON reads an event written by MarshalJSON (or by an older
// build): the header, then the payload of its type. A type this build does
// not know becomes an Unknown payload holding its fields.
func (e *Event) UnmarshalJSON(b []byte) error {
	var h struct {
		Type    string    `json:"type"`
		Session string    `json:"session"`
		Seq     int       `json:"seq"`
		Time    time.Time `json:"time"`
		Turn    int       `json:"turn"`
		Step    int       `json:"step"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	var p Payload
	if decode, ok := payloadDecoders[h.Type]; ok {
		var err error
		if p, err = decode(b); err != nil {
			return fmt.Errorf("%s event: %w", h.Type, err)
		}
	} else {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			return err
		}
		for k := range fields {
			if headerKey(k) {
				delete(fields, k)
			}
		}
		if len(fields) == 0 {
			fields = nil
		}
		p = Unknown{Type: h.Type, Fields: fields}
	}
	*e = Event{Session: h.Session, Seq: h.Seq, Time: h.Time, Turn: h.Turn, Step: h.Step, Payload: p}
	return nil
}
