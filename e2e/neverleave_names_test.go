package e2e

import (
	"strings"
	"testing"
)

// vaultSwitch is one question on the notes: the first search takes a
// notes passage into the context (the judge finds it useful), the second,
// whose judge wants the web, carries the notes' password — a never-leave
// notes must hold it back.
func vaultSwitch(script *queue) {
	script.add([]string{
		"Thought: The notes may say.\nAction: Search_Engine\nAction Input: vault password",
		"Thought: Search who holds it.\nAction: Search_Engine\nAction Input: who knows " + vaultSecret,
		"Thought: Enough.\nFinal Answer: Ada [1]\nSelf-Evaluation: CORRECT\nExplanation: stated in [1]",
	}, []string{judgeSays(true), judgeSays(false)})
}

// TestNeverLeaveNamesResolveOrFail: a never-leave name is read as the
// corpus it names, the way a person writes it — "Notes" (with a note on
// stderr: corpus names are case-sensitive), "notes " and "local:notes",
// on the flag or in the config file — and then protects it: the step
// query carrying the notes' password does not reach the web engine, and
// the session records the corpus's own name. A name that names no corpus
// ("nottes") is a usage error (exit 2) with a "did you mean", before any
// model call, for `ask`, the workspace and `prefrag config`.
func TestNeverLeaveNamesResolveOrFail(t *testing.T) {
	cases := []struct {
		name   string
		flag   []string // --never-leave …
		config string   // never_leave in the config file
		note   string   // said on stderr
	}{
		{name: "Notes", flag: []string{"--never-leave", "Notes"}, note: `"Notes" is read as corpus "notes"`},
		{name: "trailing space", flag: []string{"--never-leave", "notes "}},
		{name: "local:notes", flag: []string{"--never-leave", "local:notes"}},
		{name: "config Notes", config: `never_leave = ["Notes"]` + "\n", note: `never_leave in `},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := &queue{}
			w := vaultWorld(t, script)
			w.addConfig(c.config)
			vaultSwitch(script)
			args := append(w.askArgs("--corpus", "notes", "--json"), c.flag...)
			out, errOut, code := w.run(append(args, "Who else knows the vault password?")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if n := w.search.Requests(); n != 0 {
				t.Fatalf("%d request(s) reached the web engine %q: the never-leave name protected nothing", n, w.search.Queries())
			}
			evs := rawEvents(t, out)
			p, _ := evs[0]["privacy"].(map[string]any)
			if p == nil || strings.Join(anyStrings(p["never_leave"]), ",") != "notes" {
				t.Errorf("the session does not record never-leave notes: %v", evs[0]["privacy"])
			}
			if c.note != "" && !strings.Contains(errOut, c.note) {
				t.Errorf("stderr does not say how the name was read (%q):\n%s", c.note, errOut)
			}
		})
	}

	refused := []struct {
		name   string
		flag   []string
		config string
	}{
		{"flag nottes", []string{"--never-leave", "nottes"}, ""},
		{"config nottes", nil, `never_leave = ["nottes"]` + "\n"},
		{"one of two", []string{"--never-leave", "notes", "--never-leave", "nottes"}, ""},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			script := &queue{}
			w := vaultWorld(t, script)
			w.addConfig(c.config)
			vaultSwitch(script)
			args := append(w.askArgs("--corpus", "notes"), c.flag...)
			_, errOut, code := w.run(append(args, "Who else knows the vault password?")...)
			if code != 2 || !strings.Contains(errOut, `did you mean "notes"?`) || !strings.Contains(errOut, `"nottes"`) {
				t.Fatalf("ask: exit %d, want 2 with a did-you-mean:\n%s", code, errOut)
			}
			if n := len(w.llm.Generations()); n != 0 {
				t.Errorf("the model was called %d time(s) for a refused run", n)
			}
			for _, cmd := range [][]string{{"config"}, {"--llm-url", w.llm.URL()}} {
				_, errOut, code = w.run(append(cmd, c.flag...)...)
				if code != 2 || !strings.Contains(errOut, `did you mean "notes"?`) {
					t.Errorf("%v: exit %d, want 2 with a did-you-mean:\n%s", cmd, code, errOut)
				}
			}
		})
	}
}
