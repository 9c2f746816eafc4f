// Package structured is the judge's structured output as every backend
// asks for it: a JSON schema first, then — when the server refuses that —
// a plain JSON object, then nothing, with the reply checked against the
// schema whenever the server could not constrain it. What a server refused
// is remembered for the rest of the process (the run).
package structured

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Validate checks a reply against a JSON schema, for servers that could
// not constrain it: the reply must be one JSON value (surrounding blanks
// and a ``` fence allowed) that satisfies the schema's type, properties,
// required, items, enum and additionalProperties false. Other keywords are
// not checked.
func Validate(schema []byte, reply string) error {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil // not ours to judge
	}
	dec := json.NewDecoder(strings.NewReader(unfence(reply)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the reply is not JSON: %w", err)
	}
	if dec.More() {
		return errors.New("the reply holds more than one JSON value")
	}
	return check(s, v, "$")
}

// unfence drops a Markdown code fence around a reply.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	t = strings.TrimPrefix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimSuffix(strings.TrimSpace(t), "```")
}

func check(s map[string]any, v any, at string) error {
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		return fmt.Errorf("%s: want type %v", at, t)
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if equalJSON(e, v) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: not one of the enum values", at)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, present := x[name]; !present {
						return fmt.Errorf("%s: %q is required", at, name)
					}
				}
			}
		}
		for k, val := range x {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if ap, isBool := s["additionalProperties"].(bool); isBool && !ap {
					return fmt.Errorf("%s: unexpected property %q", at, k)
				}
				continue
			}
			if err := check(ps, val, at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		if is, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := check(is, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return isType(tt, v)
	case []any:
		for _, e := range tt {
			if s, ok := e.(string); ok && isType(s, v) {
				return true
			}
		}
		return false
	}
	return true
}

func isType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return true
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
