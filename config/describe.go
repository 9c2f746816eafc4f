package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/llm"
)

// Describe is what `prefrag config` prints: the config file, the data
// directory, then every effective setting with its origin on the same
// line, e.g. `temperature = 0.1  (default)`. Secrets show only whether
// they are set; URLs are shown without credentials.
func (c *Config) Describe() string {
	var b strings.Builder
	switch {
	case c.File != "":
		fmt.Fprintf(&b, "# config file: %s\n", c.File)
	case c.FilePath != "":
		fmt.Fprintf(&b, "# config file: %s (not found: defaults apply)\n", c.FilePath)
	default:
		b.WriteString("# config file: none (set PREFRAG_CONFIG or HOME)\n")
	}
	fmt.Fprintf(&b, "# data directory: %s\n", c.Home)
	for _, st := range schema {
		o := c.Origin(st.Key)
		origin := o.Kind
		switch o.Kind {
		case FromEnv:
			origin += " " + o.Name
		case FromFlag:
			origin += " " + flagName(o.Name)
		}
		fmt.Fprintf(&b, "%s = %s  (%s)\n", st.Key, st.show(c), origin)
	}
	return b.String()
}

// show formats the setting's value in TOML syntax, secrets and
// credentials left out.
func (st Setting) show(c *Config) string {
	v := st.Value(c)
	if st.Secret {
		if v == "" {
			return "(not set)"
		}
		return "(set)"
	}
	switch v := v.(type) {
	case string:
		if st.URL {
			v = llm.RedactURL(v)
		}
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case time.Duration:
		return strconv.Quote(v.String())
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case *int:
		if v == nil {
			return "(not set)"
		}
		return strconv.Itoa(*v)
	}
	return fmt.Sprint(v)
}
