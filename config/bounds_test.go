package config

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// Every duration setting and num_ctx has an upper bound, and a value past
// it is refused with a message that names the bound — a duration too long
// for Go to hold ("99999999h") too, which used to be called "not a
// duration".
func TestBoundsNamed(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"cache ttl past any duration", "web_cache_ttl = \"99999999h\"\n", `web_cache_ttl in %s must be at most 87600h (about 10 years), not "99999999h"`},
		{"cache ttl past its bound", "web_cache_ttl = \"100000h\"\n", "web_cache_ttl in %s must be at most 87600h (about 10 years), not 100000h0m0s"},
		{"web timeout", "web_timeout = \"2h\"\n", "web_timeout in %s must be at most 10m, not 2h0m0s"},
		{"llm timeout", "llm_timeout = \"48h\"\n", "llm_timeout in %s must be at most 24h (a day), not 48h0m0s"},
		{"run timeout", "run_timeout = \"200h\"\n", "run_timeout in %s must be at most 168h (a week), not 200h0m0s"},
		{"num_ctx", "num_ctx = 99999999\n", "num_ctx in %s must be at most 2097152 (2M tokens), not 99999999"},
		{"not a duration", "web_cache_ttl = \"forever\"\n", `web_cache_ttl in %s must be a duration like "90s" or "5m", not "forever"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.file, nil)
			before, after, _ := strings.Cut(tt.want, "%s")
			if err == nil || !strings.Contains(err.Error(), before) || !strings.Contains(err.Error(), "config.toml"+after) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	for _, ok := range []string{"web_cache_ttl = \"87600h\"\n", "llm_timeout = \"24h\"\n", "num_ctx = 2097152\n", "run_timeout = \"0s\"\n"} {
		if _, err := load(t, ok, nil); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

func TestFlagBoundsNamed(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--num-ctx", "99999999"}, "--num-ctx must be at most 2097152 (2M tokens), not 99999999"},
		{[]string{"--llm-timeout", "30h"}, "--llm-timeout must be at most 24h (a day), not 30h0m0s"},
		{[]string{"--run-timeout", "-1s"}, "--run-timeout must not be negative"},
	} {
		_, err := load(t, "", nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
	// Too long to hold: the flag itself names the bound.
	c, err := Load(envOf(map[string]string{"PREFRAG_HOME": t.TempDir(), "HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindRunFlags(fs, c)
	err = fs.Parse([]string{"--llm-timeout", "99999999h"})
	if err == nil || !strings.Contains(err.Error(), "must be at most 24h (a day)") {
		t.Errorf("--llm-timeout 99999999h: %v", err)
	}
	if err := fs.Parse([]string{"--llm-timeout", "90s"}); err != nil || c.LLMTimeout != 90*time.Second {
		t.Errorf("--llm-timeout 90s: %v, %s", err, c.LLMTimeout)
	}
}
