package eval

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// RunInfo records the settings a dataset's results were produced with
// (run.json in the output folder, keyed by dataset). Resuming with other
// settings is refused, so one table never mixes two setups.
type RunInfo struct {
	Dataset        string    `json:"dataset"`
	Data           string    `json:"data"`
	Model          string    `json:"model"`
	JudgeModel     string    `json:"judge_model"`
	LLM            string    `json:"llm"`
	K              int       `json:"k"`
	MaxSteps       int       `json:"max_steps"`
	MaxReflections int       `json:"max_reflections"`
	JudgeFirst     bool      `json:"judge_first"`
	NumCtx         int       `json:"num_ctx"`
	Temperature    float64   `json:"temperature"`
	TopP           float64   `json:"top_p"`
	Seed           *int      `json:"seed,omitempty"`
	AnswerStyle    string    `json:"answer_style"`
	PerSourceTools bool      `json:"per_source_tools,omitempty"`
	Corpora        []string  `json:"corpora"`
	Web            string    `json:"web"`
	WebEngine      string    `json:"web_engine"`
	Holdout        *Holdout  `json:"holdout,omitempty"`
	PromptsHash    string    `json:"prompts_hash"`
	Updated        time.Time `json:"updated"`
}

// NewRunInfo describes a run of dataset d with settings s.
func NewRunInfo(d *Dataset, s engine.Settings, h Holdout, promptsHash string) RunInfo {
	abs, _ := filepath.Abs(d.Path)
	ri := RunInfo{Dataset: d.Name, Data: abs, Model: s.Model, JudgeModel: s.JudgeModel, LLM: s.LLM, K: s.K,
		MaxSteps: s.MaxSteps, MaxReflections: s.MaxReflections, JudgeFirst: s.JudgeFirst, NumCtx: s.NumCtx,
		Temperature: s.Temperature, TopP: s.TopP, Seed: s.Seed, AnswerStyle: s.AnswerStyle, PerSourceTools: s.PerSourceTools,
		Corpora: s.Corpora, Web: s.Web, WebEngine: s.WebEngine, PromptsHash: promptsHash, Updated: time.Now().UTC()}
	if h.Active() {
		ri.Holdout = &h
	}
	return ri
}

// differences lists the settings in which two runs differ (the data path,
// question count and time aside).
func (r RunInfo) differences(o RunInfo) []string {
	a, b := r.comparable(), o.comparable()
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, fmt.Sprintf("%s %s (now %s)", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s unset (now %s)", k, v))
		}
	}
	return out
}

func (r RunInfo) comparable() map[string]string {
	r.Data, r.Updated = "", time.Time{}
	b, _ := json.Marshal(r)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := map[string]string{}
	for k, v := range m {
		if k == "data" || k == "updated" {
			continue
		}
		vb, _ := json.Marshal(v)
		out[k] = string(vb)
	}
	return out
}

// describe is the settings line of a dataset's section.
func (r RunInfo) describe() string {
	if r.Model == "" {
		return ""
	}
	judge := ""
	if r.JudgeModel != "" && r.JudgeModel != r.Model {
		judge = fmt.Sprintf(" (judge `%s`)", cell(r.JudgeModel))
	}
	jf := "judged"
	if !r.JudgeFirst {
		jf = "not judged (reference code)"
	}
	seed := ""
	if r.Seed != nil {
		seed = fmt.Sprintf(", seed %d", *r.Seed)
	}
	s := fmt.Sprintf("Model `%s`%s on %s; k = %d, max steps %d, max reflections %d, first retrieval %s; temperature %g, top_p %g%s, num_ctx %d; answer style %s. ",
		cell(r.Model), judge, r.LLM, r.K, r.MaxSteps, r.MaxReflections, jf, r.Temperature, r.TopP, seed, r.NumCtx, r.AnswerStyle)
	corpora := "none"
	if len(r.Corpora) > 0 {
		corpora = "`" + cell(strings.Join(r.Corpora, "`, `")) + "`"
	}
	s += fmt.Sprintf("Local corpora: %s; web: %s", corpora, r.Web)
	if r.Web != engine.WebNever {
		s += " via " + r.WebEngine
	}
	if r.Holdout != nil {
		s += fmt.Sprintf("; %.0f%% of the supporting paragraphs held out of the corpus (seed %d) and served by the local search-engine stand-in", r.Holdout.Fraction*100, r.Holdout.Seed)
	}
	s += fmt.Sprintf(". Prompts %s. Data: `%s`.", r.PromptsHash, cell(r.Data))
	return s
}
