// Package protocol is the one definition of the labels of the reasoning
// format (Thought / Action / Action Input / Observation / Final Answer /
// Self-Evaluation / Explanation / Improvement Suggestions): the step parser
// reads them from a model's output and textsafe.ForPrompt defangs them in
// documents, both from the patterns built here, so a variant the parser
// accepts (a full-width colon, a singular "Improvement Suggestion") is one
// the documents cannot carry.
package protocol

import (
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// Label is one protocol label.
type Label struct {
	// Name is the canonical name, lower case ("final answer").
	Name string
	// pattern is the regular expression of the label's words, matched
	// case-insensitively; spaces between words may be any run of blanks.
	pattern string
}

// Labels is the table of protocol labels. "action input" comes before
// "action" so that the longer label wins an alternation.
var Labels = []Label{
	{"thought", `thought`},
	{"action input", `action[ \t]+input`},
	{"action", `action`},
	{"observation", `observation`},
	{"final answer", `final[ \t]+answer`},
	{"self-evaluation", `self[- \t]*evaluation`},
	{"explanation", `explanation`},
	{"improvement suggestions", `improvement[ \t]+suggestions?`},
}

// Canonical names of the labels, as Canonical returns them.
const (
	Thought     = "thought"
	Action      = "action"
	ActionInput = "action input"
	Observation = "observation"
	FinalAnswer = "final answer"
	SelfEval    = "self-evaluation"
	Explanation = "explanation"
	Suggestions = "improvement suggestions"
)

// Colon is the pattern of what ends a label: an ASCII or a full-width
// colon.
const Colon = `(?::|：)`

// Gap is the pattern of what may stand between a label and its colon:
// blanks and markdown emphasis ("**Action:**", "Final Answer :").
const Gap = `[ \t*_]*`

// Words is an alternation of every label's words, to be wrapped in a
// case-insensitive group.
func Words() string {
	alts := make([]string, len(Labels))
	for i, l := range Labels {
		alts[i] = l.pattern
	}
	return strings.Join(alts, "|")
}

// Pattern is the words of one label ("" for an unknown name).
func Pattern(name string) string {
	for _, l := range Labels {
		if l.Name == name {
			return l.pattern
		}
	}
	return ""
}

// exact matches label words as a whole, one group per label.
var exact = lazyre.New(func() string {
	groups := make([]string, len(Labels))
	for i, l := range Labels {
		groups[i] = "(" + l.pattern + ")"
	}
	return `(?i)^(?:` + strings.Join(groups, "|") + `)$`
}())

// Canonical is the name of the label words matched ("Final  Answer",
// "Improvement Suggestion" → "final answer", "improvement suggestions");
// "" when they are no label.
func Canonical(words string) string {
	m := exact().FindStringSubmatchIndex(words)
	for i := range Labels {
		if m != nil && m[2+2*i] >= 0 {
			return Labels[i].Name
		}
	}
	return ""
}
