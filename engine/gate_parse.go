package engine

import (
	"encoding/json"
	"strings"
)

// GateDecision is a parsed necessity judgment (or SmartRAG decision):
// {"analysis": string, "retrieve": bool[, "query": string]}.
type GateDecision struct {
	Analysis string
	Retrieve bool
	Query    string
	// Malformed: the reply was not the requested JSON; Retrieve is then
	// true (when unsure, look it up).
	Malformed bool
}

// ParseGateDecision reads the gate's JSON, tolerating code fences, text
// around the object and "true"/"false" strings. Output that does not
// clearly say false means retrieve.
func ParseGateDecision(out string) GateDecision {
	out = strings.TrimSpace(out)
	if m := jsonObjectRE().FindString(out); m != "" {
		var raw struct {
			Analysis any `json:"analysis"`
			Retrieve any `json:"retrieve"`
			Query    any `json:"query"`
		}
		if err := json.Unmarshal([]byte(m), &raw); err == nil && raw.Retrieve != nil {
			d := GateDecision{Analysis: stringify(raw.Analysis), Query: strings.TrimSpace(stringify(raw.Query))}
			switch v := raw.Retrieve.(type) {
			case bool:
				d.Retrieve = v
				return d
			case string:
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "true", "yes":
					d.Retrieve = true
					return d
				case "false", "no":
					return d
				}
			}
		}
	}
	d := GateDecision{Malformed: true, Retrieve: true}
	if m := analysisStrRE().FindStringSubmatch(out); m != nil {
		var s string
		if json.Unmarshal([]byte(`"`+m[1]+`"`), &s) == nil {
			d.Analysis = s
		}
	}
	return d
}

// maxQueryLen bounds one gate query (a query is a search phrase, not a
// paragraph).
const maxQueryLen = 300

// ParseGateQueries reads "Query: …" lines (bullets, numbers and quotes
// around them tolerated; when no line has the prefix, every non-empty line
// is a query), drops duplicates and keeps at most max.
func ParseGateQueries(out string, max int) []string {
	lines := strings.Split(out, "\n")
	prefixed := false
	for _, l := range lines {
		if _, ok := cutQueryPrefix(l); ok {
			prefixed = true
			break
		}
	}
	var qs []string
	seen := map[string]bool{}
	for _, l := range lines {
		q, ok := cutQueryPrefix(l)
		if !ok {
			if prefixed {
				continue
			}
			q = trimListMarker(l)
		}
		q = strings.Trim(strings.TrimSpace(q), "\"“”'`")
		q = strings.TrimSpace(q)
		if len(q) > maxQueryLen {
			q = strings.ToValidUTF8(q[:maxQueryLen], "")
		}
		key := strings.ToLower(q)
		if q == "" || seen[key] {
			continue
		}
		seen[key] = true
		qs = append(qs, q)
		if len(qs) == max {
			break
		}
	}
	return qs
}

func cutQueryPrefix(line string) (string, bool) {
	l := trimListMarker(line)
	if len(l) >= 6 && strings.EqualFold(l[:6], "query:") {
		return l[6:], true
	}
	return "", false
}

// trimListMarker drops "- ", "* ", "1. ", "2) " before a line's text.
func trimListMarker(line string) string {
	l := strings.TrimSpace(line)
	l = strings.TrimLeft(l, "-*• ")
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		l = l[i+1:]
	}
	return strings.TrimSpace(l)
}
