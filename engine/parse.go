package engine

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
	"github.com/prefrag/prefrag/internal/protocol"
)

// Self-evaluation labels.
const (
	LabelCorrect   = "CORRECT"
	LabelPartial   = "PARTIALLY CORRECT"
	LabelIncorrect = "INCORRECT"
)

// GenericTool is the paper's single search tool (Table 19).
const GenericTool = "Search_Engine"

// StepOutput is one parsed reasoning step.
type StepOutput struct {
	// Text is the output as kept in the scratchpad: cut before any
	// Observation the model wrote itself, trailing space trimmed.
	Text        string
	Thought     string
	Action      string // tool name; empty when there is none
	ActionInput string
	HasAnswer   bool
	Answer      string
	Label       string
	Explanation string
	Suggestions string
}

// Parseable reports whether the output has an action or an answer.
func (o StepOutput) Parseable() bool { return o.HasAnswer || o.Action != "" }

// labelRE matches a protocol label (internal/protocol) at the start of a
// line, tolerating markdown decoration: "**Action:**", "### Thought",
// "- Final Answer :", "Final Answer：".
var labelRE = lazyre.New(`(?im)^[ \t>*#\-_]*(` + protocol.Words() + `)` + protocol.Gap + protocol.Colon + protocol.Gap)

// inlineActionInput splits "Action: Search_Engine Action Input: query" when
// both are on one line (the paper's own case study prints them so).
var inlineActionInputRE = lazyre.New(`(?i)[ \t*_]*(?:` + protocol.Pattern(protocol.ActionInput) + `)` + protocol.Gap + protocol.Colon + protocol.Gap)

// observationRE finds an Observation the model wrote itself (servers that
// ignore the stop sequence): at a line start, or right after other text.
var observationRE = lazyre.New(`(?im)(^|[ \t])[ \t>*#\-_]*(?:` + protocol.Pattern(protocol.Observation) + `)` + protocol.Gap + protocol.Colon)

// bracketCall matches ReAct-style "Search_Engine[query]" actions.
var bracketCallRE = lazyre.New(`^([A-Za-z_][A-Za-z0-9_\-]*)\s*\[(.*)\]\s*$`)

// ParseStep parses a reasoning step's output. It never fails: an output
// with neither an action nor an answer has Parseable() == false.
func ParseStep(out string) StepOutput {
	text := cutObservation(out)
	res := StepOutput{Text: strings.TrimRight(text, " \t\r\n")}

	type field struct {
		name       string
		start, end int
	}
	locs := labelRE().FindAllStringSubmatchIndex(text, -1)
	var fields []field
	for i, l := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		fields = append(fields, field{name: protocol.Canonical(text[l[2]:l[3]]), start: l[1], end: end})
	}
	// Text before the first label is the thought (models often skip "Thought:").
	first := len(text)
	if len(locs) > 0 {
		first = locs[0][0]
	}
	if pre := strings.TrimSpace(text[:first]); pre != "" {
		res.Thought = pre
	}
	for _, f := range fields {
		val := strings.TrimSpace(text[f.start:f.end])
		switch f.name {
		case protocol.Thought:
			if res.Thought == "" {
				res.Thought = val
			} else if val != "" {
				res.Thought += "\n" + val
			}
		case protocol.Action:
			if res.Action != "" {
				continue // the first action wins
			}
			if loc := inlineActionInputRE().FindStringIndex(val); loc != nil {
				if res.ActionInput == "" {
					res.ActionInput = cleanQuery(val[loc[1]:])
				}
				val = val[:loc[0]]
			}
			res.Action, res.ActionInput = splitAction(val, res.ActionInput)
		case protocol.ActionInput:
			if res.ActionInput == "" {
				res.ActionInput = cleanQuery(val)
			}
		case protocol.FinalAnswer:
			if !res.HasAnswer {
				res.HasAnswer = true
				res.Answer = cleanAnswer(val)
			}
		case protocol.SelfEval:
			if res.Label == "" {
				res.Label = ParseLabel(val)
			}
		case protocol.Explanation:
			if res.Explanation == "" {
				res.Explanation = val
			}
		case protocol.Suggestions:
			if res.Suggestions == "" {
				res.Suggestions = val
			}
		}
	}
	if res.Action != "" && res.ActionInput == "" {
		// An action with nothing to search is no action.
		res.Action = ""
	}
	if res.HasAnswer && res.Answer == "" && res.Action != "" {
		res.HasAnswer = false
	}
	return res
}

func cutObservation(out string) string {
	if loc := observationRE().FindStringIndex(out); loc != nil {
		return out[:loc[0]]
	}
	return out
}

// splitAction reads a tool name, tolerating "Search_Engine[query]",
// quotes, backticks and "None".
func splitAction(val, input string) (tool, query string) {
	val = strings.TrimSpace(strings.Trim(strings.TrimSpace(val), "`*\"'"))
	if m := bracketCallRE().FindStringSubmatch(val); m != nil {
		if input == "" {
			input = cleanQuery(m[2])
		}
		val = m[1]
	}
	// Only the first word is the tool ("Search_Engine to find …").
	if f := strings.Fields(val); len(f) > 0 {
		val = strings.Trim(f[0], "`*\"'.,:;[]()")
	} else {
		val = ""
	}
	switch strings.ToLower(val) {
	case "", "none", "n/a", "no", "null", "finish", "final_answer", "answer":
		return "", ""
	}
	return val, input
}

// cleanQuery trims quotes and decoration around a search query and keeps
// its first line.
func cleanQuery(q string) string {
	q = strings.TrimSpace(q)
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		q = strings.TrimSpace(q[:i])
	}
	for i := 0; i < 3; i++ {
		q = strings.TrimSpace(strings.Trim(q, "`*\"'“”‘’[]"))
	}
	return q
}

func cleanAnswer(a string) string {
	a = strings.TrimSpace(a)
	a = strings.TrimSpace(strings.Trim(a, "*"))
	return a
}

var labelWordRE = lazyre.New(`(?i)partially[ _-]*correct|incorrect|not[ _-]+correct|correct`)

// ParseLabel reads a self-evaluation label from free text; "" when none.
func ParseLabel(s string) string {
	m := labelWordRE().FindString(s)
	switch {
	case m == "":
		return ""
	case strings.HasPrefix(strings.ToLower(m), "partially"):
		return LabelPartial
	case strings.EqualFold(m, "correct"):
		return LabelCorrect
	default:
		return LabelIncorrect
	}
}

// NegativeLabel reports whether a label asks for reflection.
func NegativeLabel(l string) bool { return l == LabelPartial || l == LabelIncorrect }

// JudgeDecision is the selection judge's parsed output.
type JudgeDecision struct {
	Analysis string
	Status   bool
	// Malformed is set when the output was not the requested JSON object.
	Malformed bool
}

var (
	jsonObjectRE   = lazyre.New(`(?s)\{.*\}`)
	statusFieldRE  = lazyre.New(`(?i)"?status"?\s*[:=]\s*"?(true|false|yes|no)\b`)
	analysisStrRE  = lazyre.New(`(?is)"?analysis"?\s*:\s*"((?:[^"\\]|\\.)*)"`)
	clearlyTrueRE  = lazyre.New(`(?i)^\W*(true|yes)\W*$`)
	clearlyFalseRE = lazyre.New(`(?i)^\W*(false|no)\W*$`)
)

// ParseJudge reads {"analysis": string, "status": bool}, tolerating code
// fences, text around the object, and "True"/"False" strings (the paper's
// prompt asks for strings). Output that does not clearly say true is false.
func ParseJudge(out string) JudgeDecision {
	out = strings.TrimSpace(out)
	if m := jsonObjectRE().FindString(out); m != "" {
		var raw struct {
			Analysis any `json:"analysis"`
			Status   any `json:"status"`
		}
		if err := json.Unmarshal([]byte(m), &raw); err == nil && raw.Status != nil {
			d := JudgeDecision{Analysis: stringify(raw.Analysis)}
			switch v := raw.Status.(type) {
			case bool:
				d.Status = v
				return d
			case string:
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "true", "yes":
					d.Status = true
					return d
				case "false", "no":
					return d
				}
			}
		}
	}
	d := JudgeDecision{Malformed: true}
	if m := analysisStrRE().FindStringSubmatch(out); m != nil {
		var s string
		if json.Unmarshal([]byte(`"`+m[1]+`"`), &s) == nil {
			d.Analysis = s
		}
	}
	if m := statusFieldRE().FindStringSubmatch(out); m != nil {
		v := strings.ToLower(m[1])
		d.Status = v == "true" || v == "yes"
	} else if clearlyTrueRE().MatchString(out) {
		d.Status = true
	} else if clearlyFalseRE().MatchString(out) {
		d.Status = false
	}
	if d.Analysis == "" {
		d.Analysis = strings.TrimSpace(out)
	}
	return d
}

func stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

var citationRE = lazyre.New(`\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]`)

// Citations returns the document numbers cited as [n] or [n, m] in order of
// first appearance.
func Citations(text string) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range citationRE().FindAllStringSubmatch(text, -1) {
		for _, part := range regexp.MustCompile(`[,;]`).Split(m[1], -1) {
			n := 0
			for _, c := range strings.TrimSpace(part) {
				n = n*10 + int(c-'0')
			}
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
