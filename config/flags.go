package config

import (
	"flag"
	"strings"
	"time"
)

// RunFlags binds the flags of `ask` (shared by the TUI, `eval` and
// `config`) to the settings; call Apply after parsing.
type RunFlags struct {
	c   *Config
	set map[string]bool
	fs  *flag.FlagSet
	// finish applies the flags whose value is collected apart (lists,
	// the seed), by flag name.
	finish map[string]func()
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// BindRunFlags registers the run flags of the schema on fs (the settings;
// the command line adds its output flags, --json and --tokens).
func BindRunFlags(fs *flag.FlagSet, c *Config) *RunFlags {
	rf := &RunFlags{c: c, fs: fs, finish: map[string]func(){}}
	for _, st := range schema {
		if st.Flag != "" {
			rf.bind(st)
		}
	}
	return rf
}

// BindSettingFlags registers the flags of the named settings only, for a
// command that takes a few of them (index, search); call Apply after
// parsing.
func BindSettingFlags(fs *flag.FlagSet, c *Config, keys ...string) *RunFlags {
	rf := &RunFlags{c: c, fs: fs, finish: map[string]func(){}}
	for _, k := range keys {
		if st, ok := lookup(k); ok && st.Flag != "" {
			rf.bind(st)
		}
	}
	return rf
}

// bind registers one setting's flag.
func (rf *RunFlags) bind(st Setting) {
	fs := rf.fs
	switch p := st.field(rf.c).(type) {
	case *string:
		fs.StringVar(p, st.Flag, *p, st.Help)
	case *int:
		fs.IntVar(p, st.Flag, *p, st.Help)
	case *float64:
		fs.Float64Var(p, st.Flag, *p, st.Help)
	case *bool:
		fs.BoolVar(p, st.Flag, *p, st.Help)
	case *time.Duration:
		fs.Var(&durationFlag{p: p, limit: st.limit}, st.Flag, st.Help)
	case *[]string:
		var l stringList
		fs.Var(&l, st.Flag, st.Help)
		rf.finish[st.Flag] = func() {
			if len(l) > 0 {
				*p = l
			}
		}
	case **int:
		var n int
		fs.IntVar(&n, st.Flag, 0, st.Help)
		rf.finish[st.Flag] = func() { *p = &n }
	}
}

// Apply finishes the settings after flag parsing and validates them once.
func (rf *RunFlags) Apply() error {
	c := rf.c
	set := map[string]bool{}
	rf.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	rf.set = set
	for _, st := range schema {
		if st.Flag == "" || !set[st.Flag] {
			continue
		}
		if f := rf.finish[st.Flag]; f != nil {
			f()
		}
		c.setOrigin(st.Key, Origin{Kind: FromFlag, Name: st.Flag})
	}
	// Ollama's address (its default, or OLLAMA_HOST read while the backend
	// was still Ollama) is not the other backends'.
	ollamaAddr := strings.HasSuffix(c.Settings.LLMURL, ":11434") || c.Origin("llm_url") == Origin{Kind: FromEnv, Name: "OLLAMA_HOST"}
	if u := backendURL(c.Settings.LLM); set["llm"] && !set["llm-url"] && u != "" && ollamaAddr {
		c.Settings.LLMURL = u
		c.setOrigin("llm_url", Origin{Kind: FromDefault})
	}
	return c.Validate()
}

// Set reports whether the named flag was given.
func (rf *RunFlags) Set(name string) bool { return rf.set[name] }
