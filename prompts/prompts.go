// Package prompts renders every prompt prefrag sends to a model. The prompts
// are template files embedded in the binary (templates/*.tmpl), written for
// this project from the PrefRAG paper's description of its formats (Tables
// 18 and 20), zero-shot. A directory of same-named files overrides them.
package prompts

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl
var embedded embed.FS

// Template names (file names without .tmpl).
const (
	Step          = "step"
	Judge         = "judge"
	Forced        = "forced"
	Corrective    = "corrective"
	Observation   = "observation"
	Answer        = "answer"
	FormatConcise = "answer_format_concise"
	FormatReport  = "answer_format_report"
	// Retrieval gate (SlimPLM, SmartRAG): prompts_gate.go.
	GateHeuristic = "gate_heuristic"
	GateNeed      = "gate_need"
	GateClaims    = "gate_claims"
	GateRewrite   = "gate_rewrite"
	GateDecide    = "gate_decide"
	Refine        = "refine"
	// VerifyClaims asks the judge model whether quotes support claims.
	VerifyClaims = "verify_claims"
)

var names = []string{Step, Judge, Forced, Corrective, Observation, Answer, FormatConcise, FormatReport,
	GateHeuristic, GateNeed, GateClaims, GateRewrite, GateDecide, Refine, VerifyClaims}

// ErrTemplate is matched by template loading and rendering failures.
var ErrTemplate = errors.New("prompt template")

// Set is a loaded set of templates.
type Set struct {
	tmpl    map[string]*template.Template
	sources map[string]string // name → "embedded" or override path
	hash    string
}

// Load reads the embedded templates and, when overrideDir is not empty, the
// files of the same name in it (a missing file keeps the embedded one).
func Load(overrideDir string) (*Set, error) {
	s := &Set{tmpl: map[string]*template.Template{}, sources: map[string]string{}}
	h := sha256.New()
	for _, name := range names {
		text, err := fs.ReadFile(embedded, "templates/"+name+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrTemplate, name, err)
		}
		origin := "embedded"
		if overrideDir != "" {
			p := filepath.Join(overrideDir, name+".tmpl")
			if b, err := os.ReadFile(p); err == nil {
				text, origin = b, p
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w %s: %v", ErrTemplate, p, err)
			}
		}
		t, err := template.New(name).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return nil, fmt.Errorf("%w %s (%s): %v", ErrTemplate, name, origin, err)
		}
		s.tmpl[name] = t
		s.sources[name] = origin
		fmt.Fprintf(h, "%s\x00%s\x00", name, text)
	}
	s.hash = hex.EncodeToString(h.Sum(nil))[:16]
	return s, nil
}

// MustDefault loads the embedded templates; they are tested, so it cannot
// fail in a built binary.
func MustDefault() *Set {
	s, err := Load("")
	if err != nil {
		panic(err)
	}
	return s
}

// Hash identifies the exact template texts (for session manifests).
func (s *Set) Hash() string { return s.hash }

// Overridden lists the templates that came from the override directory.
func (s *Set) Overridden() []string {
	var out []string
	for n, src := range s.sources {
		if src != "embedded" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Set) render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.tmpl[name].Execute(&b, data); err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrTemplate, name, err)
	}
	return b.String(), nil
}

// Tool is one search tool advertised in the step prompt.
type Tool struct {
	Name        string
	Description string
	Input       string
}

// StepData fills the step prompt's fixed head. The engine appends the
// scratchpad after it, so the prompt only grows between steps.
type StepData struct {
	Tools        []Tool
	MaxSteps     int
	AnswerFormat string
	Question     string
	// Preference is a sentence stating the source preference in the prompt
	// (the PrefRAG-Direct baseline); empty otherwise.
	Preference string
	// Thread is the rendered thread block of a follow-up (prompts_thread.go);
	// empty otherwise.
	Thread string
}

// ToolNames joins the tool names for the format line.
func (d StepData) ToolNames() string {
	n := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		n[i] = t.Name
	}
	return strings.Join(n, ", ")
}

// StepHead renders the head of the step prompt.
func (s *Set) StepHead(d StepData) (string, error) { return s.render(Step, d) }

// JudgeData fills the selection judge's prompt.
type JudgeData struct {
	Question string
	Obtained string // full text of everything already observed
	New      string // the documents of the new top-k not obtained before
	// Repeated names the documents of the new top-k obtained before (by
	// number and title; their text is under Obtained).
	Repeated string
}

// Judge renders the selection judge's prompt.
func (s *Set) Judge(d JudgeData) (string, error) { return s.render(Judge, d) }

// ForcedSuffix is appended to the step prompt for the forced answer.
func (s *Set) ForcedSuffix() (string, error) { return s.render(Forced, nil) }

// CorrectiveSuffix is appended after an unparseable step output.
func (s *Set) CorrectiveSuffix() (string, error) { return s.render(Corrective, nil) }

// ObservedDoc is one document as the model sees it.
type ObservedDoc struct {
	Num   int
	Title string
	Text  string
}

// ObservationData fills an observation block.
type ObservationData struct {
	Docs  []ObservedDoc
	Notes []string
}

// Observation renders the documents of one observation.
func (s *Set) Observation(d ObservationData) (string, error) { return s.render(Observation, d) }

// AnswerData fills the single-shot answer prompt of the baselines.
type AnswerData struct {
	Question     string
	Documents    string // rendered observation block, empty for no retrieval
	AnswerFormat string
}

// Answer renders the single-shot prompt.
func (s *Set) Answer(d AnswerData) (string, error) { return s.render(Answer, d) }

// AnswerFormat returns the answer format sentence for a style
// ("concise" or "report").
func (s *Set) AnswerFormat(style string) (string, error) {
	name := FormatConcise
	if style == "report" {
		name = FormatReport
	}
	out, err := s.render(name, nil)
	return strings.TrimSpace(out), err
}
