package config

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Web-only search (no local corpus) is opted into with web_only in the
// config or --web-only for one run; it is off by default, and a flag
// overrides the file.
func TestWebOnlyOptIn(t *testing.T) {
	tests := []struct {
		name string
		file string
		args []string
		want bool
	}{
		{"default off", "", nil, false},
		{"config key", "web_only = true\n", nil, true},
		{"flag", "", []string{"--web-only"}, true},
		{"flag overrides the file", "web_only = true\n", []string{"--web-only=false"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfgFile := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(cfgFile, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(envOf(map[string]string{"PREFRAG_HOME": dir, "PREFRAG_CONFIG": cfgFile}))
			if err != nil {
				t.Fatal(err)
			}
			fs := flag.NewFlagSet("ask", flag.ContinueOnError)
			rf := BindRunFlags(fs, c)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if err := rf.Apply(); err != nil {
				t.Fatal(err)
			}
			if c.Settings.WebOnly != tt.want {
				t.Errorf("WebOnly = %v, want %v", c.Settings.WebOnly, tt.want)
			}
		})
	}
}
