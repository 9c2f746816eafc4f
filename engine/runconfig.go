package engine

import (
	"bytes"
	"encoding/json"

	"github.com/prefrag/prefrag/llm"
)

// Wiring is what a caller wires the engine with for one run: which corpora
// and web engine are its sources, which LLM backend and models answer. The
// engine never reads it (the sources and clients it was built with are
// what it uses); it only records it in the session event, inside the
// run's RunConfig. Config resolution, the app and the manifest read it.
type Wiring struct {
	Corpora []string `json:"corpora"`
	// MCP names the MCP servers the run searched ("mcp:NAME"), in
	// preference order; Prefer is the order the user asked for (--prefer),
	// as given.
	MCP    []string `json:"mcp,omitempty"`
	Prefer []string `json:"prefer,omitempty"`
	// WebChosen is true when the web policy (Settings.Web) was chosen by
	// the user (a flag, the environment, the config file, the workspace)
	// rather than left at its default. `sessions rerun` reuses a recorded
	// policy only when it was chosen. Absent (false) in sessions recorded
	// before it existed.
	WebChosen bool   `json:"web_chosen,omitempty"`
	WebEngine string `json:"web_engine"`
	LLM       string `json:"llm"`
	LLMURL    string `json:"llm_url"`
	// JudgeModel is the model the judge client was built with; empty
	// means the reasoning model.
	JudgeModel string `json:"judge_model"`
	// ProxyModel writes the retrieval gate's heuristic answer, necessity
	// judgment and queries (strategies slimplm, smartrag, prefrag-gated);
	// empty means the judge model.
	ProxyModel string `json:"proxy_model,omitempty"`
	// Retrieval is how corpora are searched (sources.Retrieval*; empty:
	// hybrid for a corpus with vectors, else BM25). EmbedModel, EmbedLLM
	// and EmbedURL name the embedding model and its server (empty: the
	// model a corpus was embedded with, on the LLM server).
	Retrieval  string `json:"retrieval,omitempty"`
	EmbedModel string `json:"embed_model,omitempty"`
	EmbedLLM   string `json:"embed_llm,omitempty"`
	EmbedURL   string `json:"embed_url,omitempty"`
}

// DefaultWiring is the wiring of a run nobody configured.
func DefaultWiring() Wiring {
	return Wiring{WebEngine: "duckduckgo", LLM: llm.DefaultBackend}
}

// RunConfig is what one session ran with: the engine's Settings and the
// Wiring around them. It is the session event's "config" object; its JSON
// keeps the key order that object has always had (wiringAfter).
type RunConfig struct {
	Settings
	Wiring
}

// DefaultRunConfig are the default settings with the default wiring.
func DefaultRunConfig() RunConfig {
	return RunConfig{Settings: DefaultSettings(), Wiring: DefaultWiring()}
}

// wiringBefore places each Wiring key in the config object: before the
// named Settings key, as the object was written when both were one struct.
var wiringBefore = map[string]string{
	"corpora":     "web",
	"mcp":         "web",
	"prefer":      "web",
	"web_chosen":  "model",
	"web_engine":  "model",
	"llm":         "model",
	"llm_url":     "model",
	"judge_model": "k",
	"proxy_model": "max_output_tokens",
}

// MarshalJSON writes the Settings' members with the Wiring's placed among
// them (wiringBefore); decoding needs no method, the embedded structs'
// fields are promoted.
func (c RunConfig) MarshalJSON() ([]byte, error) {
	settings, err := objectMembers(c.Settings)
	if err != nil {
		return nil, err
	}
	wiring, err := objectMembers(c.Wiring)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	put := func(m member) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.val)
	}
	placed := make([]bool, len(wiring))
	for _, s := range settings {
		for i, w := range wiring {
			if !placed[i] && wiringBefore[w.key] == s.key {
				put(w)
				placed[i] = true
			}
		}
		put(s)
	}
	for i, w := range wiring {
		if !placed[i] {
			put(w)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// objectMembers marshals v, a struct, into its object's members in order.
func objectMembers(v any) ([]member, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return members(raw)
}
