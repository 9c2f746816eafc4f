package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// caseStudyQueue queues the case study's replies (local, judge true;
// local, judge false → the web; answer) once more on script.
func caseStudyQueue(script *queue) {
	cs := caseStudyScript()
	script.add(cs.Steps, cs.Judges)
}

// addNotes indexes a corpus "notes" holding the vault password into w.
func addNotes(t *testing.T, w *world) {
	t.Helper()
	notes := filepath.Join(w.home, "notes")
	os.MkdirAll(notes, 0o755)
	os.WriteFile(filepath.Join(notes, "vault.txt"), []byte("The vault password is "+vaultSecret+".\n"), 0o644)
	if out, errOut, code := w.run("index", "--corpus", "notes", notes); code != 0 {
		t.Fatalf("index notes: %d\n%s\n%s", code, out, errOut)
	}
}

// rerunLines are the "re-run with …" lines of a re-run's stderr, by setting.
func rerunLines(errOut string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(errOut, "\n") {
		rest, ok := strings.CutPrefix(l, "prefrag: re-run with ")
		if !ok {
			continue
		}
		key, _, _ := strings.Cut(rest, " ")
		out[key] = rest
	}
	return out
}

// TestRerunNeverLoosens: `sessions rerun` applies the stricter of the
// recorded privacy and today's unless a flag on the re-run loosens it, and
// an imported session's recorded servers are not used without a flag
// naming them. The re-run says, one line per setting, what it uses and
// where it came from.
//
// The foreign machine records the case study with web auto (chosen), its
// own LLM server and its own web engine, and exports it. This machine's
// config says web = "never", never_leave = ["notes"], and names its own
// LLM server and web engine. Re-running the import sends nothing to the
// foreign servers and nothing to any web engine.
func TestRerunNeverLoosens(t *testing.T) {
	foreign := newWorld(t, caseStudyScript())
	out, errOut, code := foreign.run(foreign.askArgs("--json", caseQuestion)...)
	if code != 0 {
		t.Fatalf("foreign ask: exit %d: %s", code, errOut)
	}
	id := parseEvents(t, out)[0].Session
	file := filepath.Join(t.TempDir(), "session.json")
	if _, errOut, code := foreign.run("sessions", "export", id, "--format", "json", "-o", file); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	foreignCalls, foreignWeb := len(foreign.llm.Requests()), foreign.search.Requests()

	script := &queue{}
	here := newWorld(t, script)
	addNotes(t, here)
	os.Remove(here.configFile())
	here.addConfig(`web = "never"` + "\nnever_leave = [\"notes\"]\nllm_url = \"" + here.llm.URL() + "\"\n" +
		"web_engine = \"searxng\"\nsearxng_url = \"" + here.search.URL() + "\"\n")
	if _, errOut, code := here.run("sessions", "import", file); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	rerun := func(args ...string) (string, string) {
		t.Helper()
		caseStudyQueue(script)
		out, errOut, code := here.run(append([]string{"sessions", "rerun", id, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("rerun %v: exit %d\n%s", args, code, errOut)
		}
		return out, errOut
	}

	t.Run("imported, no flags: today's privacy and today's servers", func(t *testing.T) {
		before := here.search.Requests()
		out, errOut := rerun()
		if n := len(foreign.llm.Requests()) - foreignCalls; n != 0 {
			t.Errorf("the imported session's recorded LLM server got %d request(s)", n)
		}
		if n := foreign.search.Requests() - foreignWeb + here.search.Requests() - before; n != 0 {
			t.Errorf("%d web request(s) under today's web never", n)
		}
		if len(here.llm.Generations()) == 0 {
			t.Errorf("this machine's LLM server got no request")
		}
		lines := rerunLines(errOut)
		for key, want := range map[string]string{
			"web":         "web never (recorded: auto; from the config file; stricter than the recorded auto",
			"never-leave": "never-leave notes (recorded: none; from the config file)",
			"llm_url":     "llm_url " + here.llm.URL() + " (recorded: " + foreign.llm.URL() + "; from the config file",
			"llm":         "llm ollama (as recorded)",
			"model":       "model fake-model (as recorded)",
		} {
			if !strings.HasPrefix(lines[key], want) {
				t.Errorf("the %s line is %q, want %q…\n%s", key, lines[key], want, errOut)
			}
		}
		if !strings.Contains(errOut, "this session was imported") {
			t.Errorf("stderr does not say the session was imported:\n%s", errOut)
		}
		p, _ := rawEvents(t, out)[0]["privacy"].(map[string]any)
		if p == nil || p["web"] != "never" || strings.Join(anyStrings(p["never_leave"]), ",") != "notes" {
			t.Errorf("the re-run's session event records privacy %v, want web never, never-leave notes", p)
		}
	})

	t.Run("imported, no server configured: the default, never the file's", func(t *testing.T) {
		bare := newWorld(t, &queue{})
		os.Remove(bare.configFile())
		bare.addConfig(`web = "never"` + "\n")
		if _, errOut, code := bare.run("sessions", "import", file); code != 0 {
			t.Fatalf("import: %s", errOut)
		}
		_, errOut, _ := bare.run("sessions", "rerun", id, "--json")
		if n := len(foreign.llm.Requests()) - foreignCalls; n != 0 {
			t.Errorf("the imported session's recorded LLM server got %d request(s)", n)
		}
		if line := rerunLines(errOut)["llm_url"]; !strings.HasPrefix(line, "llm_url http://127.0.0.1:11434 (recorded: "+foreign.llm.URL()+"; from the default of --llm ollama; the session was imported") {
			t.Errorf("the llm_url line is %q\n%s", line, errOut)
		}
	})

	t.Run("flags loosen and name the recorded server", func(t *testing.T) {
		moved := newWorld(t, caseStudyScript()) // a server named by the flag
		before := here.search.Requests()
		_, errOut := rerun("--web", "auto", "--never-leave", "", "--llm-url", moved.llm.URL())
		if here.search.Requests() == before {
			t.Errorf("--web auto --never-leave '': the web was not searched\n%s", errOut)
		}
		if len(moved.llm.Generations()) == 0 {
			t.Errorf("--llm-url: the named server got no request")
		}
		lines := rerunLines(errOut)
		for key, want := range map[string]string{
			"web":         "web auto (recorded: auto; from flag --web)",
			"never-leave": "never-leave none (recorded: none; from flag --never-leave)",
			"llm_url":     "llm_url " + moved.llm.URL() + " (recorded: ",
		} {
			if !strings.HasPrefix(lines[key], want) {
				t.Errorf("the %s line is %q, want %q…\n%s", key, lines[key], want, errOut)
			}
		}
	})

	t.Run("empty flag values are refused", func(t *testing.T) {
		for _, flag := range []string{"--web", "--llm", "--llm-url", "--model"} {
			_, errOut, code := here.run("sessions", "rerun", id, flag, "")
			if code != 2 || !strings.Contains(errOut, flag+" needs ") {
				t.Errorf("%s '': exit %d, want 2 with the reason:\n%s", flag, code, errOut)
			}
		}
		_, errOut, code := here.run("sessions", "rerun", id, "--never-leave", "nottes")
		if code != 2 || !strings.Contains(errOut, `did you mean "notes"?`) {
			t.Errorf("--never-leave nottes: exit %d, want 2 with a did-you-mean:\n%s", code, errOut)
		}
	})
}

// TestRerunOwnSessionAfterTightening: one's own session, recorded with web
// auto, re-run after the config file was tightened (web never, a
// never-leave corpus) runs under today's stricter privacy: no web request.
// `last` names the newest session in `sessions show`, `rerun` and
// `export`, as it does for --continue.
func TestRerunOwnSessionAfterTightening(t *testing.T) {
	script := &queue{}
	w := newWorld(t, script)
	addNotes(t, w)
	caseStudyQueue(script)
	if _, errOut, code := w.run(w.askArgs("--corpus", "wiki", "--json", caseQuestion)...); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	sent := w.search.Requests()
	if sent == 0 {
		t.Fatal("the recording did not search the web")
	}
	w.addConfig(`never_leave = ["notes"]` + "\n")
	cfg, _ := os.ReadFile(w.configFile())
	os.WriteFile(w.configFile(), []byte(strings.Replace(string(cfg), `web = "auto"`, `web = "never"`, 1)), 0o644)

	caseStudyQueue(script)
	out, errOut, code := w.run("sessions", "rerun", "last", "--json", "--llm-url", w.llm.URL())
	if code != 0 {
		t.Fatalf("rerun last: exit %d\n%s", code, errOut)
	}
	if n := w.search.Requests() - sent; n != 0 {
		t.Errorf("the re-run sent %d web request(s) after the config said web never", n)
	}
	// Not even the web cache is asked: the web is not a source of the re-run.
	for _, ev := range rawEvents(t, out) {
		if ev["type"] == "retrieval" && strings.HasPrefix(str(ev, "source"), "web:") {
			t.Errorf("the re-run searched the web (%s) after the config said web never", str(ev, "query"))
		}
		if ev["type"] == "session" {
			if p, _ := ev["privacy"].(map[string]any); p == nil || p["web"] != "never" || strings.Join(anyStrings(p["never_leave"]), ",") != "notes" {
				t.Errorf("the re-run's session records privacy %v, want web never, never-leave notes", ev["privacy"])
			}
		}
	}
	lines := rerunLines(errOut)
	if !strings.HasPrefix(lines["web"], "web never (recorded: auto; from the config file; stricter") ||
		!strings.HasPrefix(lines["never-leave"], "never-leave notes (recorded: none; from the config file)") {
		t.Errorf("the re-run does not say today's stricter privacy applies:\n%s", errOut)
	}
	if strings.Contains(errOut, "imported") {
		t.Errorf("one's own session is called imported:\n%s", errOut)
	}
	rerunID := parseEvents(t, out)[0].Session

	show, errOut, code := w.run("sessions", "show", "last", "--json")
	if code != 0 || !strings.Contains(show, rerunID) {
		t.Errorf("sessions show last: exit %d, not the re-run %s\n%s", code, rerunID, errOut)
	}
	exp, errOut, code := w.run("sessions", "export", "last", "--format", "json")
	if code != 0 || !strings.Contains(exp, rerunID) {
		t.Errorf("sessions export last: exit %d, not the re-run %s\n%s", code, rerunID, errOut)
	}
}
