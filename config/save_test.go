package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SaveWeb writes the web key into the config file (created when missing,
// replaced when present, above any table), keeps the other lines, and the
// next Load counts the policy as chosen.
func TestSaveWeb(t *testing.T) {
	tests := []struct {
		name, before string
		wantKept     []string
	}{
		{"no file", "", nil},
		{"other keys", "model = \"m\"\n", []string{`model = "m"`}},
		{"web already set", "web = \"never\"\nk = 3\n", []string{"k = 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cfg", "prefrag", "config.toml")
			if tt.before != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(tt.before), 0o600)
			}
			env := mapEnv(map[string]string{"PREFRAG_HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "cfg")})
			c, err := Load(env)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.WebChosen(); got != (tt.name == "web already set") {
				t.Fatalf("WebChosen before saving = %v", got)
			}
			if err := c.SaveWeb("auto"); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if strings.Count(string(b), "web =") != 1 {
				t.Errorf("file:\n%s", b)
			}
			for _, k := range tt.wantKept {
				if !strings.Contains(string(b), k) {
					t.Errorf("lost %q:\n%s", k, b)
				}
			}
			c2, err := Load(env)
			if err != nil {
				t.Fatal(err)
			}
			if !c2.WebChosen() || c2.Settings.Web != "auto" {
				t.Errorf("after saving: chosen %v web %q", c2.WebChosen(), c2.Settings.Web)
			}
		})
	}
}

func mapEnv(m map[string]string) Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}
