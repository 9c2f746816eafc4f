package config

import (
	"fmt"
	"strings"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/web"
)

// The web engines' settings are rows of the schema generated from
// sources/web's engine table (web.Engines()): each engine's endpoint
// (URLSetting, URLFlag, URLEnv) and API key (KeySetting, KeyEnv, a
// secret). Adding an engine there adds its rows here; config names no
// engine.

// webRows are the schema rows of the web-engine table, in its order.
func webRows() []Setting {
	var rows []Setting
	for _, spec := range web.Engines() {
		if spec.URLSetting != "" {
			var env []EnvVar
			if spec.URLEnv != "" {
				env = []EnvVar{{Name: spec.URLEnv}}
			}
			rows = append(rows, Setting{Key: spec.URLSetting, Flag: spec.URLFlag, Help: spec.Title + " URL", URL: true,
				Env: env, check: isURLOrEmpty, field: webRowField(spec.URLSetting)})
		}
		if spec.KeySetting != "" {
			var env []EnvVar
			for i, name := range spec.KeyEnv {
				// The first variable wins over the file; later ones
				// only fill a key nothing else gave.
				env = append(env, EnvVar{Name: name, Weak: i > 0})
			}
			rows = append(rows, Setting{Key: spec.KeySetting, Help: spec.Title + " API key", Secret: true,
				Env: env, field: webRowField(spec.KeySetting)})
		}
	}
	return rows
}

// withWebRows inserts the web-engine rows after the web_engine row.
func withWebRows(rows []Setting) []Setting {
	for i, st := range rows {
		if st.Key == "web_engine" {
			out := append([]Setting(nil), rows[:i+1]...)
			out = append(out, webRows()...)
			return append(out, rows[i+1:]...)
		}
	}
	panic("config: no web_engine row")
}

func webRowField(key string) func(c *Config) any {
	return func(c *Config) any { return c.webSetting(key) }
}

// webField is the field of Config that holds a web engine's config-file
// key (a URLSetting or KeySetting of the engine table), nil for none.
func (c *Config) webField(key string) *string {
	switch key {
	case "searxng_url":
		return &c.SearXNGURL
	case "duckduckgo_url":
		return &c.DuckDuckGoURL
	case "brave_url":
		return &c.BraveURL
	case "brave_api_key":
		return &c.BraveAPIKey
	}
	return nil
}

// webSetting is where a web engine's config-file key is held: its field,
// or webOther for an engine without one (nil for "").
func (c *Config) webSetting(key string) *string {
	if key == "" {
		return nil
	}
	if p := c.webField(key); p != nil {
		return p
	}
	if c.webOther == nil {
		c.webOther = map[string]*string{}
	}
	p := c.webOther[key]
	if p == nil {
		p = new(string)
		c.webOther[key] = p
	}
	return p
}

func (c *Config) webValue(key string) string {
	if p := c.webSetting(key); p != nil {
		return *p
	}
	return ""
}

// WebEndpoint is the configured endpoint and API key of the named engine
// ("" each when not configured: the engine's defaults apply).
func (c *Config) WebEndpoint(name string) (baseURL string, key web.Secret) {
	spec, ok := web.LookupEngine(name)
	if !ok {
		return "", ""
	}
	return c.webValue(spec.URLSetting), web.Secret(c.webValue(spec.KeySetting))
}

// RestoreWebURL sets the named engine's endpoint to u unless one is
// configured.
func (c *Config) RestoreWebURL(name, u string) {
	spec, ok := web.LookupEngine(name)
	if !ok {
		return
	}
	if p := c.webSetting(spec.URLSetting); p != nil && *p == "" {
		*p = u
	}
}

// validateWebEngine reports what the chosen engine still needs when the
// web may be used (an endpoint without default, an API key). The name
// itself is checked by the web_engine row.
func (c *Config) validateWebEngine(s engine.RunConfig) []engine.FieldError {
	spec, ok := web.LookupEngine(s.WebEngine)
	if !ok || spec.Name != s.WebEngine || s.Web == engine.WebNever {
		return nil
	}
	var fields []engine.FieldError
	if spec.NeedsURL() && c.webValue(spec.URLSetting) == "" {
		where := spec.URLSetting + " in the config file"
		if spec.URLFlag != "" {
			where = c.Name(spec.URLSetting) + " (or " + where + ")"
		}
		fields = append(fields, engine.FieldError{Field: "web_engine", Problem: spec.Name + " needs " + where})
	}
	if spec.NeedsKey() && c.webValue(spec.KeySetting) == "" {
		fields = append(fields, engine.FieldError{Field: "web_engine",
			Problem: spec.Name + " needs an API key in " + orList(append(append([]string(nil), spec.KeyEnv...), spec.KeySetting))})
	}
	return fields
}

// webEngineHelp is the --web-engine flag's help text.
func webEngineHelp() string {
	return "web search engine: " + orList(web.EngineNames())
}

// orList joins "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// WebChosen reports whether the user chose a web policy (the config
// file's web key or --web). Until then the policy is "ask": nothing is
// sent to the web without a yes (DESIGN.md, trust rules).
func (c *Config) WebChosen() bool { return c.Origin("web").Kind != FromDefault }

// WebChoiceHint is the one line that tells how to allow the web when no
// policy was chosen and nobody can be asked.
func (c *Config) WebChoiceHint() string {
	where := "web = \"auto\" in the config file"
	if c.FilePath != "" {
		where = "web = \"auto\" in " + c.FilePath
	}
	return "no web policy chosen yet, so nothing is sent to the web (headless, there is no one to ask); to allow web searches pass --web auto, or set " + where + " (web = \"never\" keeps everything on this machine)"
}

// WebChoiceAdvice says how to choose a web policy for good, naming the
// config file.
func (c *Config) WebChoiceAdvice() string {
	file := "the config file"
	if c.FilePath != "" {
		file = c.FilePath
	}
	return "to choose for good set web = \"auto\" (the judge decides) or web = \"never\" in " + file + ", or pass --web for one run"
}

// WebAskHeadlessHint is the one line that says, headless, that the chosen
// web policy "ask" cannot ask anyone and acts as "never" — naming where
// the policy came from (the --web flag, an environment variable, or the
// config file with its path) and how to change it there.
func (c *Config) WebAskHeadlessHint() string {
	const acts = "needs the interactive app to ask in; headless it acts as never (nothing is sent to the web)"
	switch o := c.Origin("web"); o.Kind {
	case FromEnv:
		return fmt.Sprintf("the web policy ask (from $%s) %s; set %s=auto to allow web searches here, or pass --web auto for this run", o.Name, acts, o.Name)
	case FromFile:
		file := "the config file"
		if c.FilePath != "" {
			file = c.FilePath
		}
		return fmt.Sprintf("web = \"ask\" (from %s) %s; pass --web auto for this run, or set web = \"auto\" there", file, acts)
	}
	return "--web ask (flag) " + acts + "; pass --web auto to allow web searches"
}

// WebAllowHint says how the user lets a process that cannot ask anyone
// (an agent calling `prefrag mcp`) search the web: where the policy came
// from and what to set there. No flag of the run itself is named: the
// caller cannot loosen the policy, only the user can.
func (c *Config) WebAllowHint() string {
	file := "the config file"
	if c.FilePath != "" {
		file = c.FilePath
	}
	switch o := c.Origin("web"); o.Kind {
	case FromEnv:
		return fmt.Sprintf("set %s=auto (or web = \"auto\" in %s) where prefrag is started", o.Name, file)
	case FromFlag:
		return "start prefrag with --web auto"
	}
	return fmt.Sprintf("set web = \"auto\" in %s", file)
}
