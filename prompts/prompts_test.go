package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedTemplatesRender(t *testing.T) {
	s := MustDefault()
	format, err := s.AnswerFormat("concise")
	if err != nil {
		t.Fatal(err)
	}
	head, err := s.StepHead(StepData{
		Tools:        []Tool{{Name: "Search_Engine", Description: "general search", Input: "a query"}},
		MaxSteps:     3,
		AnswerFormat: format,
		Question:     "Who?",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Search_Engine", "at most 3 times", "Self-Evaluation:", "CORRECT, PARTIALLY CORRECT or INCORRECT", "Improvement Suggestions:", "Question: Who?\n"} {
		if !strings.Contains(head, want) {
			t.Errorf("step head lacks %q:\n%s", want, head)
		}
	}
	if strings.Contains(head, `\n`) {
		t.Error("step head has a literal backslash-n")
	}
	if !strings.HasSuffix(head, "Question: Who?\n") {
		t.Errorf("step head must end with the question line so the scratchpad is appended after it: %q", head[len(head)-40:])
	}
	j, err := s.Judge(JudgeData{Question: "Q", New: "[1] title: a"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j, "(nothing yet)") || !strings.Contains(j, `"status"`) {
		t.Errorf("judge prompt: %s", j)
	}
	obs, err := s.Observation(ObservationData{Docs: []ObservedDoc{{Num: 4, Title: "T", Text: "body"}}, Notes: []string{"web unavailable"}})
	if err != nil {
		t.Fatal(err)
	}
	if obs != "[4] title: T\ncontent: body\n(web unavailable)\n" {
		t.Errorf("observation = %q", obs)
	}
	empty, _ := s.Observation(ObservationData{})
	if !strings.Contains(empty, "No documents") {
		t.Errorf("empty observation = %q", empty)
	}
}

func TestOverrideDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judge.tmpl"), []byte("custom {{.Question}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := s.Judge(JudgeData{Question: "Q"})
	if j != "custom Q" {
		t.Errorf("override not used: %q", j)
	}
	if s.Hash() == MustDefault().Hash() {
		t.Error("hash must change with an override")
	}
	if got := s.Overridden(); len(got) != 1 || got[0] != "judge" {
		t.Errorf("Overridden = %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "step.tmpl"), []byte("{{.Nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Error("a broken override must fail to load")
	}
}
