package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// `sessions rerun ID --offline` can be pointed at a server that moved: by
// --llm-url, or by OLLAMA_HOST as `ask` is; --model overrides the recorded
// model; the re-run's manifest records what changed and where from.
func TestRerunFollowsAMovedServer(t *testing.T) {
	first := caseStudyScript()
	w := newWorld(t, first)
	out, errOut, code := w.run(w.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := parseEvents(t, out)[0].Session
	oldURL := w.llm.URL()
	w.llm.Close() // the server moves

	rerun := func(envExtra []string, args ...string) (string, string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, append([]string{"sessions", "rerun", id, "--offline", "--json"}, args...)...)
		cmd.Env = append(w.env(), envExtra...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		_ = cmd.Run()
		return o.String(), e.String(), cmd.ProcessState.ExitCode()
	}
	manifest := func(session string) map[string]any {
		out, errOut, code := w.run("sessions", "export", session, "--format", "json")
		if code != 0 {
			t.Fatalf("export: %s", errOut)
		}
		var doc struct {
			Session struct {
				Manifest map[string]any `json:"manifest"`
			} `json:"session"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("export: %v", err)
		}
		return doc.Session.Manifest
	}
	changed := func(m map[string]any) map[string]string {
		got := map[string]string{}
		r, _ := m["rerun"].(map[string]any)
		if r == nil {
			return got
		}
		list, _ := r["changed"].([]any)
		for _, c := range list {
			c := c.(map[string]any)
			got[c["setting"].(string)] = c["to"].(string) + " from " + c["origin"].(string)
		}
		return got
	}

	cases := []struct {
		name string
		env  []string
		args []string
		want map[string]string
	}{
		{"--llm-url", nil, []string{"--llm-url", "NEW"}, map[string]string{"llm_url": "NEW from flag --llm-url"}},
		{"OLLAMA_HOST", []string{"OLLAMA_HOST=HOSTPORT"}, nil, map[string]string{"llm_url": "NEW from environment OLLAMA_HOST"}},
		{"--model", nil, []string{"--llm-url", "NEW", "--model", "other-model"}, map[string]string{
			"llm_url": "NEW from flag --llm-url", "model": "other-model from flag --model"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			moved := fakellm.New(t, caseStudyScript(), fakellm.Models("fake-model", "other-model"))
			u, _ := url.Parse(moved.URL())
			fill := func(s string) string {
				return strings.NewReplacer("NEW", moved.URL(), "HOSTPORT", u.Host).Replace(s)
			}
			var env, args []string
			for _, e := range c.env {
				env = append(env, fill(e))
			}
			for _, a := range c.args {
				args = append(args, fill(a))
			}
			out, errOut, code := rerun(env, args...)
			if code != 0 {
				t.Fatalf("rerun %v exit %d: %s", args, code, errOut)
			}
			if len(moved.Generations()) == 0 {
				t.Errorf("the moved server got no request")
			}
			evs := parseEvents(t, out)
			if len(evs) == 0 || evs[0].Session == id {
				t.Fatalf("no new session: %s", out)
			}
			got := changed(manifest(evs[0].Session))
			for k, v := range c.want {
				if got[k] != fill(v) {
					t.Errorf("manifest rerun change %s = %q, want %q (all: %v)", k, got[k], fill(v), got)
				}
			}
			if r, _ := manifest(evs[0].Session)["rerun"].(map[string]any); r == nil || r["of"] != id {
				t.Errorf("manifest does not say which session was re-run: %v", r)
			}
			if !strings.Contains(errOut, "recorded: "+oldURL) && c.want["llm_url"] != "" {
				t.Errorf("stderr does not say the address changed:\n%s", errOut)
			}
			if m, ok := c.want["model"]; ok {
				for _, g := range moved.Generations() {
					if !strings.Contains(m, g.Model) {
						t.Errorf("a request went to model %q, want other-model", g.Model)
					}
				}
			}
		})
	}
}
