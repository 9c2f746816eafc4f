package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func TestParseStep(t *testing.T) {
	tests := []struct {
		name                  string
		in                    string
		thought, action, inp  string
		answer, label         string
		hasAnswer, parseable  bool
		explanation, suggests string
	}{
		{
			name:    "plain action",
			in:      "Thought: I need the chemist.\nAction: Search_Engine\nAction Input: Danish chemist pH",
			thought: "I need the chemist.", action: "Search_Engine", inp: "Danish chemist pH", parseable: true,
		},
		{
			name:    "markdown bold and quotes",
			in:      "**Thought:** find it\n**Action:** Search_Engine\n**Action Input:** \"who introduced pH\"",
			thought: "find it", action: "Search_Engine", inp: "who introduced pH", parseable: true,
		},
		{
			name:    "missing thought label",
			in:      "I should search.\nAction: Search_Engine\nAction Input: pH",
			thought: "I should search.", action: "Search_Engine", inp: "pH", parseable: true,
		},
		{
			name:    "action and input on one line",
			in:      "Thought: x\nAction: Search_Engine Action Input: \"Danish plant ecologist\"",
			thought: "x", action: "Search_Engine", inp: "Danish plant ecologist", parseable: true,
		},
		{
			name:    "react bracket call",
			in:      "Thought: x\nAction: Search_Engine[Carsten Olsen]",
			thought: "x", action: "Search_Engine", inp: "Carsten Olsen", parseable: true,
		},
		{
			name:    "hallucinated observation is cut",
			in:      "Thought: x\nAction: Search_Engine\nAction Input: q\nObservation: made up\nThought: more\nFinal Answer: 1900",
			thought: "x", action: "Search_Engine", inp: "q", parseable: true,
		},
		{
			name:    "action none is no action",
			in:      "Thought: nothing to do\nAction: None\nAction Input: ",
			thought: "nothing to do",
		},
		{
			name:    "final answer with evaluation",
			in:      "Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: found it\nImprovement Suggestions: None needed",
			thought: "I now know the final answer to the original question", answer: "1974", label: LabelCorrect,
			hasAnswer: true, parseable: true, explanation: "found it", suggests: "None needed",
		},
		{
			name:    "final answer wins over action",
			in:      "Thought: t\nAction: Search_Engine\nAction Input: q\nFinal Answer: Paris\nSelf-Evaluation: PARTIALLY CORRECT",
			thought: "t", action: "Search_Engine", inp: "q", answer: "Paris", label: LabelPartial, hasAnswer: true, parseable: true,
		},
		{
			name:   "incorrect label in brackets",
			in:     "Final Answer: Not available\nSelf-Evaluation: [INCORRECT]\nExplanation: no info",
			answer: "Not available", label: LabelIncorrect, hasAnswer: true, parseable: true, explanation: "no info",
		},
		{
			name:   "bold final answer",
			in:     "**Final Answer:** **Grouplogic**\n**Self-Evaluation:** CORRECT",
			answer: "Grouplogic", label: LabelCorrect, hasAnswer: true, parseable: true,
		},
		{
			name:    "unparseable prose",
			in:      "I am not sure what to do here.",
			thought: "I am not sure what to do here.",
		},
		{
			name:    "heading labels",
			in:      "### Thought\nfind\n### Action:\nSearch_Local\n### Action Input:\n`q x`",
			thought: "### Thought\nfind", action: "Search_Local", inp: "q x", parseable: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseStep(tt.in)
			if got.Thought != tt.thought || got.Action != tt.action || got.ActionInput != tt.inp ||
				got.Answer != tt.answer || got.Label != tt.label || got.HasAnswer != tt.hasAnswer ||
				got.Parseable() != tt.parseable || got.Explanation != tt.explanation || got.Suggestions != tt.suggests {
				t.Errorf("ParseStep(%q)\n got %+v", tt.in, got)
			}
			if strings.Contains(got.Text, "made up") {
				t.Errorf("hallucinated observation kept in scratchpad text: %q", got.Text)
			}
		})
	}
}

func TestParseLabel(t *testing.T) {
	for in, want := range map[string]string{
		"CORRECT": LabelCorrect, "Partially Correct": LabelPartial, "INCORRECT.": LabelIncorrect,
		"[CORRECT[CORRECT]]": LabelCorrect, "not correct": LabelIncorrect, "unsure": "",
		"PARTIALLY_CORRECT": LabelPartial,
	} {
		if got := ParseLabel(in); got != want {
			t.Errorf("ParseLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseJudge(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		status    bool
		analysis  string
		malformed bool
	}{
		{"bool", `{"analysis": "adds the year", "status": true}`, true, "adds the year", false},
		{"string False", `{"analysis": "repeats", "status": "False"}`, false, "repeats", false},
		{"fenced", "```json\n{\"analysis\": \"new\", \"status\": \"True\"}\n```", true, "new", false},
		{"text around", "Here you go: {\"analysis\":\"x\",\"status\":false} done", false, "x", false},
		{"broken json clear true", `{"analysis": "adds it", "status": true`, true, "adds it", true},
		{"prose", "I think it helps", false, "I think it helps", true},
		{"bare true", "True", true, "True", true},
		{"empty", "", false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseJudge(tt.in)
			if got.Status != tt.status || got.Analysis != tt.analysis || got.Malformed != tt.malformed {
				t.Errorf("ParseJudge(%q) = %+v", tt.in, got)
			}
		})
	}
}

func TestCitations(t *testing.T) {
	got := Citations("Olsen died in 1974 [2]. He assisted Sørensen [1, 3][2]; see [12].")
	if want := []int{2, 1, 3, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("Citations = %v, want %v", got, want)
	}
	if got := Citations("no citations [a] [ ]"); got != nil {
		t.Errorf("got %v", got)
	}
}

func FuzzParseStep(f *testing.F) {
	for _, s := range []string{
		"Thought: x\nAction: Search_Engine\nAction Input: q",
		"Final Answer: 1\nSelf-Evaluation: CORRECT",
		"**Action:** Search_Engine[q]\nObservation: x",
		"Action: Search_Engine Action Input: \"a\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseStep(s)
		if got.Action != "" && !got.HasAnswer && strings.TrimSpace(got.ActionInput) == "" {
			t.Fatalf("action without input from %q", s)
		}
		if strings.Contains(strings.ToLower(got.Text), "observation:") && observationRE().MatchString(got.Text) {
			t.Fatalf("observation kept in %q", got.Text)
		}
		switch got.Label {
		case "", LabelCorrect, LabelPartial, LabelIncorrect:
		default:
			t.Fatalf("bad label %q", got.Label)
		}
	})
}

// FuzzParseJudge checks properties of the judge parser on any text, and on
// judge verdicts built from the fuzzed analysis and status:
//   - a JSON object with a boolean (or "True"/"False" string) status, bare,
//     fenced or inside prose, is parsed to that status and its analysis,
//     and is not malformed;
//   - a lone "true"/"yes"/"false"/"no" with any punctuation around it is
//     honoured;
//   - text that does not say true or yes is never read as true, and text
//     without an object or a status field is true only when it is a lone
//     "true" or "yes".
func FuzzParseJudge(f *testing.F) {
	for _, s := range []string{`{"analysis":"a","status":true}`, `{"status":"False"}`, "true", "{", "status: yes", " No.", "```"} {
		f.Add(s, "adds the year of death", true)
	}
	f.Add("Here you go:", "", false)
	f.Add("**", "repeats \"the\" chemist\n", true)
	saysTrue := regexp.MustCompile(`(?i)true|yes`)
	statusWord := regexp.MustCompile(`(?i)status`)
	f.Fuzz(func(t *testing.T, s, analysis string, status bool) {
		_ = Citations(s)
		got := ParseJudge(s)
		if got.Status && !strings.Contains(s, `\`) && !saysTrue.MatchString(s) {
			t.Fatalf("ParseJudge(%q) = true, but the text never says true or yes", s)
		}
		if !strings.Contains(s, "{") && !statusWord.MatchString(s) {
			// No object and no status field: only a lone true/yes word is true.
			core := strings.TrimFunc(s, func(r rune) bool { return !foldsToASCIIWord(r) })
			clear := strings.EqualFold(core, "true") || strings.EqualFold(core, "yes")
			if got.Status != clear {
				t.Fatalf("ParseJudge(%q).Status = %v, want %v", s, got.Status, clear)
			}
		}
		if !got.Malformed && !(strings.Contains(s, "{") && strings.Contains(s, "}")) {
			t.Fatalf("ParseJudge(%q) is not malformed without a JSON object", s)
		}

		obj, err := json.Marshal(map[string]any{"analysis": analysis, "status": status})
		if err != nil {
			t.Fatal(err)
		}
		var want struct{ Analysis string }
		if err := json.Unmarshal(obj, &want); err != nil { // invalid UTF-8 becomes U+FFFD
			t.Fatal(err)
		}
		prose := strings.NewReplacer("{", "", "}", "").Replace(s)
		strStatus := fmt.Sprintf(`{"analysis": %s, "status": %q}`, mustJSON(t, analysis), map[bool]string{true: "True", false: "False"}[status])
		for _, in := range []string{
			string(obj),
			"```json\n" + string(obj) + "\n```",
			prose + " " + string(obj) + "\n" + prose,
			strStatus,
		} {
			d := ParseJudge(in)
			if d.Status != status || d.Analysis != want.Analysis || d.Malformed {
				t.Fatalf("ParseJudge(%q) = %+v, want status %v, analysis %q", in, d, status, want.Analysis)
			}
		}

		word := map[bool][]string{true: {"true", "True", "YES"}, false: {"false", "False", "no"}}[status][len(s)%3]
		deco := strings.Map(func(r rune) rune {
			if r == '{' || r == '}' || foldsToASCIIWord(r) {
				return -1
			}
			return r
		}, s)
		if d := ParseJudge(deco + word + deco); d.Status != status {
			t.Fatalf("ParseJudge(%q) = %+v, want status %v", deco+word+deco, d, status)
		}
	})
}

// foldsToASCIIWord reports whether r is, or case-folds to, an ASCII word
// character (as 'ſ' folds to 's'): not punctuation for a (?i) regexp.
func foldsToASCIIWord(r rune) bool {
	for f := r; ; {
		if f == '_' || f >= '0' && f <= '9' || f >= 'a' && f <= 'z' || f >= 'A' && f <= 'Z' {
			return true
		}
		if f = unicode.SimpleFold(f); f == r {
			return false
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
