package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/suggest"
)

// Where a setting's value came from.
const (
	FromDefault = "default"
	FromFile    = "file"
	FromEnv     = "env"
	FromFlag    = "flag"
)

// Origin is where a setting's value came from: Kind is FromDefault,
// FromFile, FromEnv or FromFlag; Name the variable or flag, if any.
type Origin struct {
	Kind string
	Name string
}

// Origin says where the setting with this key got its value.
func (c *Config) Origin(key string) Origin {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return Origin{Kind: FromDefault}
}

func (c *Config) setOrigin(key string, o Origin) {
	if c.origins == nil {
		c.origins = map[string]Origin{}
	}
	c.origins[key] = o
}

// applyFile applies the config file b read from path (env gives HOME for
// a prompts_dir starting with "~/"). A syntax error names
// its line; a value of the wrong type names its key; an unknown key is a
// warning, not an error.
func (c *Config) applyFile(path string, b []byte, env Env) error {
	var raw map[string]any
	if err := toml.Unmarshal(b, &raw); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return fmt.Errorf("%w: the config file %s has a syntax error on line %d, column %d: %s — fix that line (or point PREFRAG_CONFIG at another file)",
				ErrConfig, path, row, col, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	var unknown []string
	for key := range raw {
		if st, ok := lookup(key); !ok || st.FlagOnly {
			unknown = append(unknown, key)
		}
	}
	sort.Strings(unknown)
	for _, key := range unknown {
		if near := suggest.Closest(key, fileKeys()); near != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("unknown key %q in %s is ignored — did you mean %q?", key, path, near))
			continue
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("unknown key %q in %s is ignored (`prefrag config` lists the settings)", key, path))
	}
	for _, st := range schema {
		v, ok := raw[st.Key]
		if !ok || st.FlagOnly {
			continue
		}
		if err := assign(st.field(c), v); err != nil {
			if errors.Is(err, errDurationTooLong) {
				err = st.limit.tooLong(fmt.Sprint(v))
			}
			return fmt.Errorf("%w: %s in %s %v", ErrConfig, st.Key, path, err)
		}
		c.setOrigin(st.Key, Origin{Kind: FromFile})
	}
	c.PromptsDir = expandHome(c.PromptsDir, env)
	// A value the file sets is checked now, so that every command refuses
	// a file that names a bad address, a negative duration or a missing
	// folder (flags and variables are checked by Validate).
	var fields []engine.FieldError
	for _, st := range schema {
		if _, ok := raw[st.Key]; !ok || st.FlagOnly {
			continue
		}
		if p := st.problem(st.Value(c)); p != "" {
			fields = append(fields, engine.FieldError{Field: st.Key, Problem: p})
		}
	}
	if len(fields) > 0 {
		return &engine.SettingsError{Fields: fields, Wording: c.Name}
	}
	// llama-server listens on 8080 (vLLM on 8000) unless the file says otherwise.
	if u := backendURL(c.Settings.LLM); u != "" && c.Origin("llm").Kind == FromFile && c.Origin("llm_url").Kind == FromDefault {
		c.Settings.LLMURL = u
	}
	return nil
}

// fileKeys are the keys a config file may set.
func fileKeys() []string {
	var keys []string
	for _, st := range schema {
		if !st.FlagOnly {
			keys = append(keys, st.Key)
		}
	}
	return keys
}

// assign stores v (a TOML value or a schema default) in the field p.
func assign(p any, v any) error {
	switch p := p.(type) {
	case *string:
		s, ok := v.(string)
		if !ok {
			return wrongType("a string", v)
		}
		*p = s
	case *int:
		n, err := toInt(v)
		if err != nil {
			return err
		}
		*p = n
	case **int:
		n, err := toInt(v)
		if err != nil {
			return err
		}
		*p = &n
	case *float64:
		switch f := v.(type) {
		case float64:
			*p = f
		case int64:
			*p = float64(f)
		case int:
			*p = float64(f)
		default:
			return wrongType("a number", v)
		}
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return wrongType("true or false", v)
		}
		*p = b
	case *time.Duration:
		switch d := v.(type) {
		case time.Duration:
			*p = d
		case string:
			dur, err := parseDuration(d)
			if err != nil {
				return err
			}
			*p = dur
		default:
			return wrongType("a duration like \"90s\" or \"5m\"", v)
		}
	case *[]string:
		list, ok := v.([]any)
		if !ok {
			return wrongType("a list of strings", v)
		}
		out := make([]string, 0, len(list))
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return wrongType("a list of strings", v)
			}
			out = append(out, s)
		}
		*p = out
	default:
		return fmt.Errorf("has an unsupported type %T", p)
	}
	return nil
}

func toInt(v any) (int, error) {
	switch n := v.(type) {
	case int64:
		if n > math.MaxInt32 || n < math.MinInt32 {
			return 0, fmt.Errorf("must be an integer within ±%d, not %d", math.MaxInt32, n)
		}
		return int(n), nil
	case int:
		return n, nil
	}
	return 0, wrongType("an integer", v)
}

func wrongType(want string, v any) error {
	switch v.(type) {
	case string:
		return fmt.Errorf("must be %s, not the string %q", want, v)
	case map[string]any:
		return fmt.Errorf("must be %s, not a table", want)
	}
	return fmt.Errorf("must be %s, not %v", want, v)
}
