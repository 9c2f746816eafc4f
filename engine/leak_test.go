package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/distinct"
)

// The never-leave corpus "notes" is not searched in these runs (the
// harness searches wiki, then the web): what it holds can reach a query
// only by another path — the user's question, a rewrite, the model.
const leakSecret = "hunter2-ZEBRA"

func notesSet() *distinct.Set {
	b := distinct.NewBuilder()
	b.Add("vault.txt", "Vault access. The vault password is "+leakSecret+"; only Ada and the facilities manager hold it.")
	return b.Set()
}

// leakRun runs one step whose query is query: wiki is searched, the judge
// wants more, the web would be next.
func leakRun(t *testing.T, query string, mod func(*Request)) (*harness, Result) {
	t.Helper()
	h := newHarness(t)
	h.local.answers[""] = []Document{doc("local:wiki", "w1", "Wiki", "nothing useful")}
	h.web.answers[""] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: " + query},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "wiki lacks it")}
	s := DefaultSettings()
	s.Model, s.Web, s.NeverLeave = "script", WebAuto, []string{"notes"}
	req := Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit,
		Distinctive: func(ctx context.Context, corpus string) (Distinctive, error) {
			if corpus != "notes" {
				t.Errorf("asked for the distinctive strings of %q", corpus)
			}
			return notesSet(), nil
		}}
	if mod != nil {
		mod(&req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := h.eng.Run(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return h, res
}

// A query carrying a distinctive string of a never-leave corpus is held
// back headless under web policy auto, with a note that names the corpus
// and the kind of string but never the string; a query of ordinary words
// that also occur in the corpus goes out.
func TestLeakHeldByContent(t *testing.T) {
	for _, tt := range []struct {
		query string
		held  bool
		kind  string
	}{
		{"who else knows " + leakSecret, true, "an identifier"},
		{"who else knows hunter2", true, "an identifier"},
		{"vault password policy of the facilities manager", false, ""},
		{"who discovered pH", false, ""},
	} {
		h, _ := leakRun(t, tt.query, nil)
		if held := len(h.web.queries) == 0; held != tt.held {
			t.Errorf("%q: web queries %q, want held %v", tt.query, h.web.queries, tt.held)
			continue
		}
		if !tt.held {
			continue
		}
		obs := payloads[Observation](h.rec)
		want := `the web was not searched: the query carries ` + tt.kind + ` from never-leave corpus "notes", and there is no one to ask for consent`
		if len(obs) == 0 || obs[0].Note != want {
			t.Errorf("%q: observation note %q, want %q", tt.query, obs[0].Note, want)
		}
		for _, o := range obs {
			if strings.Contains(strings.ToLower(o.Note), "hunter2") {
				t.Errorf("a note quotes the secret: %q", o.Note)
			}
		}
	}
}

// In the app the held query is put to the user under every policy, auto
// included, with the string it carries; "allow for the run" does not let
// a later query carrying one go unasked.
func TestLeakAsksConsent(t *testing.T) {
	var asked []ConsentRequest
	consent := func(answer Consent) func(*Request) {
		return func(r *Request) {
			r.Consent = func(ctx context.Context, cr ConsentRequest) (Consent, error) {
				asked = append(asked, cr)
				return answer, nil
			}
		}
	}
	h, _ := leakRun(t, "who else knows "+leakSecret, consent(ConsentDeny))
	if len(asked) != 1 || asked[0].Guarded != "notes" || asked[0].Carries != leakSecret || asked[0].CarriesKind != "an identifier" {
		t.Fatalf("consent requests %+v", asked)
	}
	if len(h.web.queries) != 0 {
		t.Errorf("a denied query went to the web: %q", h.web.queries)
	}

	asked = nil
	h = newHarness(t)
	h.local.answers[""] = []Document{doc("local:wiki", "w1", "Wiki", "nothing useful")}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: ordinary words"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: who knows " + leakSecret},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "no"), judgeJSON(false, "no")}
	s := DefaultSettings()
	s.Model, s.Web, s.NeverLeave = "script", WebAsk, []string{"notes"}
	answers := []Consent{ConsentSession, ConsentDeny}
	_, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit,
		Distinctive: func(context.Context, string) (Distinctive, error) { return notesSet(), nil },
		Consent: func(ctx context.Context, cr ConsentRequest) (Consent, error) {
			asked = append(asked, cr)
			a := answers[0]
			answers = answers[1:]
			return a, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[1].Carries != leakSecret || strings.Join(h.web.queries, "|") != "ordinary words" {
		t.Errorf("after allow-for-run: asked %d time(s), web queries %q; want the secret's query asked about and held", len(asked), h.web.queries)
	}
}

// A never-leave corpus that cannot be read holds every query that would
// leave: nothing goes unchecked.
func TestLeakUnreadableCorpusHolds(t *testing.T) {
	h, _ := leakRun(t, "who discovered pH", func(r *Request) {
		r.Distinctive = func(context.Context, string) (Distinctive, error) { return nil, errors.New("corpus busy") }
	})
	obs := payloads[Observation](h.rec)
	if len(h.web.queries) != 0 || !strings.Contains(obs[0].Note, `never-leave corpus "notes" could not be read to check the query (corpus busy)`) {
		t.Errorf("web queries %q, note %q", h.web.queries, obs[0].Note)
	}
}

// Every strategy, every path to the web — the step's switch, the
// reflection's supplement, the single-shot baselines, the gate's queries,
// a --web-only run's first search — passes the check: with a never-leave
// corpus whose strings every query carries, no query reaches the web.
func TestLeakEveryPathIsChecked(t *testing.T) {
	every := func(context.Context, string) (Distinctive, error) { return matchAll{}, nil }
	for _, name := range StrategyNames() {
		for _, webOnly := range []bool{false, true} {
			h := newHarness(t)
			web := &memSource{name: "web:duckduckgo", kind: sources.KindWeb, answers: map[string][]Document{"": {{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}}}
			srcs := []Source{h.local, web}
			if webOnly {
				srcs = []Source{web}
			}
			eng, err := New(Config{LLM: &loopLLM{}, Sources: srcs})
			if err != nil {
				t.Fatal(err)
			}
			h.local.answers[""] = []Document{doc("local:wiki", "w1", "Wiki", "nothing")}
			s := DefaultSettings()
			s.Model, s.Strategy, s.Web, s.NeverLeave, s.WebOnly = "script", name, WebAuto, []string{"notes"}, webOnly
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err = eng.Run(ctx, Request{SessionID: "s", Question: "Q " + leakSecret + "?", Settings: s, Emit: func(Event) {}, Distinctive: every})
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(web.queries) != 0 {
				t.Errorf("strategy %s (web-only %v): %d query(ies) reached the web: %q", name, webOnly, len(web.queries), web.queries)
			}
		}
	}
}

// matchAll finds a distinctive string in every text.
type matchAll struct{}

func (matchAll) Find(text string) (distinct.Match, bool) {
	return distinct.Match{Kind: distinct.Words, Text: text}, true
}

// loopLLM answers any call of any strategy: two searches carrying the
// secret, a weak answer (so the reflection supplements), then a final one;
// a judge that always wants more; a gate that always retrieves.
type loopLLM struct {
	mu    sync.Mutex
	steps int
}

func (l *loopLLM) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	text := "Final Answer: x\nSelf-Evaluation: CORRECT"
	switch req.Purpose {
	case llm.PurposeStep:
		l.steps++
		switch {
		case l.steps <= 2:
			text = "Thought: t\nAction: Search_Engine\nAction Input: who knows " + leakSecret
		case l.steps == 3:
			text = "Final Answer: x\nSelf-Evaluation: PARTIALLY CORRECT\nExplanation: e\nImprovement Suggestions: s"
		}
	case llm.PurposeJudge:
		text = "who knows " + leakSecret
		if req.Schema != nil {
			text = `{"analysis":"more","status":false,"retrieve":true,"query":"who knows ` + leakSecret + `"}`
		}
	}
	if onToken != nil {
		onToken(text)
	}
	return llm.Response{Text: text}, nil
}

// A follow-up whose earlier answer quoted the secret (its passage no
// longer in the context: the thread carries no documents) and whose
// rewrite and query repeat it: held for what the query carries.
func TestLeakFromAnEarlierAnswer(t *testing.T) {
	h := newHarness(t)
	h.local.answers[""] = []Document{doc("local:wiki", "w1", "Wiki", "nothing useful")}
	h.web.answers[""] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	h.llm.steps = []reply{
		{text: "Standalone question: who else uses the password " + leakSecret + "?"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: who uses " + leakSecret},
		{text: "Final Answer: nobody\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "wiki lacks it")}
	th := &Thread{Turn: 2, LastSeq: 9, Turns: []PriorTurn{{Question: "what is the vault password?", Answer: "It is " + leakSecret + "."}},
		Privacy: &Privacy{Web: WebAuto, NeverLeave: []string{"notes"}}}
	s := DefaultSettings()
	s.Model, s.Web = "script", WebAuto
	_, err := h.eng.Run(context.Background(), Request{SessionID: "s1", Question: "who else uses it?", Settings: s, Emit: h.rec.emit, Thread: th,
		Distinctive: func(context.Context, string) (Distinctive, error) { return notesSet(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.web.queries) != 0 {
		t.Fatalf("the follow-up sent %q, repeating an earlier answer's never-leave string", h.web.queries)
	}
	if obs := payloads[Observation](h.rec); len(obs) == 0 || !strings.Contains(obs[0].Note, `carries an identifier from never-leave corpus "notes"`) {
		t.Errorf("observations %+v", obs)
	}
}

// A local MCP server named never-leave (mcp:NAME) holds back a query
// from a context holding its passages, as a corpus does.
func TestLeakNeverLeaveMCPContext(t *testing.T) {
	memory := &memSource{name: "mcp:memory", kind: sources.KindMCP, answers: map[string][]Document{"": {doc("mcp:memory", "m1", "Ada", "Ada holds the vault key")}}}
	h := newHarness(t, memory)
	h.local.answers[""] = nil
	h.web.answers[""] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	h.llm.steps = []reply{
		{text: "Thought: t\nAction: Search_Memory\nAction Input: vault key"},
		{text: "Thought: t\nAction: Search_Web\nAction Input: who else holds it"},
		{text: "Final Answer: Ada\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "wiki lacks it"), judgeJSON(false, "more")}
	s := DefaultSettings()
	s.Model, s.Web, s.NeverLeave = "script", WebAuto, []string{"mcp:memory"}
	if _, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit}); err != nil {
		t.Fatal(err)
	}
	if len(h.web.queries) != 0 {
		t.Errorf("web queries %q from a context holding never-leave mcp:memory's passages", h.web.queries)
	}
	if len(memory.queries) != 1 || !strings.Contains(payloads[Observation](h.rec)[1].Note, `the context holds passages of "mcp:memory", marked never-leave`) {
		t.Errorf("memory searched %q; observations %+v", memory.queries, payloads[Observation](h.rec))
	}
}

// A never-leave corpus that is a remote index is searched like any
// corpus: a query to it is not held for its own strings, while the same
// query to the web is.
func TestLeakOwnRemoteIndexNotHeld(t *testing.T) {
	kb := &memSource{name: "local:kb", kind: sources.KindRemote, answers: map[string][]Document{"": {doc("local:kb", "k1", "KB", "nothing")}}}
	web := &memSource{name: "web:duckduckgo", kind: sources.KindWeb, answers: map[string][]Document{"": {{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}}}
	llm := &scriptLLM{t: t, steps: []reply{
		{text: "Thought: t\nAction: Search_Engine\nAction Input: who knows " + leakSecret},
		{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
	}, judges: []reply{judgeJSON(false, "kb lacks it")}}
	eng, err := New(Config{LLM: llm, Sources: []Source{kb, web}})
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Model, s.Web, s.NeverLeave = "script", WebAuto, []string{"kb"}
	_, err = eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: func(Event) {},
		Distinctive: func(context.Context, string) (Distinctive, error) { return notesSet(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(kb.queries) != 1 || len(web.queries) != 0 {
		t.Errorf("kb got %q, the web %q; want kb searched and the web held", kb.queries, web.queries)
	}
}
