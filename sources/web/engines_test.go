package web

import (
	"errors"
	"strings"
	"testing"
)

// TestEngineTable builds every row of the engine table with what it says it
// needs, and checks New refuses it without.
func TestEngineTable(t *testing.T) {
	seen := map[string]bool{}
	for _, spec := range Engines() {
		t.Run(spec.Name, func(t *testing.T) {
			if spec.Name == "" || seen[spec.Name] || spec.Name != strings.ToLower(spec.Name) {
				t.Fatalf("bad or repeated name %q", spec.Name)
			}
			seen[spec.Name] = true
			if spec.Title == "" || spec.URLSetting == "" || spec.backend == nil || spec.MinInterval <= 0 {
				t.Errorf("incomplete row %+v", spec)
			}
			if spec.NeedsKey() && len(spec.KeyEnv) == 0 {
				t.Error("a key but no environment variable for it")
			}
			cfg := Config{}
			if spec.NeedsURL() {
				if _, err := New(spec.Name, cfg); !errors.Is(err, ErrInvalidConfig) {
					t.Errorf("no URL: err = %v", err)
				}
				cfg.BaseURL = "http://127.0.0.1:1/"
			}
			if spec.NeedsKey() {
				if _, err := New(spec.Name, cfg); !errors.Is(err, ErrInvalidConfig) {
					t.Errorf("no key: err = %v", err)
				}
				cfg.APIKey = "k"
			}
			e, err := New(" "+strings.ToUpper(spec.Name)+" ", cfg)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != "web:"+spec.Name || e.s.MinInterval != spec.MinInterval {
				t.Errorf("Name %q, interval %v", e.Name(), e.s.MinInterval)
			}
			if got, ok := LookupEngine(spec.Name); !ok || got.Name != spec.Name {
				t.Errorf("LookupEngine(%q) = %q, %v", spec.Name, got.Name, ok)
			}
		})
	}
	if len(EngineNames()) != len(seen) {
		t.Errorf("EngineNames has %d names, the table %d", len(EngineNames()), len(seen))
	}
}
