package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

// mcpHarness is a run over the corpus "wiki", an MCP server "kb" of the
// given kind, and the web.
func mcpHarness(t *testing.T, kind sources.Kind) (*harness, *memSource) {
	kb := &memSource{name: "mcp:kb", kind: kind, answers: map[string][]Document{}}
	h := newHarness(t, kb)
	h.local.answers["heron"] = []Document{doc("local:wiki", "w1", "Billing", "The billing pipeline runs nightly.")}
	kb.answers["heron"] = []Document{doc("mcp:kb", "kb/kb-1", "Heron charter", "Project Heron is led by Ada Varga.")}
	h.web.answers["heron"] = []Document{{ID: "https://x", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	return h, kb
}

// A question the corpus cannot answer goes to the MCP server next, before
// the web, which is never asked; the MCP search is counted as its own.
func TestMCPSourceComesBeforeTheWeb(t *testing.T) {
	h, kb := mcpHarness(t, sources.KindMCP)
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: who leads heron"},
		{text: "Final Answer: Ada Varga [2]\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "the corpus says nothing about Heron's lead")}
	res, err := h.run(t, "Who leads Project Heron?", func(s *Settings) { s.Web = WebAuto })
	if err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 1 || len(h.web.queries) != 0 {
		t.Fatalf("MCP queries %q, web queries %q: want the MCP server once and the web never", kb.queries, h.web.queries)
	}
	sel := payloads[Selection](h.rec)
	if len(sel) != 1 || sel[0].NextSource == nil || *sel[0].NextSource != "mcp:kb" {
		t.Errorf("selection %+v: want the switch to mcp:kb", sel)
	}
	if obs := payloads[Observation](h.rec); len(obs) != 1 || obs[0].Source != "mcp:kb" {
		t.Errorf("observations %+v", obs)
	}
	c := res.Counts
	if c.MCPRetrievals != 1 || c.LocalRetrievals != 1 || c.WebRetrievals != 0 || c.TotalRetrievals() != 2 {
		t.Errorf("counts local %d, mcp %d, web %d", c.LocalRetrievals, c.MCPRetrievals, c.WebRetrievals)
	}
}

// Privacy follows the transport: an http MCP server obeys the web policy
// and never-leave like the web; a stdio one is local.
func TestMCPPrivacyByTransport(t *testing.T) {
	cases := []struct {
		name     string
		kind     sources.Kind
		mod      func(*Settings)
		searched bool
		note     string
	}{
		{"http under web never", sources.KindMCPRemote, func(s *Settings) { s.Web = WebNever }, false, "mcp:kb was not searched (a query to it leaves the machine"},
		{"http under never-leave, no one to ask", sources.KindMCPRemote, func(s *Settings) { s.Web = WebAuto; s.NeverLeave = []string{"wiki"} }, false, "marked never-leave"},
		{"stdio under web never", sources.KindMCP, func(s *Settings) { s.Web = WebNever }, true, ""},
		{"stdio under never-leave", sources.KindMCP, func(s *Settings) { s.Web = WebAuto; s.NeverLeave = []string{"wiki"} }, true, ""},
		{"http under web auto", sources.KindMCPRemote, func(s *Settings) { s.Web = WebAuto }, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Step 1 takes the corpus's passage into the context; step 2's
			// query, built from it, would go to the MCP server.
			h, kb := mcpHarness(t, c.kind)
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: heron billing"},
				{text: "Thought: t\nAction: Search_Engine\nAction Input: heron nightly billing pipeline lead"},
				{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(true, "it names the pipeline"), judgeJSON(false, "not enough")}
			if _, err := h.run(t, "Who leads Project Heron?", c.mod); err != nil {
				t.Fatal(err)
			}
			if got := len(kb.queries) > 0; got != c.searched {
				t.Fatalf("MCP queries %q; want searched %v", kb.queries, c.searched)
			}
			if len(h.web.queries) != 0 {
				t.Errorf("web queries %q", h.web.queries)
			}
			if c.note != "" {
				obs := payloads[Observation](h.rec)
				if len(obs) != 2 || !strings.Contains(obs[1].Note, c.note) {
					t.Errorf("observations %+v: want a note with %q", obs, c.note)
				}
			}
		})
	}
}

// Under web policy "ask", a query to an http MCP server is put to the user
// like a web query, naming the server.
func TestMCPRemoteAsksConsent(t *testing.T) {
	h, kb := mcpHarness(t, sources.KindMCPRemote)
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "not enough")}
	var asked []ConsentRequest
	s := DefaultSettings()
	s.Web = WebAsk
	_, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit,
		Consent: func(ctx context.Context, r ConsentRequest) (Consent, error) {
			asked = append(asked, r)
			return ConsentDeny, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Source != "mcp:kb" || len(kb.queries) != 0 {
		t.Fatalf("asked %+v, MCP queries %q", asked, kb.queries)
	}
}

// An http MCP server preferred first is not searched without the web
// policy's leave either.
func TestPreferredRemoteMCPObeysPolicy(t *testing.T) {
	kb := &memSource{name: "mcp:kb", kind: sources.KindMCPRemote, answers: map[string][]Document{"heron": {doc("mcp:kb", "kb/1", "H", "h")}}}
	h := newHarness(t)
	eng, err := New(Config{LLM: h.llm, Sources: []Source{kb, h.local}})
	if err != nil {
		t.Fatal(err)
	}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "fine")}
	s := DefaultSettings()
	s.Web = WebNever
	if _, err := eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit}); err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 0 || len(h.local.queries) != 1 {
		t.Errorf("MCP queries %q, local queries %q: the http server is dropped under never, the corpus searched", kb.queries, h.local.queries)
	}
}

// In multi-source mode the MCP server is a tool of its own, described as
// what it is, and the model may choose it.
func TestMCPSearchTool(t *testing.T) {
	h, kb := mcpHarness(t, sources.KindMCP)
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Kb\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "not enough")}
	if _, err := h.run(t, "Q?", func(s *Settings) { s.PerSourceTools = true; s.Web = WebAuto }); err != nil {
		t.Fatal(err)
	}
	p := h.llm.prompts("step")[0]
	if !strings.Contains(p, `Search_Kb`) || !strings.Contains(p, `searches "kb", a knowledge source the user connected (an MCP server)`) {
		t.Errorf("step prompt does not advertise the MCP tool:\n%s", p)
	}
	if len(kb.queries) != 1 {
		t.Errorf("MCP queries %q", kb.queries)
	}
}

// The reflection supplements from the preferred corpus, the first MCP
// server and the web.
func TestSupplementSearchesMCP(t *testing.T) {
	h, kb := mcpHarness(t, sources.KindMCP)
	h.llm.steps = []reply{
		{text: "Final Answer: x\nSelf-Evaluation: INCORRECT\nExplanation: e\nImprovement Suggestions: s"},
		{text: "Final Answer: y\nSelf-Evaluation: CORRECT"},
	}
	if _, err := h.run(t, "Who leads Project Heron?", func(s *Settings) { s.Web = WebAuto }); err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 1 || kb.queries[0] != "Who leads Project Heron?" || len(h.web.queries) != 1 {
		t.Errorf("MCP queries %q, web queries %q", kb.queries, h.web.queries)
	}
}

// The caller's notices about the sources are said right after the
// session event.
func TestRequestNotices(t *testing.T) {
	h := newHarness(t)
	h.llm.steps = []reply{{text: "Final Answer: x\nSelf-Evaluation: CORRECT"}}
	s := DefaultSettings()
	if _, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit,
		Notices: []string{"MCP server \"x\" is not used: it has no command to start"}}); err != nil {
		t.Fatal(err)
	}
	n := payloads[Notice](h.rec)
	if len(n) == 0 || !strings.Contains(n[0].Message, "is not used") || n[0].Fatal {
		t.Errorf("notices %+v", n)
	}
}

// An MCP server that fails is a one-line reason, and the step goes on to
// the next source (the web); the observation tells the model why.
func TestFailedMCPGoesOnToTheNextSource(t *testing.T) {
	h, kb := mcpHarness(t, sources.KindMCP)
	kb.err = &sources.UnavailableError{Source: "mcp:kb", Err: errors.New("the server exited (exit status 3)")}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "not enough")}
	res, err := h.run(t, "Who leads Project Heron?", func(s *Settings) { s.Web = WebAuto })
	if err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 1 || len(h.web.queries) != 1 {
		t.Fatalf("MCP queries %q, web queries %q", kb.queries, h.web.queries)
	}
	obs := payloads[Observation](h.rec)
	if len(obs) != 1 || obs[0].Source != "web:duckduckgo" || !strings.Contains(obs[0].Note, "mcp:kb unavailable: the server exited") {
		t.Errorf("observation %+v", obs)
	}
	var said bool
	for _, n := range payloads[Notice](h.rec) {
		said = said || strings.Contains(n.Message, "the server exited") && !n.Fatal && !strings.Contains(n.Message, "\n")
	}
	if !said || res.Counts.MCPRetrievals != 1 || res.Counts.WebRetrievals != 1 {
		t.Errorf("notices %+v, counts %+v", payloads[Notice](h.rec), res.Counts)
	}
}

// A local MCP server named never-leave ("mcp:kb") holds a web query once
// its passages are in the context, like a never-leave corpus.
func TestNeverLeaveMCPHoldsTheWeb(t *testing.T) {
	kb := &memSource{name: "mcp:kb", kind: sources.KindMCP, answers: map[string][]Document{
		"heron": {doc("mcp:kb", "kb/1", "Heron", "Project Heron is led by Ada Varga.")},
		"ada":   {doc("mcp:kb", "kb/2", "Ada", "Ada Varga joined in 2021.")},
	}}
	h := newHarness(t)
	h.web.answers["ada"] = []Document{{ID: "https://x", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	eng, err := New(Config{LLM: h.llm, Sources: []Source{kb, h.web}})
	if err != nil {
		t.Fatal(err)
	}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: ada varga"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(true, "fine"), judgeJSON(false, "more")}
	s := DefaultSettings()
	s.Web, s.NeverLeave, s.WebOnly = WebAuto, []string{"mcp:kb"}, true
	if _, err := eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit}); err != nil {
		t.Fatal(err)
	}
	if len(h.web.queries) != 0 {
		t.Fatalf("web queries %q from a context holding never-leave MCP passages", h.web.queries)
	}
	obs := payloads[Observation](h.rec)
	if len(obs) != 2 || !strings.Contains(obs[1].Note, `"mcp:kb"`) {
		t.Errorf("observations %+v", obs)
	}
}

// MCP servers are not corpora: a run with no corpus needs the web-only
// opt-in for the web (and an http MCP server) even when it searches a
// local MCP server, and its notice says what is searched.
func TestNoCorpusButMCP(t *testing.T) {
	kb := &memSource{name: "mcp:kb", kind: sources.KindMCP, answers: map[string][]Document{"heron": {doc("mcp:kb", "kb/1", "H", "h")}}}
	wiki := &memSource{name: "mcp:wiki", kind: sources.KindMCPRemote, answers: map[string][]Document{"heron": {doc("mcp:wiki", "w/1", "W", "w")}}}
	h := newHarness(t)
	eng, err := New(Config{LLM: h.llm, Sources: []Source{kb, wiki, h.web}})
	if err != nil {
		t.Fatal(err)
	}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	s := DefaultSettings()
	s.Web = WebAuto
	if _, err := eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit}); err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 1 || len(wiki.queries) != 0 || len(h.web.queries) != 0 {
		t.Fatalf("queries: kb %q, wiki %q, web %q", kb.queries, wiki.queries, h.web.queries)
	}
	n := payloads[Notice](h.rec)
	if len(n) == 0 || !strings.Contains(n[0].Message, "only the MCP servers on this machine are searched (mcp:kb)") {
		t.Errorf("notices %+v", n)
	}
}

// Allowing every query of the run to an http MCP server allows that kind
// of source only: the web is still put to the user, and the question and
// the engine's note name the kind the answer was about. Declining an MCP
// server for the run leaves the web's consent alone too.
func TestMCPRemoteRunConsentIsPerKind(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer Consent
	}{{"allow for the run", ConsentSession}, {"deny for the run", ConsentDenyRun}} {
		t.Run(c.name, func(t *testing.T) {
			h, kb := mcpHarness(t, sources.KindMCPRemote)
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
				{text: "Thought: t\nAction: Search_Web\nAction Input: heron"},
				{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(false, "not enough"), judgeJSON(false, "still not enough")}
			var asked []ConsentRequest
			s := DefaultSettings()
			s.Model, s.Web = "script", WebAsk
			_, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit,
				Consent: func(ctx context.Context, r ConsentRequest) (Consent, error) {
					asked = append(asked, r)
					if len(asked) == 1 {
						return c.answer, nil
					}
					return ConsentOnce, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(asked) != 2 || asked[1].Source != "web:duckduckgo" {
				t.Fatalf("asked %+v: want the MCP server, then the web asked on its own", asked)
			}
			if asked[0].Kind != sources.KindMCPRemote || asked[1].Kind != sources.KindWeb {
				t.Errorf("consent kinds %v, %v: want mcp over the network, then web", asked[0].Kind, asked[1].Kind)
			}
			if len(h.web.queries) != 1 {
				t.Errorf("web queries %q: want the one the user allowed", h.web.queries)
			}
			if c.answer == ConsentSession && len(kb.queries) != 1 {
				t.Errorf("MCP queries %q", kb.queries)
			}
		})
	}
}

// A switch to an MCP server that finds nothing (or only documents already
// obtained) goes on to the web after it, as for a server that fails: the
// MCP server does not close the web to a run, and the step says why it
// went on.
func TestMCPSourceWithNothingGoesOnToTheWeb(t *testing.T) {
	for _, c := range []struct {
		name string
		kb   []Document
	}{
		{"nothing found", nil},
		{"only documents already obtained", []Document{doc("local:wiki", "w1", "Billing", "The billing pipeline runs nightly.")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, kb := mcpHarness(t, sources.KindMCP)
			kb.answers["heron"] = c.kb
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: heron"},
				{text: "Final Answer: x [1]\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(false, "the corpus says nothing about Heron")}
			if c.kb != nil {
				// The wiki's document is obtained at step 1; step 2's MCP
				// search brings it back and nothing else.
				h.local.answers["billing"] = []Document{doc("local:wiki", "w1", "Billing", "The billing pipeline runs nightly.")}
				h.llm.steps = append([]reply{{text: "Thought: t\nAction: Search_Engine\nAction Input: billing"}}, h.llm.steps...)
				h.llm.judges = append([]reply{judgeJSON(true, "fine")}, h.llm.judges...)
			}
			if _, err := h.run(t, "Who leads Project Heron?", func(s *Settings) { s.Web = WebAuto }); err != nil {
				t.Fatal(err)
			}
			if len(kb.queries) != 1 || len(h.web.queries) != 1 {
				t.Fatalf("MCP queries %q, web queries %q: want the MCP server, then the web", kb.queries, h.web.queries)
			}
			obs := payloads[Observation](h.rec)
			last := obs[len(obs)-1]
			if last.Source != "web:duckduckgo" || !strings.Contains(last.Note, "mcp:kb") {
				t.Errorf("observation %+v: want the web's documents, with a note on mcp:kb", last)
			}
		})
	}
}
