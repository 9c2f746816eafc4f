package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// withUnpinnedCorpora: corpora exist, none is pinned, none named.
func withUnpinnedCorpora() harnessOption {
	return func(h *harness, _ *Deps) {
		h.corpora = newFakeCorpora(false)
		for i := range h.corpora.list {
			h.corpora.list[i].Pinned = false
		}
	}
}

func withWebOnly() harnessOption {
	return func(h *harness, _ *Deps) { h.opts.Settings.WebOnly = true }
}

// noCorpusRun is what the engine emits for a question that searches no
// corpus and may not use the web: the notice right after the session event.
func noCorpusRun(notice string) []engine.Event {
	t := testStart
	next := func() time.Time { t = t.Add(time.Second); return t }
	s := engine.DefaultRunConfig()
	s.CorpusChoice = engine.CorporaNonePinned
	return []engine.Event{
		{Session: "s-none", Seq: 1, Time: next(), Payload: engine.SessionStart{Question: "What is our merger plan?", Config: &s}},
		{Session: "s-none", Seq: 2, Time: next(), Payload: engine.Notice{Message: notice}},
		{Session: "s-none", Seq: 3, Time: next(), Step: 1, Payload: engine.Answer{Text: "I cannot tell.", Label: "INCORRECT"}},
		{Session: "s-none", Seq: 4, Time: next(), Payload: engine.Final{Answer: "I cannot tell.", Counts: &engine.Counts{LLMCalls: 1}}},
	}
}

// With nothing pinned and no --corpus the TUI says, before any question,
// that no corpus is searched and that the web stays closed without
// --web-only; the run's notice is shown in the trajectory; the question is
// asked with no corpus and no opt-in.
func TestNoPinnedCorpusWebNeedsOptIn(t *testing.T) {
	h := newHarness(t, withUnpinnedCorpora())
	h.golden("welcome", "No corpus is pinned", "web off: no corpus")
	notice := "no local corpus is searched: none is pinned and none was named with --corpus; the web is not searched either: opt in with --web-only"
	h.runner.events = noCorpusRun(notice)
	h.ask("What is our merger plan?")
	s := h.finalSeen()
	if !strings.Contains(strings.Join(strings.Fields(s), " "), "no local corpus is searched") {
		t.Errorf("the notice is not on screen:\n%s", s)
	}
	_, set, _ := h.runner.last()
	if len(set.Corpora) != 0 || set.WebOnly {
		t.Errorf("run settings corpora %v web_only %v; want none and false", set.Corpora, set.WebOnly)
	}
}

// Started with --web-only, the web policy is in force as usual.
func TestWebOnlyOptInShown(t *testing.T) {
	h := newHarness(t, withUnpinnedCorpora(), withWebOnly())
	s := h.waitFor("pref none", "web auto")
	if strings.Contains(s, "web off") || strings.Contains(s, "No corpus is pinned") && strings.Contains(s, "--web-only") {
		t.Errorf("web shown as off although --web-only was given:\n%s", s)
	}
	h.ask("What is our merger plan?")
	h.finalSeen()
	if _, set, _ := h.runner.last(); !set.WebOnly {
		t.Error("the run was not asked with web_only")
	}
}

// A pinned corpus: no warning, web policy as usual.
func TestPinnedCorpusNoOptInWarning(t *testing.T) {
	h := newHarness(t)
	s := h.waitFor("pref wiki", "web auto")
	if strings.Contains(s, "web off") || strings.Contains(s, "--web-only") {
		t.Errorf("warning with a pinned corpus:\n%s", s)
	}
}

// The consent dialog for the reflection's query says it is the
// reflection's, with no judge decision behind it.
func TestReflectionConsentDialog(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	reply := make(chan engine.Consent, 1)
	tests := []struct {
		name string
		req  engine.ConsentRequest
		want []string
		not  []string
	}{
		{"reflection", engine.ConsentRequest{Step: 2, Query: "Who signed the contract?", Source: "web:duckduckgo", Reflection: true,
			Analysis: "no judge decision: the self-evaluation judged the answer weak"},
			[]string{"Search the web?", "reflection: the self-evaluation judged the answer weak", "no judge decision", "Who signed the contract?"},
			[]string{"The judge found", "judge's analysis"}},
		{"judge switch", engine.ConsentRequest{Step: 1, Query: "river Prague", Source: "web:duckduckgo", Kind: sources.KindWeb, Analysis: "local lacks it"},
			[]string{"judge found the local documents not enough", "The judge's analysis", "local lacks it", "“for this run”: all web queries, until"},
			[]string{"eflection"}},
		{"an MCP server over the network", engine.ConsentRequest{Step: 1, Query: "Heron lead", Source: "mcp:wiki", Kind: sources.KindMCPRemote, Analysis: "local lacks it"},
			[]string{"Send this query to MCP wiki?", "[MCP wiki]", "Heron lead", "“for this run”: all queries to MCP servers over the network, until"},
			[]string{"Search the web?", "web queries"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newConsentDialog(sh, consentMsg{req: tt.req, reply: reply}, 1)
			v := strings.Join(strings.Fields(ansi.Strip(d.view(80))), " ")
			v = strings.NewReplacer("│ ", "", " │", "").Replace(v)
			for _, w := range tt.want {
				if !strings.Contains(v, w) {
					t.Errorf("dialog lacks %q:\n%s", w, v)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(v, w) {
					t.Errorf("dialog has %q:\n%s", w, v)
				}
			}
		})
	}
}
