package mcpserve

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// wantsWeb searches once per question, the judge always finds the corpus
// insufficient (so the run wants the web), then answers; a follow-up's
// rewrite is answered as such.
func wantsWeb() fakellm.Responder {
	var mu sync.Mutex
	searched := false
	return fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case c.Kind() == fakellm.KindJudge:
			return fakellm.Reply{Text: `{"analysis": "Nothing about the ecologist.", "status": false}`}
		case strings.HasPrefix(c.Prompt, "Rewrite a follow-up"):
			return fakellm.Reply{Text: "Where did Carsten Olsen work?"}
		case !searched:
			searched = true
			return fakellm.Reply{Text: "Thought: I need the ecologist.\nAction: Search_Engine\nAction Input: Danish plant ecologist who assisted Sørensen"}
		}
		searched = false
		return fakellm.Reply{Text: "Thought: I know enough.\nFinal Answer: Carsten Olsen [1].\nSelf-Evaluation: CORRECT"}
	})
}

// An agent's arguments tighten the user's privacy, never loosen it: with
// the user's policy never (or ask, which nobody can answer over MCP), a
// call asking for web auto sends nothing to the web, and says why and how
// the user can allow it; never-leave corpora hold, the user's and the
// call's.
func TestAskPrivacyOnlyTightens(t *testing.T) {
	tests := []struct {
		name       string
		config     []string
		args       map[string]any
		requests   int // web requests the fake search engine may see
		policy     string
		note, held string
	}{
		{"control: the user allows the web", []string{`web = "auto"`}, nil, 1, "auto", "", ""},
		{"user never, call auto", []string{`web = "never"`}, map[string]any{"web": "auto"}, 0, "never",
			`the user's web policy is never; a tool argument can only make it stricter, so "auto" was not applied`, ""},
		{"user ask, call auto", []string{`web = "ask"`}, map[string]any{"web": "auto"}, 0, "ask",
			`the user's web policy is ask; a tool argument can only make it stricter, so "auto" was not applied; nobody can be asked over MCP, so no web query is sent (as with a headless prefrag ask); to let agents' questions search the web, the user can set web = "auto" in `, "acts as"},
		{"no policy chosen", nil, nil, 0, "ask", `the user can set web = "auto" in `, "acts as"},
		{"user auto, call never", []string{`web = "auto"`}, map[string]any{"web": "never"}, 0, "never", "", ""},
		{"user auto, call ask", []string{`web = "auto"`}, map[string]any{"web": "ask"}, 0, "ask", "web policy ask (this call's argument)", "acts as"},
		{"call adds a never-leave corpus", []string{`web = "auto"`}, map[string]any{"never_leave": []string{"local:wiki"}}, 0, "auto", "", `never-leave`},
		{"the user's never-leave corpus holds", []string{`web = "auto"`, `never_leave = ["wiki"]`}, map[string]any{"never_leave": []string{}}, 0, "auto", "", `never-leave`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r fakellm.Responder = wantsWeb()
			if strings.Contains(tt.name, "never-leave") {
				// The corpus's passage enters the context at step 1,
				// then the judge wants the web.
				r = caseStudy()
			}
			w := newTestWorld(t, r, tt.config...)
			cs, _ := w.client()
			args := map[string]any{"question": caseQuestion}
			for k, v := range tt.args {
				args[k] = v
			}
			var out AskOutput
			decode(t, call(t, context.Background(), cs, "ask", args, nil), &out)
			if n := w.search.Requests(); n != tt.requests {
				t.Errorf("the web saw %d requests, want %d (queries %q)", n, tt.requests, w.search.Queries())
			}
			if out.Web.Policy != tt.policy || out.Web.Searched != (tt.requests > 0) {
				t.Errorf("web %+v, want policy %s", out.Web, tt.policy)
			}
			if !strings.Contains(out.Web.Note, tt.note) || (tt.note == "") != (out.Web.Note == "") {
				t.Errorf("note %q, want %q", out.Web.Note, tt.note)
			}
			if tt.held != "" && !strings.Contains(strings.Join(out.Web.HeldBack, " | "), tt.held) {
				t.Errorf("held back %q, want %q", out.Web.HeldBack, tt.held)
			}
			if strings.Contains(tt.name, "never-leave") && !slices.Contains(out.Web.NeverLeave, "wiki") {
				t.Errorf("never-leave %v", out.Web.NeverLeave)
			}
		})
	}
}

// A follow-up keeps its thread's strictest privacy: an agent cannot
// loosen it by leaving the argument out.
func TestAskFollowUpKeepsThreadPrivacy(t *testing.T) {
	w := newTestWorld(t, wantsWeb(), `web = "auto"`)
	cs, _ := w.client()
	var first, second AskOutput
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": caseQuestion, "web": "never"}, nil), &first)
	decode(t, call(t, context.Background(), cs, "ask", map[string]any{"question": "And where did he work?", "continue": first.SessionID}, nil), &second)
	if second.SessionID != first.SessionID {
		t.Errorf("the follow-up ran as session %s, not in the thread %s", second.SessionID, first.SessionID)
	}
	if n := w.search.Requests(); n != 0 {
		t.Errorf("the follow-up sent %d web requests; the thread's policy is never", n)
	}
}
