package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// RerunOverrides are the flags `sessions rerun` takes over a recorded
// session's settings; "" leaves a setting as recorded.
type RerunOverrides struct {
	LLM, LLMURL, Model string
	// Web is --web: the web policy of the re-run, over the recorded one
	// and the configured one.
	Web string
	// OllamaHost is $OLLAMA_HOST ("" when unset).
	OllamaHost string
}

// RerunChange is one setting a re-run does not take from the recording.
type RerunChange struct {
	Setting string `json:"setting"`
	From    string `json:"from"`
	To      string `json:"to"`
	// Origin says where the new value came from: a flag, the config
	// file or an environment variable.
	Origin string `json:"origin"`
}

// Rerun returns the settings a re-run of a session recorded with rec uses,
// and what changed. The flags come first; the server's address, which moves
// with the machine, then comes from the config file or the environment
// (OLLAMA_HOST) when they name one for the same backend, as for `ask`. The
// web policy is the recorded one only when the user chose it then
// (web_chosen); a policy that was only the default of the time gives way
// to today's configured one, so a re-run never sends to the web what
// nobody allowed. The rest is as recorded.
func (c *Config) Rerun(rec engine.RunConfig, o RerunOverrides) (engine.RunConfig, []RerunChange, error) {
	s := rec
	origin := map[string]string{}
	if o.LLM != "" {
		if !slices.Contains(llmBackends, o.LLM) {
			return s, nil, fmt.Errorf("%w: --llm must be one of %s, not %q", ErrConfig, strings.Join(llmBackends, ", "), o.LLM)
		}
		s.LLM, origin["llm"] = o.LLM, "flag --llm"
	}
	switch {
	case o.LLMURL != "":
		if p := isURL(o.LLMURL); p != "" {
			return s, nil, fmt.Errorf("%w: --llm-url: %s", ErrConfig, p)
		}
		s.LLMURL, origin["llm_url"] = o.LLMURL, "flag --llm-url"
	case c.Settings.LLM == s.LLM && c.Origin("llm_url").Kind != FromDefault:
		s.LLMURL, origin["llm_url"] = c.Settings.LLMURL, originText(c.Origin("llm_url"))
	case urlFromEnv(s.LLM, "OLLAMA_HOST") && strings.TrimSpace(o.OllamaHost) != "":
		s.LLMURL, origin["llm_url"] = NormaliseHost(o.OllamaHost, "11434"), "environment OLLAMA_HOST"
	case s.LLM != rec.LLM:
		s.LLMURL, origin["llm_url"] = llm.BackendOf(s.LLM).DefaultURL, "the default of --llm "+s.LLM
	}
	switch {
	case o.Web != "":
		switch o.Web {
		case engine.WebAuto, engine.WebAsk, engine.WebNever:
		default:
			return s, nil, fmt.Errorf("%w: --web must be auto, ask or never, not %q", ErrConfig, o.Web)
		}
		s.Web, s.WebChosen, origin["web"] = o.Web, true, "flag --web"
	case rec.WebChosen:
		// Chosen then: as recorded.
	default:
		s.Web, s.WebChosen = c.Settings.Web, c.WebChosen()
		origin["web"] = originText(c.Origin("web"))
		if !s.WebChosen {
			origin["web"] = "the default, no web policy having been chosen"
		}
		origin["web"] += "; the recorded policy was a default, not a choice"
	}
	if o.Model != "" {
		if s.JudgeModel == "" || s.JudgeModel == rec.Model {
			s.JudgeModel, origin["judge_model"] = o.Model, "flag --model"
		}
		if s.ProxyModel == rec.Model && s.ProxyModel != "" {
			s.ProxyModel, origin["proxy_model"] = o.Model, "flag --model"
		}
		s.Model, origin["model"] = o.Model, "flag --model"
	}
	var out []RerunChange
	add := func(key, from, to string) {
		if from != to {
			out = append(out, RerunChange{Setting: key, From: from, To: to, Origin: origin[key]})
		}
	}
	add("web", rec.Web, s.Web)
	add("llm", rec.LLM, s.LLM)
	add("llm_url", llm.WithoutCredentials(rec.LLMURL), llm.WithoutCredentials(s.LLMURL))
	add("model", rec.Model, s.Model)
	add("judge_model", rec.JudgeModel, s.JudgeModel)
	add("proxy_model", rec.ProxyModel, s.ProxyModel)
	return s, out, nil
}

// originText says where a value came from, in words.
func originText(o Origin) string {
	switch o.Kind {
	case FromFile:
		return "the config file"
	case FromEnv:
		return "environment " + o.Name
	case FromFlag:
		return "flag --" + o.Name
	}
	return "the default"
}
