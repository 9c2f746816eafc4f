package config

import (
	"errors"
	"fmt"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

func envOf(m map[string]string) Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgFile, []byte("model = \"qwen2.5:7b\"\nk = 7\nweb = \"never\"\ncorpora = [\"wiki\", \"notes\"]\nweb_cache_ttl = \"2h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := envOf(map[string]string{"PREFRAG_HOME": dir, "PREFRAG_CONFIG": cfgFile, "OLLAMA_HOST": "0.0.0.0:11500"})
	c, err := Load(env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.Model != "qwen2.5:7b" || c.Settings.K != 7 || c.Settings.Web != "never" || len(c.Settings.Corpora) != 2 || c.WebCacheTTL.Hours() != 2 {
		t.Errorf("file not applied: %+v", c.Settings)
	}
	if c.Settings.LLMURL != "http://127.0.0.1:11500" {
		t.Errorf("OLLAMA_HOST not applied: %q", c.Settings.LLMURL)
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf := BindRunFlags(fs, c)
	if err := fs.Parse([]string{"-k", "3", "--corpus", "notes", "--seed", "42"}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Apply(); err != nil {
		t.Fatal(err)
	}
	s := c.Settings
	if s.K != 3 || len(s.Corpora) != 1 || s.Corpora[0] != "notes" || s.Seed == nil || *s.Seed != 42 || s.JudgeModel != "qwen2.5:7b" {
		t.Errorf("flags not applied: %+v", s)
	}
	if c.DBPath() != filepath.Join(dir, "prefrag.db") {
		t.Errorf("db path %q", c.DBPath())
	}
}

func TestDefaultsAndXDG(t *testing.T) {
	c, err := Load(envOf(map[string]string{"HOME": "/home/ana", "XDG_DATA_HOME": "/data"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Home != "/data/prefrag" || c.Settings.Model != DefaultModel || c.Settings.MaxSteps != 3 || c.Settings.K != 5 || c.Settings.LLMURL != "http://127.0.0.1:11434" {
		t.Errorf("defaults: %+v home %q", c.Settings, c.Home)
	}
	c, _ = Load(envOf(map[string]string{"HOME": "/home/ana"}))
	if c.Home != "/home/ana/.local/share/prefrag" {
		t.Errorf("home = %q", c.Home)
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"bad web", []string{"--web", "sometimes"}},
		{"bad k", []string{"-k", "0"}},
		{"bad llm", []string{"--llm", "gpt"}},
		{"searxng without url", []string{"--web-engine", "searxng"}},
		{"bad strategy", []string{"--strategy", "magic"}},
		{"bad url", []string{"--llm-url", "localhost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(envOf(map[string]string{"HOME": t.TempDir()}))
			if err != nil {
				t.Fatal(err)
			}
			fs := flag.NewFlagSet("ask", flag.ContinueOnError)
			rf := BindRunFlags(fs, c)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if err := rf.Apply(); !errors.Is(err, engine.ErrInvalidSettings) {
				t.Errorf("Apply() = %v, want invalid settings", err)
			}
		})
	}
}

func TestBadConfigFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.toml")
	os.WriteFile(p, []byte("k = \"five\""), 0o644)
	if _, err := Load(envOf(map[string]string{"HOME": dir, "PREFRAG_CONFIG": p})); !errors.Is(err, ErrConfig) {
		t.Errorf("err = %v", err)
	}
	missing := filepath.Join(dir, "missing.toml")
	_, err := Load(envOf(map[string]string{"HOME": dir, "PREFRAG_CONFIG": missing}))
	if !errors.Is(err, ErrConfig) {
		t.Errorf("an explicit missing config must fail: %v", err)
	}
	// One sentence that says what is wrong and what to do, the path once.
	if msg := fmt.Sprint(err); !strings.Contains(msg, "PREFRAG_CONFIG names "+missing+", which does not exist: create it") || strings.Count(msg, missing) != 1 {
		t.Errorf("missing config: %q", msg)
	}
}

func TestNormaliseHost(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0":                "http://127.0.0.1:11434",
		"localhost:9999":         "http://localhost:9999",
		"https://ollama.lan":     "https://ollama.lan:11434",
		"http://10.0.0.2:11434/": "http://10.0.0.2:11434",
	} {
		if got := NormaliseHost(in, "11434"); got != want {
			t.Errorf("NormaliseHost(%q) = %q, want %q", in, got, want)
		}
	}
}
