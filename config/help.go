package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// FlagDefault is what a run flag's help says about its default: the
// built-in value, and the value the config file or the environment gives
// it instead (Set, with From naming where), if any.
type FlagDefault struct {
	Builtin string
	Set     string
	From    string
}

// FlagDefaults returns, by flag name, the defaults of the run flags
// (BindRunFlags): the built-in one, and where c's value differs by origin.
// Secrets are never shown; URLs are shown without credentials.
func (c *Config) FlagDefaults() map[string]FlagDefault {
	d := defaults()
	out := map[string]FlagDefault{}
	for _, st := range schema {
		if st.Flag == "" {
			continue
		}
		fd := FlagDefault{Builtin: flagValue(st, st.Value(d))}
		switch o := c.Origin(st.Key); o.Kind {
		case FromFile:
			fd.From = "config file"
		case FromEnv:
			fd.From = "$" + o.Name
		}
		if fd.From != "" {
			fd.Set = flagValue(st, st.Value(c))
			if st.Secret {
				fd.Set = "(set)"
			}
		}
		out[st.Flag] = fd
	}
	return out
}

// flagValue formats a setting's value as a flag takes it ("" for an
// empty or unset value).
func flagValue(st Setting, v any) string {
	if st.Secret {
		return ""
	}
	switch v := v.(type) {
	case string:
		if st.URL {
			return llm.RedactURL(v)
		}
		return v
	case bool:
		if !v {
			return ""
		}
		return "true"
	case int:
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case time.Duration:
		if v == 0 {
			return ""
		}
		return v.String()
	case []string:
		return strings.Join(v, ",")
	case *int:
		if v == nil {
			return ""
		}
		return strconv.Itoa(*v)
	}
	return fmt.Sprint(v)
}
