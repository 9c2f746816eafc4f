package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// webOnlyHarness is an engine with a web engine and no local corpus.
func webOnlyHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{
		llm: &scriptLLM{t: t},
		web: &memSource{name: "web:duckduckgo", kind: sources.KindWeb, answers: map[string][]Document{}},
		rec: &recorder{},
	}
	eng, err := New(Config{LLM: h.llm, Sources: []Source{h.web}, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	h.eng = eng
	return h
}

// notices are the non-fatal error events.
func (r *recorder) notices() []Notice {
	var out []Notice
	for _, e := range payloads[Notice](r) {
		if !e.Fatal {
			out = append(out, e)
		}
	}
	return out
}

// Without a local corpus, a run sends no web query unless the user opted
// in (WebOnly); "auto" is not consent. The notice right after the session
// event says what is searched and how to opt in; the reflection supplement
// is held to the same rule.
func TestNoCorpusNoWebWithoutOptIn(t *testing.T) {
	tests := []struct {
		name        string
		mod         func(*Settings)
		wantQueries int
		wantNotice  []string
		wantObsNote string
	}{
		{"auto without opt-in", func(s *Settings) { s.CorpusChoice = CorporaNonePinned }, 0,
			[]string{"no local corpus is searched", "none is pinned", "prefrag corpora pin NAME", "--web-only", "web_only = true"}, "--web-only"},
		{"no corpus at all", func(s *Settings) { s.CorpusChoice = CorporaNoneExist }, 0,
			[]string{"there is none yet", "prefrag index", "--web-only"}, "--web-only"},
		{"opted in", func(s *Settings) { s.WebOnly = true; s.CorpusChoice = CorporaNonePinned }, 2,
			[]string{"no local corpus is searched", "searching the web only (web:duckduckgo)"}, ""},
		{"opted in but policy never", func(s *Settings) { s.WebOnly = true; s.Web = WebNever }, 0,
			[]string{"web policy never", "nothing is searched"}, "never"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := webOnlyHarness(t)
			h.web.answers["secret"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: secret merger plan"},
				{text: "Final Answer: x\nSelf-Evaluation: INCORRECT"},
				{text: "Final Answer: y\nSelf-Evaluation: CORRECT"},
			}
			_, err := h.run(t, "What is our secret merger plan?", tt.mod)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(h.web.queries); got != tt.wantQueries {
				t.Errorf("web queries = %d (%v), want %d", got, h.web.queries, tt.wantQueries)
			}
			evs := h.rec.types()
			if len(evs) < 2 || evs[0] != EventSession || evs[1] != EventError {
				t.Fatalf("the notice must follow the session event: %v", evs)
			}
			n := h.rec.notices()
			if len(n) == 0 {
				t.Fatal("no notice")
			}
			for _, want := range tt.wantNotice {
				if !strings.Contains(n[0].Message, want) {
					t.Errorf("notice %q lacks %q", n[0].Message, want)
				}
			}
			obs := payloads[Observation](h.rec)
			if len(obs) == 0 || !strings.Contains(obs[0].Note, tt.wantObsNote) {
				t.Errorf("observation = %+v, want a note with %q", obs, tt.wantObsNote)
			}
			sup := payloads[Supplement](h.rec)
			if len(sup) != 1 {
				t.Fatalf("supplements = %d", len(sup))
			}
			if tt.wantQueries == 0 && sup[0].Note == "" {
				t.Error("the supplement must say why the web was not searched")
			}
		})
	}
}

// A run with a local corpus gets no such notice: its header names it.
func TestCorpusRunHasNoSourceNotice(t *testing.T) {
	h := newHarness(t)
	h.llm.steps = []reply{{text: "Final Answer: x\nSelf-Evaluation: CORRECT"}}
	if _, err := h.run(t, "Q?", nil); err != nil {
		t.Fatal(err)
	}
	if n := h.rec.notices(); len(n) != 0 {
		t.Errorf("unexpected notices %+v", n)
	}
}

// The reflection supplement sends the question verbatim with no judge
// decision (the paper), but obeys --web ask and never-leave corpora like any
// web query, and its searches are marked as the reflection's.
func TestReflectionSupplementObeysWebConsent(t *testing.T) {
	const q = "Who signed the confidential contract?"
	tests := []struct {
		name       string
		web        string
		neverLeave bool
		consent    Consent
		withAsk    bool
		wantWeb    int
		wantAsked  int
		wantNote   string
	}{
		{"ask headless acts as never", WebAsk, false, 0, false, 0, 0, "has no one to ask for consent"},
		{"ask denied", WebAsk, false, ConsentDeny, true, 0, 1, "declined"},
		{"ask allowed once", WebAsk, false, ConsentOnce, true, 1, 1, ""},
		{"never-leave headless", WebAuto, true, 0, false, 0, 0, "never-leave"},
		{"never-leave asked and allowed", WebAuto, true, ConsentOnce, true, 1, 1, ""},
		{"auto sends it (the paper)", WebAuto, false, 0, false, 1, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			// The first answer comes without any retrieval: the supplement's
			// own local search is what brings never-leave passages in.
			h.local.answers["contract"] = []Document{doc("local:wiki", "l1", "Contract", "Signed by Ms. Doe.")}
			h.web.answers["contract"] = []Document{{ID: "https://w/1", Title: "W", Text: "web", Source: "web:duckduckgo"}}
			h.llm.steps = []reply{
				{text: "Final Answer: unknown\nSelf-Evaluation: INCORRECT"},
				{text: "Final Answer: Ms. Doe\nSelf-Evaluation: CORRECT"},
			}
			var asks []ConsentRequest
			var consent ConsentFunc
			if tt.withAsk {
				consent = func(_ context.Context, r ConsentRequest) (Consent, error) {
					asks = append(asks, r)
					return tt.consent, nil
				}
			}
			s := DefaultSettings()
			s.Model = "script"
			s.Web = tt.web
			if tt.neverLeave {
				s.NeverLeave = []string{"wiki"}
			}
			if _, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: q, Settings: s, Emit: h.rec.emit, Consent: consent}); err != nil {
				t.Fatal(err)
			}
			if len(h.web.queries) != tt.wantWeb || len(asks) != tt.wantAsked {
				t.Errorf("web queries %v, consent asked %d; want %d and %d", h.web.queries, len(asks), tt.wantWeb, tt.wantAsked)
			}
			for _, a := range asks {
				if !a.Reflection || a.Query != q || a.Source != "web:duckduckgo" {
					t.Errorf("consent request = %+v, want the reflection's verbatim question", a)
				}
			}
			sup := payloads[Supplement](h.rec)
			if len(sup) != 1 || !strings.Contains(sup[0].Note, tt.wantNote) || (tt.wantNote == "" && sup[0].Note != "") {
				t.Errorf("supplement = %+v, want note %q", sup, tt.wantNote)
			}
			for _, r := range payloads[Retrieval](h.rec) {
				if !r.Reflection || r.Query != q {
					t.Errorf("retrieval %s not marked as the reflection's: %+v", r.Source, r)
				}
			}
		})
	}
}
