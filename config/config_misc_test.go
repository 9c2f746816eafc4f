package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// Float flags and keys that parse but make no sense (NaN, infinities,
// out of range) are refused before anything runs.
func TestFloatFlagsRefuseNaN(t *testing.T) {
	for _, args := range [][]string{
		{"--temperature", "NaN"}, {"--temperature", "nan"}, {"--temperature", "+Inf"}, {"--temperature", "-Inf"},
		{"--temperature", "-1"}, {"--top-p", "NaN"}, {"--top-p", "Inf"}, {"--top-p", "0"}, {"--top-p", "1.5"},
		{"--max-doc-chars", "-5"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir() // no config file there
			c, err := Load(envOf(map[string]string{"PREFRAG_HOME": dir, "HOME": dir}))
			if err != nil {
				t.Fatal(err)
			}
			fs := flag.NewFlagSet("ask", flag.ContinueOnError)
			rf := BindRunFlags(fs, c)
			if err := fs.Parse(args); err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := rf.Apply(); !errors.Is(err, engine.ErrInvalidSettings) {
				t.Fatalf("Apply() = %v, want ErrInvalidSettings", err)
			}
		})
	}
}

func TestFloatKeysRefuseNaN(t *testing.T) {
	for _, line := range []string{"temperature = nan", "temperature = inf", "top_p = nan", "top_p = -inf", "max_doc_chars = 3"} {
		t.Run(line, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(file, []byte(line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(envOf(map[string]string{"PREFRAG_HOME": dir, "PREFRAG_CONFIG": file}))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); !errors.Is(err, engine.ErrInvalidSettings) {
				t.Fatalf("Validate() = %v, want ErrInvalidSettings", err)
			}
		})
	}
}

func TestMaxDocCharsSetting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("max_doc_chars = 2500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(envOf(map[string]string{"PREFRAG_HOME": dir, "PREFRAG_CONFIG": file}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.MaxDocChars != 2500 {
		t.Fatalf("file: max_doc_chars = %d", c.Settings.MaxDocChars)
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	rf := BindRunFlags(fs, c)
	if err := fs.Parse([]string{"--max-doc-chars", "0"}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Apply(); err != nil {
		t.Fatal(err)
	}
	if c.Settings.MaxDocChars != 0 {
		t.Fatalf("flag: max_doc_chars = %d, want 0 (no cap)", c.Settings.MaxDocChars)
	}
	if d := engine.DefaultRunConfig().MaxDocChars; d != engine.DefaultMaxDocChars || d < 2000 || d > 8000 {
		t.Fatalf("default cap %d", d)
	}
}
