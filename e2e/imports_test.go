package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 26 item 4: an import is untrusted input. Its id must be one
// prefrag makes, it cannot take over a stored session's short id, and every
// text it brings is cleaned wherever it is printed.

// caseStudyExport is the export package's case-study session (a JSON
// export as prefrag writes it) and its id.
func caseStudyExport(t *testing.T) (doc, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "store", "export", "testdata", "casestudy.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), "0b4f6c2e9a514d0cb8e73f1a2c9d8e70"
}

// terminalControls are byte sequences that must never reach a terminal
// from recorded text: ESC (every CSI and OSC sequence starts with it), BEL
// (it ends an OSC 8 link) and the C1 CSI and OSC in UTF-8.
var terminalControls = []string{"\x1b", "\x07", "\u009b", "\u009d"}

func holdsControl(s string) string {
	for _, c := range terminalControls {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

// Ids that prefrag does not make are refused with the reason, on one line
// that prints none of the id's control characters; nothing is imported and
// the stored session keeps its short id. Before, every one of them was
// imported: an OSC 8 link and a clear-screen reached the terminal through
// `sessions list`, a 5,000-character id filled it, and a 7-character prefix
// of a stored id took over that session's short id.
func TestImportRefusesForeignIDs(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	doc, id := caseStudyExport(t)
	file := filepath.Join(w.home, "case.json")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := w.run("sessions", "import", file); code != 0 {
		t.Fatalf("import of prefrag's own export: exit %d: %s", code, errOut)
	}
	short := id[:7]
	for _, tc := range []struct{ name, id, why string }{
		{"OSC 8 link", "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07", "characters"},
		{"clear screen", "\x1b[2J\x1b[H" + id[:25], `character 1 is '\x1b'`},
		{"5,000 characters", strings.Repeat("a", 5000), "it has 5000 characters"},
		{"path", "../../../../etc/passwd", "it has 22 characters"},
		{"the stored session's short id", short, "it has 7 characters"},
		{"upper case", strings.ToUpper("1" + id[1:]), "character 2 is 'B'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.id)
			bad := strings.ReplaceAll(doc, `"`+id+`"`, string(raw))
			f := filepath.Join(w.home, "bad.json")
			if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := w.run("sessions", "import", f)
			w.msgCheck([]string{"sessions import", tc.name}, errOut, code, 1, []string{"is not one prefrag makes", tc.why, "nothing was imported"})
			if c := holdsControl(out + errOut); c != "" || len(errOut) > 400 {
				t.Errorf("the refusal prints %q or is %d bytes long: %q", c, len(errOut), errOut)
			}
			list, _, _ := w.run("sessions", "list", "--json")
			if n := strings.Count(list, "\n"); n != 1 {
				t.Errorf("%d sessions stored after a refused import, want 1:\n%s", n, list)
			}
			shown, errOut, code := w.run("sessions", "show", short, "--json")
			if code != 0 || len(parseEvents(t, shown)) == 0 || parseEvents(t, shown)[0].Session != id {
				t.Errorf("sessions show %s no longer opens %s: exit %d %s", short, id, code, errOut)
			}
		})
	}
}

// hostile puts an OSC 8 link, a clear-screen, BEL and a C1 CSI into every
// string of an exported session but the fields that give it its shape
// (event types, the session id, times, the status): what a crafted export
// may carry. The settings name a never-leave corpus with those bytes too.
func hostile(t *testing.T, doc string) string {
	t.Helper()
	const payload = "\x1b]8;;http://evil.example/\x07LINK\x1b]8;;\x07\x1b[2J\x1b[H\x07\u009b31m"
	keep := map[string]bool{"type": true, "session": true, "time": true, "started": true, "finished": true, "status": true, "prefrag_export": true}
	var walk func(v any, key string) any
	walk = func(v any, key string) any {
		switch x := v.(type) {
		case map[string]any:
			if key == "session" || key == "" {
				// The session object's own id stays well formed.
				for k, e := range x {
					if k != "id" {
						x[k] = walk(e, k)
					}
				}
				return x
			}
			for k, e := range x {
				x[k] = walk(e, k)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = walk(e, key)
			}
			return x
		case string:
			if keep[key] {
				return x
			}
			half := len(x) / 2
			for half > 0 && half < len(x) && x[half]&0xc0 == 0x80 {
				half--
			}
			return x[:half] + payload + x[half:]
		}
		return v
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	sess := d["session"].(map[string]any)
	sess["config"].(map[string]any)["never_leave"] = []any{"wiki"}
	for _, e := range d["events"].([]any) {
		ev := e.(map[string]any)
		if ev["type"] == "session" {
			ev["config"].(map[string]any)["never_leave"] = []any{"wiki"}
		}
	}
	walk(d, "")
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every text an imported session brings is cleaned where it is printed:
// `sessions list`, `show` and `search` in the terminal, and the HTML and
// Markdown reports. Before, `sessions show` printed the strategy, web
// policy and engine of the settings line raw, and the HTML report's
// settings table printed every value raw (a never-leave name's ESC and BEL
// bytes among them).
func TestImportedTextCleanedWherePrinted(t *testing.T) {
	w := emptyWorld(t, &fakellm.Script{})
	doc, id := caseStudyExport(t)
	file := filepath.Join(w.home, "hostile.json")
	if err := os.WriteFile(file, []byte(hostile(t, doc)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := w.run("sessions", "import", file); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{
		{"sessions", "list"},
		{"sessions", "show", id[:7]},
		{"sessions", "search", "Danish"},
		{"sessions", "export", id, "--format", "md"},
		{"sessions", "export", id, "--format", "html"},
	} {
		out, errOut, code := w.run(args...)
		if code != 0 || !strings.Contains(out, "LINK") {
			t.Errorf("%v: exit %d, the imported text is not shown: %s\n%.300s", args, code, errOut, out)
		}
		noControl(t, args, out+errOut)
	}
	// A database may hold an id from before imports were checked: it is
	// cleaned where it is printed too.
	const oldID = "\x1b]8;;http://evil.example/\x07OLD\x1b]8;;\x07\x1b[2Jid"
	w.sqlExec("UPDATE sessions SET id = ? WHERE id = ?", oldID, id)
	// The id is shown Go-quoted, so that it can be typed back ($'…').
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "list"}, `"\x1b]8;;ht"`},
		{[]string{"sessions", "show", oldID}, `Session "\x1b]8;;http://evil.example/\aOLD\x1b]8;;\a\x1b[2Jid"`},
	} {
		out, errOut, code := w.run(tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%q: exit %d, the session is not shown as %s: %s\n%.300s", tc.args, code, tc.want, errOut, out)
		}
		noControl(t, tc.args, out+errOut)
	}
}

func noControl(t *testing.T, args []string, printed string) {
	t.Helper()
	if c := holdsControl(printed); c != "" {
		i := strings.Index(printed, c)
		t.Errorf("%q prints %q: …%q…", args, c, printed[max(0, i-80):min(len(printed), i+40)])
	}
}

// A server's error text that holds a newline is printed on one line: in
// the run's output (the retry warning and the error) and on stderr. Before,
// its second line started with an indented "prefrag: …" that read like a
// line of prefrag's own.
func TestServerErrorTextIsOneLine(t *testing.T) {
	const forged = "prefrag: all is well, run the command again with --web auto"
	for _, tc := range []struct {
		name  string
		reply fakellm.Reply
	}{
		{"HTTP error", fakellm.Reply{Status: 500, Error: "model crashed\n" + forged}},
		{"error in the stream", fakellm.Reply{Text: "Thought: x", Error: "stream broke\n" + forged}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, fakellm.Rules{List: []fakellm.Rule{{Reply: tc.reply}}})
			out, errOut, code := w.run(w.noWebArgs("--model", "fake-model", caseQuestion)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			oneSentence(t, errOut)
			for _, l := range strings.Split(out+errOut, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "prefrag:") && !strings.HasPrefix(l, "prefrag: ") {
					t.Errorf("a line of the server's text reads as prefrag's own: %q\nstdout:\n%s", l, out)
				}
				if strings.Contains(l, "all is well") && !strings.Contains(l, "error") && !strings.Contains(l, "warning") && !strings.HasPrefix(l, "prefrag: ") {
					t.Errorf("the server's text has a line of its own: %q", l)
				}
			}
			if !strings.Contains(out, forged) {
				t.Errorf("the server's text is not shown whole:\n%s", out)
			}
		})
	}
}
