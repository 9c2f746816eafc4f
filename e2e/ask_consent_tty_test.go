package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
)

// TestAskConsentOnTerminal: `prefrag ask` under web policy ask, run in a
// terminal (a tmux pane: stdin and stderr are terminals), puts the web
// query to the user with the query shown and waits: y sends it (one
// request to the search stand-in, the web documents in the session), n
// (or Enter) keeps it on the machine (no request; the observation says the
// user declined).
func TestAskConsentOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   string
		requests int
	}{{"yes", "y", 1}, {"no", "n", 0}, {"enter", "", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, caseStudyScript())
			s := startTmux(t, w, t.TempDir(), w.askArgs("--web", "ask", caseQuestion)...)
			scr := s.waitFor("the consent question", 15*time.Second, "Send this query to web:searxng?", "Danish plant ecologist who assisted Sørensen", "[N]o")
			if strings.Contains(scr, "needs the interactive app") || strings.Contains(scr, "acts as never") {
				t.Errorf("the terminal run says it cannot ask:\n%s", scr)
			}
			if n := w.search.Requests(); n != 0 {
				t.Fatalf("%d web requests before the answer", n)
			}
			if tc.answer != "" {
				s.text(tc.answer)
			}
			s.keys("Enter")
			exited(t, s)
			if n := w.search.Requests(); n != tc.requests {
				t.Errorf("%d web requests, want %d", n, tc.requests)
			}
			out, errOut, code := w.run("sessions", "show", "last", "--json")
			if code != 0 {
				t.Fatalf("sessions show: exit %d %s", code, errOut)
			}
			evs := parseEvents(t, out)
			web, note := 0, ""
			for _, r := range payloadsOf[engine.Retrieval](evs) {
				if strings.HasPrefix(r.Source, "web:") {
					web++
				}
			}
			for _, o := range payloadsOf[engine.Observation](evs) {
				note += o.Note
			}
			if web != tc.requests {
				t.Errorf("%d web retrievals stored, want %d", web, tc.requests)
			}
			if tc.requests == 0 && !strings.Contains(note, "declined") {
				t.Errorf("the observation does not say the user declined: %q", note)
			}
			if payloadsOf[engine.Final](evs) == nil {
				t.Error("no final answer stored")
			}
		})
	}
}
