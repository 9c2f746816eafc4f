package eval

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
)

// oldRunJSON is a run.json entry as written before the settings schema
// (one struct field per compared setting).
const oldRunJSON = `{"dataset":"hotpot","data":"/data/hotpot.jsonl","model":"m","judge_model":"m","llm":"ollama","k":5,"max_steps":3,` +
	`"max_reflections":1,"judge_first":true,"num_ctx":16384,"temperature":0.1,"top_p":0.9,"answer_style":"concise",` +
	`"corpora":["hotpot"],"web":"never","web_engine":"duckduckgo","prompts_hash":"h","updated":"2025-01-01T00:00:00Z"}`

func oldSettings() engine.RunConfig {
	s := engine.DefaultRunConfig()
	s.Model, s.JudgeModel, s.Corpora, s.Web = "m", "m", []string{"hotpot"}, engine.WebNever
	return s
}

// Every setup setting of the schema refuses a resume when it changed;
// other settings do not; a run.json written before the schema still
// compares equal to the same setup.
func TestSetupComparisonFromSchema(t *testing.T) {
	var old RunInfo
	if err := json.Unmarshal([]byte(oldRunJSON), &old); err != nil {
		t.Fatal(err)
	}
	ds := &Dataset{Name: "hotpot", Path: "/data/hotpot.jsonl"}
	if d := old.differences(NewRunInfo(ds, oldSettings(), Holdout{}, "h", config.SetupKeys())); len(d) > 0 {
		t.Fatalf("an old run.json differs from the same setup: %v", d)
	}
	seed := 3
	mutations := map[string]func(*engine.RunConfig){
		"model":            func(s *engine.RunConfig) { s.Model = "other" },
		"judge_model":      func(s *engine.RunConfig) { s.JudgeModel = "judge" },
		"llm":              func(s *engine.RunConfig) { s.LLM = "llamacpp" },
		"corpora":          func(s *engine.RunConfig) { s.Corpora = []string{"wiki"} },
		"k":                func(s *engine.RunConfig) { s.K = 7 },
		"max_steps":        func(s *engine.RunConfig) { s.MaxSteps = 4 },
		"max_reflections":  func(s *engine.RunConfig) { s.MaxReflections = 2 },
		"judge_first":      func(s *engine.RunConfig) { s.JudgeFirst = false },
		"num_ctx":          func(s *engine.RunConfig) { s.NumCtx = 8192 },
		"temperature":      func(s *engine.RunConfig) { s.Temperature = 0.2 },
		"top_p":            func(s *engine.RunConfig) { s.TopP = 0.5 },
		"seed":             func(s *engine.RunConfig) { s.Seed = &seed },
		"answer_style":     func(s *engine.RunConfig) { s.AnswerStyle = engine.StyleReport },
		"per_source_tools": func(s *engine.RunConfig) { s.PerSourceTools = true },
		"web":              func(s *engine.RunConfig) { s.Web = engine.WebAuto },
		"web_engine":       func(s *engine.RunConfig) { s.WebEngine = "searxng" },
		"proxy_model":      func(s *engine.RunConfig) { s.ProxyModel = "proxy" },
		"embed_model":      func(s *engine.RunConfig) { s.EmbedModel = "nomic-embed-text" },
	}
	keys := config.SetupKeys()
	var covered []string
	for k := range mutations {
		covered = append(covered, k)
	}
	sort.Strings(covered)
	sorted := slices.Clone(keys)
	sort.Strings(sorted)
	if !slices.Equal(covered, sorted) {
		t.Fatalf("setup keys %v, this test mutates %v: add a row", sorted, covered)
	}
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			s := oldSettings()
			mutations[key](&s)
			d := old.differences(NewRunInfo(ds, s, Holdout{}, "h", config.SetupKeys()))
			if len(d) != 1 || !strings.HasPrefix(d[0], key+" ") {
				t.Fatalf("changing %s: differences %v", key, d)
			}
		})
	}
	for name, mod := range map[string]func(*engine.RunConfig){
		"strategy":      func(s *engine.RunConfig) { s.Strategy = "naive" },
		"llm_url":       func(s *engine.RunConfig) { s.LLMURL = "http://127.0.0.1:9" },
		"corpus_choice": func(s *engine.RunConfig) { s.CorpusChoice = engine.CorporaGiven },
	} {
		s := oldSettings()
		mod(&s)
		if d := old.differences(NewRunInfo(ds, s, Holdout{}, "h", config.SetupKeys())); len(d) > 0 {
			t.Errorf("%s is not a setup setting, yet it differs: %v", name, d)
		}
	}
	// run.json holds the fixed fields and the setup settings only.
	b, _ := json.Marshal(NewRunInfo(ds, oldSettings(), Holdout{}, "h", config.SetupKeys()))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for k := range m {
		if !slices.Contains(keys, k) && !slices.Contains([]string{"dataset", "data", "prompts_hash", "updated"}, k) {
			t.Errorf("run.json has %q", k)
		}
	}
}

// A run.json read back and written again (the runner rewrites the file
// with every dataset's entry) keeps its settings, byte for byte in what
// they say, without eval knowing the schema.
func TestRunInfoReadBackRoundTrip(t *testing.T) {
	var old RunInfo
	if err := json.Unmarshal([]byte(oldRunJSON), &old); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	_ = json.Unmarshal([]byte(oldRunJSON), &want)
	_ = json.Unmarshal(b, &got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("written again:\n%s\nread:\n%s", b, oldRunJSON)
	}
}
