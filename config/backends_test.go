package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func applyFlags(t *testing.T, env map[string]string, file string, args ...string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	env["PREFRAG_HOME"] = dir
	if file != "" {
		p := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		env["PREFRAG_CONFIG"] = p
	}
	c, err := Load(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf := BindRunFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c, rf.Apply()
}

func TestLlamaCppModelDefaultsToTheServers(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		file string
		args []string
		want string
	}{
		{"ollama keeps the default", map[string]string{}, "", nil, DefaultModel},
		{"llamacpp flag without --model", map[string]string{}, "", []string{"--llm", "llamacpp"}, ""},
		{"llamacpp from the config file", map[string]string{}, "llm = \"llamacpp\"\n", nil, ""},
		{"llamacpp with --model", map[string]string{}, "", []string{"--llm", "llamacpp", "--model", "qwen"}, "qwen"},
		{"llamacpp with a model in the file", map[string]string{}, "llm = \"llamacpp\"\nmodel = \"qwen\"\n", nil, "qwen"},
		{"llamacpp with PREFRAG_MODEL", map[string]string{"PREFRAG_MODEL": "qwen"}, "", []string{"--llm", "llamacpp"}, "qwen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := applyFlags(t, tt.env, tt.file, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if c.Settings.Model != tt.want || c.Settings.JudgeModel != tt.want {
				t.Errorf("model %q judge %q, want %q", c.Settings.Model, c.Settings.JudgeModel, tt.want)
			}
		})
	}
}

func TestTimeoutsAndOutputLimit(t *testing.T) {
	c, err := applyFlags(t, map[string]string{}, "llm_timeout = \"90s\"\nrun_timeout = \"20m\"\nmax_output_tokens = 700\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMTimeout != 90*time.Second || c.RunTimeout != 20*time.Minute || c.Settings.MaxOutputTokens != 700 {
		t.Errorf("file: llm %s run %s max %d", c.LLMTimeout, c.RunTimeout, c.Settings.MaxOutputTokens)
	}
	c, err = applyFlags(t, map[string]string{}, "llm_timeout = \"90s\"\n", "--llm-timeout", "3s", "--run-timeout", "1m", "--max-output-tokens", "256")
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMTimeout != 3*time.Second || c.RunTimeout != time.Minute || c.Settings.MaxOutputTokens != 256 {
		t.Errorf("flags: llm %s run %s max %d", c.LLMTimeout, c.RunTimeout, c.Settings.MaxOutputTokens)
	}
	if _, err := applyFlags(t, map[string]string{}, "", "--max-output-tokens", "3"); err == nil {
		t.Error("--max-output-tokens 3 accepted")
	}
	if _, err := applyFlags(t, map[string]string{}, "", "--run-timeout", "-1s"); err == nil {
		t.Error("a negative --run-timeout accepted")
	}
}

func TestBadLLMURLErrorHidesPassword(t *testing.T) {
	_, err := applyFlags(t, map[string]string{}, "", "--llm-url", "alice:s3cretpw@:bad")
	if err == nil || strings.Contains(err.Error(), "s3cretpw") {
		t.Errorf("err = %v", err)
	}
}
