package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `sessions rerun` counts a recorded web policy only when the user chose
// it (web_chosen in the session's config), and then applies the stricter
// of it and today's. An old session, recorded before web_chosen existed
// with the default of the time (auto), re-runs with today's configured
// policy, not auto: the re-run does not send to the web what nobody
// allowed. --web overrides both, and is the one way to loosen.
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
		{"--web auto overrides today's never", old, `web = "never"` + "\n", []string{"--web", "auto"}, true,
			"re-run with web auto (recorded: auto; from flag --web)", "auto"},
		{"a chosen auto gives way to today's stricter never", chosen, `web = "never"` + "\n", nil, false,
			"re-run with web never (recorded: auto; from the config file; stricter than the recorded auto", "never"},
		{"a chosen auto is kept when today's is auto too", chosen, `web = "auto"` + "\n", nil, true,
			"re-run with web auto (as recorded)", "auto"},
		{"--web never overrides a chosen auto", chosen, `web = "auto"` + "\n", []string{"--web", "never"}, false,
			"re-run with web never (recorded: auto; from flag --web)", "never"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, caseStudyScript())
			os.Remove(w.configFile())
			// An imported session's recorded web engine is not used: today's
			// configured one is.
			w.addConfig(c.config + "web_engine = \"searxng\"\nsearxng_url = \"" + w.search.URL() + "\"\n")
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
			if n := rec.search.Requests() + w.search.Requests() - before - w.search.Requests(); n != 0 {
				t.Errorf("the imported session's recorded web engine got %d request(s)", n)
			}
			sent := rec.search.Requests() + w.search.Requests() - before
			if (sent > 0) != c.web {
				t.Errorf("%d web request(s), want web searched = %v\nstderr: %s", sent, c.web, errOut)
			}
			if c.stderr != "" && !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr does not say %q:\n%s", c.stderr, errOut)
			}
			evs := parseEvents(t, out)
			if len(evs) == 0 || evs[0].Session == id || !strings.Contains(strings.SplitN(out, "\n", 2)[0], `"web":"`+c.setting+`"`) {
				t.Errorf("the re-run's session event does not record web %q:\n%s", c.setting, strings.SplitN(out, "\n", 2)[0])
			}
		})
	}
}
