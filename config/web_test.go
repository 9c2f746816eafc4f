package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources/web"
)

// TestWebEngineTable checks config validates, reads and hands over every
// engine of sources/web's table from the row alone.
func TestWebEngineTable(t *testing.T) {
	for _, spec := range web.Engines() {
		t.Run(spec.Name, func(t *testing.T) {
			env := map[string]string{}
			if spec.URLEnv != "" {
				env[spec.URLEnv] = "http://127.0.0.1:9/x"
			}
			for _, k := range spec.KeyEnv {
				env[k] = "key-" + k
			}
			env["PREFRAG_HOME"] = t.TempDir()
			env["XDG_CONFIG_HOME"] = t.TempDir()
			c, err := Load(envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			c.Settings.WebEngine = spec.Name
			c.Settings.Web = engine.WebAuto
			if spec.NeedsURL() && spec.URLEnv == "" {
				*c.webSetting(spec.URLSetting) = "http://127.0.0.1:9/x"
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			u, key := c.WebEndpoint(spec.Name)
			if spec.NeedsURL() && u != "http://127.0.0.1:9/x" {
				t.Errorf("URL %q", u)
			}
			if spec.NeedsKey() && key.Reveal() != "key-"+spec.KeyEnv[0] {
				t.Errorf("the first key variable did not win")
			}
			if spec.NeedsURL() || spec.NeedsKey() {
				bare, err := Load(envOf(map[string]string{"PREFRAG_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}))
				if err != nil {
					t.Fatal(err)
				}
				bare.Settings.WebEngine = spec.Name
				bare.Settings.Web = engine.WebAuto
				if err := bare.Validate(); !errors.Is(err, engine.ErrInvalidSettings) {
					t.Errorf("nothing configured: err = %v", err)
				}
				bare.Settings.Web = engine.WebNever
				if err := bare.Validate(); err != nil {
					t.Errorf("web never: %v", err)
				}
			}
		})
	}
	c, err := Load(envOf(map[string]string{"PREFRAG_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	c.Settings.WebEngine = "google"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), strings.Join(web.EngineNames()[:len(web.EngineNames())-1], ", ")) {
		t.Errorf("unknown engine: %v", err)
	}
	c.Settings.WebEngine = strings.ToUpper(web.EngineNames()[0])
	if err := c.Validate(); err == nil {
		t.Error("upper-case engine name accepted")
	}
}
