package eval

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// RunInfo records the settings a dataset's results were produced with
// (run.json in the output folder, keyed by dataset). Resuming with other
// settings is refused, so one table never mixes two setups. The settings
// recorded and compared are SetupKeys, written at the top level of
// run.json under their config keys.
type RunInfo struct {
	Dataset     string
	Data        string
	Settings    engine.RunConfig
	Holdout     *Holdout
	PromptsHash string
	Updated     time.Time
	// SetupKeys are the config keys of the settings recorded and compared:
	// the configuration schema's setup settings (config.SetupKeys), given
	// by whoever starts the run; for a run.json read back, the settings it
	// holds.
	SetupKeys []string
}

// runFile is the fixed part of run.json.
type runFile struct {
	Dataset     string    `json:"dataset"`
	Data        string    `json:"data"`
	Holdout     *Holdout  `json:"holdout,omitempty"`
	PromptsHash string    `json:"prompts_hash"`
	Updated     time.Time `json:"updated"`
}

// MarshalJSON writes the fixed fields and the setup settings.
func (r RunInfo) MarshalJSON() ([]byte, error) { return r.marshal(r.SetupKeys) }

// marshal writes the fixed fields and the settings named by keys.
func (r RunInfo) marshal(keys []string) ([]byte, error) {
	fixed, err := json.Marshal(runFile{Dataset: r.Dataset, Data: r.Data, Holdout: r.Holdout, PromptsHash: r.PromptsHash, Updated: r.Updated})
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(fixed, &out); err != nil {
		return nil, err
	}
	all, err := json.Marshal(r.Settings)
	if err != nil {
		return nil, err
	}
	var settings map[string]json.RawMessage
	if err := json.Unmarshal(all, &settings); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if v, ok := settings[k]; ok { // omitted when empty, as in the session config
			out[k] = v
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads run.json: the setup settings are read by their
// config keys, which are the JSON names of engine.RunConfig.
func (r *RunInfo) UnmarshalJSON(b []byte) error {
	var f runFile
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var s engine.RunConfig
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	var keys []string
	for k := range all {
		switch k {
		case "dataset", "data", "holdout", "prompts_hash", "updated":
		default:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	*r = RunInfo{Dataset: f.Dataset, Data: f.Data, Settings: s, Holdout: f.Holdout, PromptsHash: f.PromptsHash, Updated: f.Updated, SetupKeys: keys}
	return nil
}

// NewRunInfo describes a run of dataset d with settings s, recording and
// comparing the settings named by setupKeys (config.SetupKeys).
func NewRunInfo(d *Dataset, s engine.RunConfig, h Holdout, promptsHash string, setupKeys []string) RunInfo {
	abs, _ := filepath.Abs(d.Path)
	ri := RunInfo{Dataset: d.Name, Data: abs, Settings: s, PromptsHash: promptsHash, Updated: time.Now().UTC(), SetupKeys: setupKeys}
	if h.Active() {
		ri.Holdout = &h
	}
	return ri
}

// differences lists the settings in which two runs differ (the data path,
// question count and time aside), among the setup settings of o (the run
// starting), else of r.
func (r RunInfo) differences(o RunInfo) []string {
	keys := o.SetupKeys
	if keys == nil {
		keys = r.SetupKeys
	}
	a, b := r.comparable(keys), o.comparable(keys)
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

func (r RunInfo) comparable(keys []string) map[string]string {
	r.Data, r.Updated = "", time.Time{}
	b, _ := r.marshal(keys)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	out := map[string]string{}
	for k, v := range m {
		if k == "data" || k == "updated" {
			continue
		}
		out[k] = string(v)
	}
	return out
}

// describe is the settings line of a dataset's section.
func (r RunInfo) describe() string {
	st := r.Settings
	if st.Model == "" {
		return ""
	}
	judge := ""
	if st.JudgeModel != "" && st.JudgeModel != st.Model {
		judge = fmt.Sprintf(" (judge `%s`)", cell(st.JudgeModel))
	}
	jf := "judged"
	if !st.JudgeFirst {
		jf = "not judged (reference code)"
	}
	seed := ""
	if st.Seed != nil {
		seed = fmt.Sprintf(", seed %d", *st.Seed)
	}
	s := fmt.Sprintf("Model `%s`%s on %s; k = %d, max steps %d, max reflections %d, first retrieval %s; temperature %g, top_p %g%s, num_ctx %d; answer style %s. ",
		cell(st.Model), judge, st.LLM, st.K, st.MaxSteps, st.MaxReflections, jf, st.Temperature, st.TopP, seed, st.NumCtx, st.AnswerStyle)
	corpora := "none"
	if len(st.Corpora) > 0 {
		corpora = "`" + cell(strings.Join(st.Corpora, "`, `")) + "`"
	}
	s += fmt.Sprintf("Local corpora: %s; web: %s", corpora, st.Web)
	if st.Web != engine.WebNever {
		s += " via " + st.WebEngine
	}
	if r.Holdout != nil {
		s += fmt.Sprintf("; %.0f%% of the supporting paragraphs held out of the corpus (seed %d) and served by the local search-engine stand-in", r.Holdout.Fraction*100, r.Holdout.Seed)
	}
	s += fmt.Sprintf(". Prompts %s. Data: `%s`.", r.PromptsHash, cell(r.Data))
	return s
}
