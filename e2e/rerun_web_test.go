package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `sessions rerun` reuses a recorded web policy only when the user chose
// it (web_chosen in the session's config). An old session, recorded
// before web_chosen existed with the default of the time (auto), re-runs
// with today's configured policy, not auto: the re-run does not send to
// the web what nobody allowed. --web overrides both.
func TestRerunWebPolicyOfAnOldSession(t *testing.T) {
	// The recording: the case study, which switches to the web, run with
	// web auto. Its export, with web_chosen taken out, is an old session.
	rec := newWorld(t, caseStudyScript())
	out, errOut, code := rec.run(rec.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	id := parseEvents(t, out)[0].Session
	if !strings.Contains(out, `"web_chosen":true`) {
		t.Fatalf("a session run with web = \"auto\" in the config file does not record web_chosen:\n%s", out)
	}
	if rec.search.Requests() == 0 {
		t.Fatal("the recording did not search the web")
	}
	chosen, errOut, code := rec.run("sessions", "export", id, "--format", "json")
	if code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	old := regexp.MustCompile(`"web_chosen":\s*true,\s*`).ReplaceAllString(chosen, "")
	if strings.Contains(old, "web_chosen") {
		t.Fatalf("web_chosen left in the old session:\n%s", old)
	}

	cases := []struct {
		name    string
		export  string
		config  string // today's config file
		args    []string
		web     bool   // the re-run searches the web
		stderr  string // said on stderr
		setting string // the web policy the re-run records
	}{
		{"a default auto gives way to today's never", old, `web = "never"` + "\n", nil, false,
			"re-run with web never (recorded: auto; from the config file; the recorded policy was a default, not a choice)", "never"},
		{"no policy chosen today: ask, and headless nothing is sent", old, "", nil, false,
			"no web policy chosen yet", "ask"},
		{"--web auto overrides today's never", old, `web = "never"` + "\n", []string{"--web", "auto"}, true, "", "auto"},
		{"a chosen auto is kept over today's never", chosen, `web = "never"` + "\n", nil, true, "", "auto"},
		{"--web never overrides a chosen auto", chosen, `web = "auto"` + "\n", []string{"--web", "never"}, false,
			"re-run with web never (recorded: auto; from flag --web)", "never"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, caseStudyScript())
			os.Remove(w.configFile())
			w.addConfig(c.config)
			file := filepath.Join(t.TempDir(), "old.json")
			if err := os.WriteFile(file, []byte(c.export), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := w.run("sessions", "import", file); code != 0 {
				t.Fatalf("import: exit %d: %s", code, errOut)
			}
			before := rec.search.Requests() + w.search.Requests()
			args := append([]string{"sessions", "rerun", id, "--json", "--llm-url", w.llm.URL()}, c.args...)
			out, errOut, code := w.run(args...)
			if code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, errOut)
			}
			sent := rec.search.Requests() + w.search.Requests() - before
			if (sent > 0) != c.web {
				t.Errorf("%d web request(s), want web searched = %v\nstderr: %s", sent, c.web, errOut)
			}
			if c.stderr != "" && !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr does not say %q:\n%s", c.stderr, errOut)
			}
			if c.stderr == "" && strings.Contains(errOut, "re-run with web") {
				t.Errorf("stderr reports a web change:\n%s", errOut)
			}
			evs := parseEvents(t, out)
			if len(evs) == 0 || evs[0].Session == id || !strings.Contains(strings.SplitN(out, "\n", 2)[0], `"web":"`+c.setting+`"`) {
				t.Errorf("the re-run's session event does not record web %q:\n%s", c.setting, strings.SplitN(out, "\n", 2)[0])
			}
		})
	}
}
