package prompts

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/protocol"
)

// The templates that teach the model the reasoning format write its
// labels (Thought:, Action:, … Improvement Suggestions:) as text; the step
// parser reads them through internal/protocol's table. These tests hold
// the two together: a label the templates write is one the parser reads,
// and every label the parser reads is taught.
//
// Mutations these catch (each made by hand once): "Final Answer:" written
// "Final Response:" in step.tmpl; protocol's self-evaluation pattern
// changed to "self[- \t]*assessment" (the templates still say
// Self-Evaluation); "Action Input" written "Action Query" in
// corrective.tmpl.

// lineHead is the words before a colon at the start of a line.
var lineHead = regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z \t-]*?)[ \t*_]*(?::|：)`)

// headings are the line heads of the format templates that are not
// protocol labels: the question, the note on the answer's format, the
// format's introduction.
var headings = map[string]bool{"Question": true, "Note": true, "Use this format": true}

// templateLabels returns the canonical labels written at the start of a
// line of template name, and the line heads that are neither labels nor
// known headings.
func templateLabels(t *testing.T, name string) (labels map[string]bool, strangers []string) {
	t.Helper()
	text, err := embedded.ReadFile("templates/" + name + ".tmpl")
	if err != nil {
		t.Fatal(err)
	}
	labels = map[string]bool{}
	for _, m := range lineHead.FindAllStringSubmatch(string(text), -1) {
		words := strings.TrimSpace(m[1])
		if c := protocol.Canonical(words); c != "" {
			labels[c] = true
		} else if !headings[words] {
			strangers = append(strangers, words)
		}
	}
	return labels, strangers
}

func TestDesignTemplateLabelsAreProtocolLabels(t *testing.T) {
	want := map[string][]string{
		Step:   nil, // every label
		Forced: {protocol.Thought, protocol.FinalAnswer},
	}
	for _, l := range protocol.Labels {
		want[Step] = append(want[Step], l.Name)
	}
	for name, needed := range want {
		labels, strangers := templateLabels(t, name)
		for _, s := range strangers {
			t.Errorf("%s.tmpl starts a line with %q:, which the step parser does not read as a label (internal/protocol)", name, s)
		}
		var missing []string
		for _, l := range needed {
			if !labels[l] {
				missing = append(missing, l)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s.tmpl does not write the labels %s at the start of a line as the parser reads them", name, strings.Join(missing, ", "))
		}
	}
}

// The corrective reminder names the labels in a sentence: every label the
// model writes (all but Observation, which the tool's result fills in), as
// the parser reads it.
func TestDesignCorrectiveNamesEveryLabel(t *testing.T) {
	text, err := embedded.ReadFile("templates/" + Corrective + ".tmpl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range protocol.Labels {
		if l.Name == protocol.Observation {
			continue
		}
		re := regexp.MustCompile(`(?i)(?:^|[^A-Za-z])(?:` + protocol.Pattern(l.Name) + `)(?:[^A-Za-z]|$)`)
		if !re.Match(text) {
			t.Errorf("corrective.tmpl does not name the label %q as the parser reads it", l.Name)
		}
	}
}
