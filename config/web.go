package config

import (
	"flag"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/web"
)

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

// webFile reads the config file's keys of the engines without a field
// (fileConfig reads the others).
func (c *Config) webFile(b []byte) error {
	var raw map[string]any
	if err := toml.Unmarshal(b, &raw); err != nil {
		return err
	}
	for _, spec := range web.Engines() {
		for _, key := range []string{spec.URLSetting, spec.KeySetting} {
			v, ok := raw[key]
			if key == "" || !ok || c.webField(key) != nil {
				continue
			}
			str, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s must be a string", key)
			}
			*c.webSetting(key) = str
		}
	}
	return nil
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

// webEnv reads the engines' endpoint and key variables.
func (c *Config) webEnv(env Env) {
	for _, spec := range web.Engines() {
		if spec.URLEnv != "" {
			if v, ok := env(spec.URLEnv); ok && v != "" {
				if p := c.webSetting(spec.URLSetting); p != nil {
					*p = v
				}
			}
		}
		for i, name := range spec.KeyEnv {
			p := c.webSetting(spec.KeySetting)
			if p == nil {
				break
			}
			// The first variable wins over the file; later ones only
			// fill a key nothing else gave.
			if v, ok := env(name); ok && v != "" && (i == 0 || *p == "") {
				*p = v
				break
			}
		}
	}
}

// validateWebEngine checks --web-engine against the engine table and what
// the chosen engine needs when the web may be used.
func (c *Config) validateWebEngine(s engine.Settings) error {
	spec, ok := web.LookupEngine(s.WebEngine)
	if !ok || spec.Name != s.WebEngine {
		return fmt.Errorf("%w: --web-engine must be %s, not %q", engine.ErrInvalidSettings, orList(web.EngineNames()), s.WebEngine)
	}
	if s.Web == engine.WebNever {
		return nil
	}
	if spec.NeedsURL() && c.webValue(spec.URLSetting) == "" {
		where := spec.URLSetting + " in the config file"
		if spec.URLFlag != "" {
			where = "--" + spec.URLFlag + " (or " + where + ")"
		}
		return fmt.Errorf("%w: --web-engine %s needs %s", engine.ErrInvalidSettings, spec.Name, where)
	}
	if spec.NeedsKey() && c.webValue(spec.KeySetting) == "" {
		return fmt.Errorf("%w: --web-engine %s needs an API key in %s or %s", engine.ErrInvalidSettings, spec.Name, strings.Join(spec.KeyEnv, ", "), spec.KeySetting)
	}
	return nil
}

// bindWebFlags adds the engines' endpoint flags (--searxng-url).
func (c *Config) bindWebFlags(fs *flag.FlagSet) {
	for _, spec := range web.Engines() {
		if p := c.webSetting(spec.URLSetting); p != nil && spec.URLFlag != "" {
			fs.StringVar(p, spec.URLFlag, *p, spec.Title+" URL")
		}
	}
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
