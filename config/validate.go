package config

import (
	"errors"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// Validate checks everything once. Its error is an *engine.SettingsError
// (matching engine.ErrInvalidSettings) that names each field the way the
// user gave it: `--temperature must be …` for a flag, `temperature in
// /path/config.toml must be …` for a config-file key, `PREFRAG_MODEL …` for
// a variable.
func (c *Config) Validate() error {
	s := &c.Settings
	if llm.BackendOf(s.LLM).NamesItsModel && s.Model == DefaultModel && c.Origin("model").Kind == FromDefault {
		// llama-server serves one model: use it (its name is read from
		// the server), not Ollama's default name. An OpenAI-compatible
		// server's is adopted when it serves exactly one.
		s.Model = ""
	}
	if s.JudgeModel == "" {
		s.JudgeModel = s.Model
	}
	var fields []engine.FieldError
	if err := s.Validate(); err != nil {
		var se *engine.SettingsError
		if !errors.As(err, &se) {
			return err
		}
		fields = se.Fields
	}
	for _, st := range schema {
		if p := st.problem(st.Value(c)); p != "" {
			fields = append(fields, engine.FieldError{Field: st.Key, Problem: p})
		}
	}
	fields = append(fields, c.validateWebEngine(*s)...)
	if len(fields) == 0 {
		return nil
	}
	return &engine.SettingsError{Fields: fields, Wording: c.Name}
}

// Name words a setting the way its value was given: the flag, the
// config-file key and file, the environment variable, or the key (a
// default, named like a flag when it has one).
func (c *Config) Name(key string) string {
	st, ok := lookup(key)
	if !ok {
		return key
	}
	switch o := c.Origin(key); o.Kind {
	case FromFlag:
		return flagName(o.Name)
	case FromFile:
		return key + " in " + c.File
	case FromEnv:
		return o.Name
	}
	if st.Flag != "" {
		return flagName(st.Flag)
	}
	return key
}

func flagName(f string) string {
	if len(f) == 1 {
		return "-" + f
	}
	return "--" + f
}
