package e2e

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// gateResponder plays a small proxy model ("tiny-proxy") and the main
// model: the proxy drafts, judges and writes claim queries; the main model
// answers.
func gateResponder(retrieve bool) fakellm.Responder {
	return fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		if c.Model == "tiny-proxy" {
			switch {
			case strings.HasPrefix(c.Prompt, "Heuristic draft."):
				return fakellm.Reply{Text: "Sørensen introduced pH; the ecologist may be Carsten Olsen (unsure)."}
			case len(c.Schema) > 0 && !retrieve:
				return fakellm.Reply{Text: `{"analysis": "well-known fact", "retrieve": false}`}
			case len(c.Schema) > 0 && strings.Contains(c.Prompt, "Question to assess: "):
				return fakellm.Reply{Text: `{"analysis": "the ecologist is uncertain", "retrieve": true}`}
			case len(c.Schema) > 0:
				return fakellm.Reply{Text: `{"analysis": "adds the chemist", "status": true}`}
			case strings.Contains(c.Prompt, "Question for claims: "):
				return fakellm.Reply{Text: "Query: Danish chemist who introduced pH"}
			}
			return fakellm.Reply{Text: "unexpected proxy prompt"}
		}
		if len(c.Schema) > 0 {
			return fakellm.Reply{Text: `{"analysis": "adds the chemist", "status": true}`}
		}
		return fakellm.Reply{Text: "Thought: I now know the final answer to the original question\nFinal Answer: 1974\nSelf-Evaluation: CORRECT\nExplanation: known."}
	})
}

// prefrag-gated through the real binary with a separate proxy model: a
// question the proxy knows is answered without any search; one it does not
// know starts PrefRAG with the claim query as the first search. The gate's
// calls go to the proxy model, the answer to the main model.
func TestAskPrefRAGGatedWithProxyModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		retrieve  bool
		wantTypes string
	}{
		{"answered without retrieval", false, "session gate answer final"},
		{"claim query first", true, "session gate action retrieval selection observation thought answer final"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, gateResponder(tc.retrieve), fakellm.Models("fake-model", "tiny-proxy"))
			out, errOut, code := w.run(w.askArgs("--strategy", "prefrag-gated", "--proxy-model", "tiny-proxy", "--web", "auto", "--json", caseQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			evs := parseEvents(t, out)
			if got := strings.Join(types(evs), " "); got != tc.wantTypes {
				t.Fatalf("events\n got %s\nwant %s", got, tc.wantTypes)
			}
			var proxy, main int
			for _, g := range w.llm.Generations() {
				switch g.Model {
				case "tiny-proxy":
					proxy++
				case "fake-model":
					main++
				}
			}
			final := payloadsOf[engine.Final](evs)[0]
			if final.Answer != "1974" || final.Counts.ProxyCalls != proxy || main != 1+final.Counts.JudgeCalls || final.Counts.LLMCalls != proxy+main {
				t.Errorf("answer %q counts %+v; generations: proxy %d main %d", final.Answer, final.Counts, proxy, main)
			}
			if !tc.retrieve {
				if w.search.Requests() != 0 || final.Counts.TotalRetrievals() != 0 || proxy != 2 {
					t.Errorf("searched without need: %d web requests, counts %+v", w.search.Requests(), final.Counts)
				}
				// The text output says so, with the reason.
				text, _, _ := w.run("sessions", "show", evs[0].Session)
				if !strings.Contains(text, "Gate: answered without retrieval — well-known fact") {
					t.Errorf("sessions show lacks the gate line:\n%s", text)
				}
				return
			}
			if r := payloadsOf[engine.Retrieval](evs); r[0].Query != "Danish chemist who introduced pH" || r[0].Source != "local:wiki" {
				t.Errorf("first search %+v", r[0])
			}
		})
	}
}
