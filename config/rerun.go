package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// RerunOverrides are what `sessions rerun` takes besides the recorded
// session's settings: its flags ("" leaves a setting to the rules of
// Rerun), what the recording says beyond its settings, and $OLLAMA_HOST.
type RerunOverrides struct {
	LLM, LLMURL, Model string
	// Web is --web: the web policy of the re-run, over the recorded one
	// and the configured one; the one way to loosen it.
	Web string
	// NeverLeave is --never-leave (resolved to corpus names; empty for
	// `--never-leave ""`) when NeverLeaveSet: the never-leave corpora of
	// the re-run, over the recorded and the configured ones; the one way
	// to loosen them.
	NeverLeave    []string
	NeverLeaveSet bool
	// Recorded is the strictest privacy any turn of the recorded session
	// had (engine.ThreadFrom(events).Privacy; nil: the settings' own), its
	// never-leave names resolved to today's corpora.
	Recorded *engine.Privacy
	// Imported says the session came from `sessions import`: the servers
	// its file names (LLM backend and address, web engine) are not used
	// unless a flag names them; today's configuration's are.
	Imported bool
	// OllamaHost is $OLLAMA_HOST ("" when unset).
	OllamaHost string
}

// RerunChange is one setting of a re-run and where it came from. The
// manifest of the re-run keeps those that differ from the recording
// (Changed).
type RerunChange struct {
	Setting string `json:"setting"`
	From    string `json:"from"`
	To      string `json:"to"`
	// Origin says where the value came from: "recorded", a flag, the
	// config file, an environment variable or a default, with why it won.
	Origin string `json:"origin"`
}

// Changed reports whether the re-run's value differs from the recorded one.
func (c RerunChange) Changed() bool { return c.From != c.To }

// Recorded is the origin of a value a re-run takes from the recording.
const Recorded = "recorded"

// Rerun returns the settings a re-run of a session recorded with rec uses
// and, setting by setting, where each came from (RerunChange.Changed says
// which differ from the recording). It never loosens privacy without a
// flag: the web policy is the stricter of the recorded one (when the user
// chose it then; a default of the time gives way) and today's, and the
// never-leave corpora are the recorded ones and today's together; --web
// and --never-leave replace them. The server's address moves with the
// machine: a flag, else the config file or OLLAMA_HOST when they name one
// for the same backend, as for `ask`. An imported session's servers are
// never used without a flag naming them: its LLM backend and address and
// its web engine are today's configuration's. The rest is as recorded.
func (c *Config) Rerun(rec engine.RunConfig, o RerunOverrides) (engine.RunConfig, []RerunChange, error) {
	s := rec
	origin := map[string]string{}
	if o.LLM != "" {
		if !slices.Contains(llmBackends, o.LLM) {
			return s, nil, fmt.Errorf("%w: --llm must be one of %s, not %q", ErrConfig, strings.Join(llmBackends, ", "), o.LLM)
		}
		s.LLM, origin["llm"] = o.LLM, "flag --llm"
	} else if o.Imported && s.LLM != c.Settings.LLM {
		s.LLM, origin["llm"] = c.Settings.LLM, originText(c.Origin("llm"))+importedNote
	}
	if err := c.rerunLLMURL(&s, rec, o, origin); err != nil {
		return s, nil, err
	}
	if err := c.rerunWeb(&s, rec, o, origin); err != nil {
		return s, nil, err
	}
	recNeverLeave := c.rerunNeverLeave(&s, rec, o, origin)
	if o.Imported && s.WebEngine != c.Settings.WebEngine {
		s.WebEngine, origin["web_engine"] = c.Settings.WebEngine, originText(c.Origin("web_engine"))+importedNote
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
		// A value the recording already had is "recorded", unless a flag
		// or a stricter setting of today's is what decided it.
		why := origin[key]
		if why == "" || from == to && !strings.HasPrefix(why, "flag ") && !strings.Contains(why, "stricter") {
			why = Recorded
		}
		out = append(out, RerunChange{Setting: key, From: from, To: to, Origin: why})
	}
	add("web", rec.Web, s.Web)
	add("never_leave", recNeverLeave, namesOrNone(s.NeverLeave))
	add("llm", rec.LLM, s.LLM)
	add("llm_url", llm.WithoutCredentials(rec.LLMURL), llm.WithoutCredentials(s.LLMURL))
	add("model", rec.Model, s.Model)
	if rec.JudgeModel != rec.Model || s.JudgeModel != s.Model {
		add("judge_model", rec.JudgeModel, s.JudgeModel)
	}
	if rec.ProxyModel != "" || s.ProxyModel != "" {
		add("proxy_model", rec.ProxyModel, s.ProxyModel)
	}
	add("web_engine", rec.WebEngine, s.WebEngine)
	return s, out, nil
}

// importedNote ends the origin of a value a re-run of an imported session
// took from today's configuration instead of the file.
const importedNote = "; the session was imported: the servers its file names are used only when a flag names them"

// rerunLLMURL sets the LLM server's address of a re-run.
func (c *Config) rerunLLMURL(s *engine.RunConfig, rec engine.RunConfig, o RerunOverrides, origin map[string]string) error {
	switch {
	case o.LLMURL != "":
		if p := isURL(o.LLMURL); p != "" {
			return fmt.Errorf("%w: --llm-url: %s", ErrConfig, p)
		}
		s.LLMURL, origin["llm_url"] = o.LLMURL, "flag --llm-url"
	case c.Settings.LLM == s.LLM && c.Origin("llm_url").Kind != FromDefault:
		s.LLMURL, origin["llm_url"] = c.Settings.LLMURL, originText(c.Origin("llm_url"))
	case urlFromEnv(s.LLM, "OLLAMA_HOST") && strings.TrimSpace(o.OllamaHost) != "":
		s.LLMURL, origin["llm_url"] = NormaliseHost(o.OllamaHost, "11434"), "environment OLLAMA_HOST"
	case o.Imported:
		// Never the file's server: the backend's own default address.
		s.LLMURL, origin["llm_url"] = llm.BackendOf(s.LLM).DefaultURL, "the default of --llm "+s.LLM+importedNote
	case s.LLM != rec.LLM:
		s.LLMURL, origin["llm_url"] = llm.BackendOf(s.LLM).DefaultURL, "the default of --llm "+s.LLM
	}
	return nil
}

// rerunWeb sets the web policy of a re-run: --web, else the stricter of
// the recorded policy (when it was a choice) and today's.
func (c *Config) rerunWeb(s *engine.RunConfig, rec engine.RunConfig, o RerunOverrides, origin map[string]string) error {
	if o.Web != "" {
		switch o.Web {
		case engine.WebAuto, engine.WebAsk, engine.WebNever:
		default:
			return fmt.Errorf("%w: --web must be auto, ask or never, not %q", ErrConfig, o.Web)
		}
		s.Web, s.WebChosen, origin["web"] = o.Web, true, "flag --web"
		return nil
	}
	recorded := ""
	if rec.WebChosen {
		recorded = rec.Web
	}
	if o.Recorded != nil && engine.StricterWeb(rec.Web, o.Recorded.Web) != rec.Web {
		// A later turn of the thread ran stricter: that was a choice.
		recorded = engine.StricterWeb(recorded, o.Recorded.Web)
	}
	today, chosen := c.Settings.Web, c.WebChosen()
	todayOrigin := originText(c.Origin("web"))
	if !chosen {
		todayOrigin = "the default, no web policy having been chosen"
	}
	switch {
	case recorded == "":
		s.Web, s.WebChosen = today, chosen
		origin["web"] = todayOrigin + "; the recorded policy was a default, not a choice"
	case engine.StricterWeb(recorded, today) != recorded:
		s.Web, s.WebChosen = today, chosen
		origin["web"] = todayOrigin + "; stricter than the recorded " + recorded + " (a re-run never loosens privacy without --web)"
	default:
		s.Web, s.WebChosen = recorded, true
		if recorded != rec.Web {
			origin["web"] = "a later turn of the recorded thread; stricter than its first"
		}
	}
	return nil
}

// rerunNeverLeave sets the never-leave corpora of a re-run: --never-leave,
// else the recorded ones and today's together. It returns the recorded
// ones as a RerunChange value.
func (c *Config) rerunNeverLeave(s *engine.RunConfig, rec engine.RunConfig, o RerunOverrides, origin map[string]string) string {
	recorded := slices.Clone(rec.NeverLeave)
	if o.Recorded != nil {
		recorded = o.Recorded.NeverLeave
	}
	if o.NeverLeaveSet {
		s.NeverLeave, origin["never_leave"] = slices.Clone(o.NeverLeave), "flag --never-leave"
		return namesOrNone(recorded)
	}
	s.NeverLeave = slices.Clone(recorded)
	var added []string
	for _, n := range c.Settings.NeverLeave {
		if n != "" && !slices.Contains(s.NeverLeave, n) {
			s.NeverLeave = append(s.NeverLeave, n)
			added = append(added, n)
		}
	}
	if len(added) > 0 {
		origin["never_leave"] = originText(c.Origin("never_leave")) + " (" + strings.Join(added, ", ") + "), with the recorded ones"
		if len(recorded) == 0 {
			origin["never_leave"] = originText(c.Origin("never_leave"))
		}
	}
	return namesOrNone(recorded)
}

// namesOrNone is a list of names for a RerunChange: "none" when empty.
func namesOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
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
