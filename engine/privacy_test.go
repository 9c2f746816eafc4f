package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A follow-up keeps the strictest privacy of its thread's earlier turns;
// only a setting given on the turn itself loosens it, and the result says
// what was kept and what was loosened.
func TestApplyThreadPrivacy(t *testing.T) {
	strict := &Privacy{Web: WebNever, NeverLeave: []string{"notes"}}
	tests := []struct {
		name     string
		own      Settings
		prior    *Privacy
		explicit []string
		want     Privacy
	}{
		{"no thread", Settings{Web: WebAuto}, nil, nil, Privacy{Web: WebAuto}},
		{"kept", Settings{Web: WebAuto}, strict, nil,
			Privacy{Web: WebNever, NeverLeave: []string{"notes"}, Kept: []string{PrivacyWeb, PrivacyNeverLeave}}},
		{"tightened by the turn", Settings{Web: WebNever, NeverLeave: []string{"hr"}}, &Privacy{Web: WebAsk, NeverLeave: []string{"notes"}}, nil,
			Privacy{Web: WebNever, NeverLeave: []string{"hr", "notes"}, Kept: []string{PrivacyNeverLeave}}},
		{"ask is stricter than auto", Settings{Web: WebAuto}, &Privacy{Web: WebAsk}, nil,
			Privacy{Web: WebAsk, Kept: []string{PrivacyWeb}}},
		{"web loosened explicitly", Settings{Web: WebAuto}, strict, []string{PrivacyWeb},
			Privacy{Web: WebAuto, NeverLeave: []string{"notes"}, Kept: []string{PrivacyNeverLeave}, Loosened: []string{PrivacyWeb}}},
		{"never-leave loosened explicitly", Settings{Web: WebNever, NeverLeave: []string{""}}, strict, []string{PrivacyNeverLeave},
			Privacy{Web: WebNever, Loosened: []string{PrivacyNeverLeave}}},
		{"explicit but not looser", Settings{Web: WebNever}, strict, []string{PrivacyWeb},
			Privacy{Web: WebNever, NeverLeave: []string{"notes"}, Kept: []string{PrivacyNeverLeave}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.own
			var th *Thread
			if tt.prior != nil {
				th = &Thread{Privacy: tt.prior}
			}
			got := applyThreadPrivacy(&s, th, tt.explicit)
			if got.Describe() != tt.want.Describe() || got.Web != tt.want.Web || strings.Join(got.NeverLeave, ",") != strings.Join(tt.want.NeverLeave, ",") {
				t.Fatalf("privacy %+v, want %+v", got, tt.want)
			}
			if th != nil && (s.Web != got.Web || strings.Join(s.NeverLeave, ",") != strings.Join(got.NeverLeave, ",")) {
				t.Errorf("settings %q %q not made the privacy %+v", s.Web, s.NeverLeave, got)
			}
		})
	}
}

// ThreadFrom reads the thread's privacy from the session event (its
// privacy, or for older sessions its config) and every rewrite event: the
// strictest of them.
func TestThreadFromPrivacy(t *testing.T) {
	evs := []Event{
		{Seq: 1, Payload: SessionStart{Question: "Q", Config: &RunConfig{Settings: Settings{Web: WebAuto, NeverLeave: []string{"notes"}}}}},
		{Seq: 2, Payload: Final{Answer: "A"}},
		{Seq: 3, Turn: 2, Payload: Rewrite{Original: "f", Rewritten: "F", Privacy: &Privacy{Web: WebNever, NeverLeave: []string{"notes"}}}},
		{Seq: 4, Turn: 2, Payload: Final{Answer: "B"}},
		{Seq: 5, Turn: 3, Payload: Rewrite{Original: "g", Rewritten: "G", Privacy: &Privacy{Web: WebAuto, Loosened: []string{PrivacyWeb}}}},
		{Seq: 6, Turn: 3, Payload: Final{Answer: "C"}},
	}
	th := ThreadFrom(evs)
	if th.Privacy == nil || th.Privacy.Web != WebNever || strings.Join(th.Privacy.NeverLeave, ",") != "notes" {
		t.Fatalf("thread privacy %+v, want web never and never-leave notes", th.Privacy)
	}
}

// In a follow-up that kept a never-leave corpus, the passages carried
// from the earlier turn hold every web query back (the step's and the
// reflection's, both built from the rewritten question), and the rewrite
// event records the privacy that applied.
func TestFollowUpKeepsNeverLeave(t *testing.T) {
	h := newHarness(t)
	h.local.answers["secret"] = []Document{doc("local:wiki", "n1", "Vault", "the password is zebra")}
	h.web.answers["secret"] = []Document{{ID: "u", Title: "W", Text: "web", Source: "web:duckduckgo"}}
	h.llm.steps = []reply{
		{text: "Standalone question: who knows the secret zebra?"},
		{text: "Thought: t\nAction: Search_Engine\nAction Input: secret zebra"},
		{text: "Final Answer: x\nSelf-Evaluation: INCORRECT"},
		{text: "Final Answer: y\nSelf-Evaluation: CORRECT"},
	}
	h.llm.judges = []reply{judgeJSON(false, "local lacks it")}
	th := &Thread{Turn: 2, LastSeq: 9, Turns: []PriorTurn{{Question: "password?", Answer: "zebra [1]"}},
		Docs: []Document{doc("local:wiki", "n1", "Vault", "the password is zebra")}, Privacy: &Privacy{Web: WebAuto, NeverLeave: []string{"wiki"}}}
	s := DefaultSettings()
	s.Model = "script"
	if _, err := h.eng.Run(context.Background(), Request{SessionID: "s1", Question: "who else?", Settings: s, Emit: h.rec.emit, Thread: th}); err != nil {
		t.Fatal(err)
	}
	if len(h.web.queries) != 0 {
		t.Fatalf("the follow-up sent web queries %q from a context holding never-leave passages", h.web.queries)
	}
	rw, _ := of[Rewrite](h.rec)[0].Payload.(Rewrite)
	if rw.Privacy == nil || strings.Join(rw.Privacy.NeverLeave, ",") != "wiki" || strings.Join(rw.Privacy.Kept, ",") != PrivacyNeverLeave {
		t.Errorf("rewrite privacy %+v", rw.Privacy)
	}
}

// Consent: a query the user declined is not put to them again in the same
// run, and "deny for the rest of this run" stops the questions altogether.
func TestConsentDeniedIsNotAskedAgain(t *testing.T) {
	for _, tt := range []struct {
		name      string
		answer    Consent
		wantAsked int
	}{
		{"deny this query", ConsentDeny, 2},     // "a" once, then "b"; "a" again is not asked
		{"deny for the run", ConsentDenyRun, 1}, // asked once
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			for _, q := range []string{"a", "b"} {
				h.local.answers[q] = []Document{doc("local:wiki", q+"1", "A", "alpha "+q)}
				h.web.answers[q] = []Document{{ID: "u" + q, Title: "W", Text: "web", Source: "web:duckduckgo"}}
			}
			h.llm.steps = []reply{
				{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
				{text: "Thought: t\nAction: Search_Engine\nAction Input: a"},
				{text: "Thought: t\nAction: Search_Engine\nAction Input: b"},
				{text: "Final Answer: x\nSelf-Evaluation: CORRECT"},
			}
			h.llm.judges = []reply{judgeJSON(false, "no"), judgeJSON(false, "no"), judgeJSON(false, "no")}
			asked := 0
			consent := func(ctx context.Context, r ConsentRequest) (Consent, error) {
				asked++
				return tt.answer, nil
			}
			s := DefaultSettings()
			s.Web = WebAsk
			res, err := h.eng.Run(context.Background(), Request{SessionID: "s", Question: "Q?", Settings: s, Emit: h.rec.emit, Consent: consent})
			if err != nil {
				t.Fatal(err)
			}
			if asked != tt.wantAsked || res.Counts.WebRetrievals != 0 {
				t.Errorf("asked %d times (want %d), web retrievals %d", asked, tt.wantAsked, res.Counts.WebRetrievals)
			}
			if note := payloads[Observation](h.rec)[1].Note; !strings.Contains(note, "declined") {
				t.Errorf("second observation note %q", note)
			}
		})
	}
}

// The privacy of the session and rewrite events is written as
// `privacy: {web, never_leave, kept, loosened}` and read back the same.
func TestPrivacyEventRoundTrip(t *testing.T) {
	p := &Privacy{Web: WebNever, NeverLeave: []string{"notes"}, Kept: []string{PrivacyNeverLeave}, Loosened: []string{PrivacyWeb}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, ev := range []Event{
		{Session: "s", Seq: 1, Time: at, Payload: SessionStart{Question: "Q", Privacy: p}},
		{Session: "s", Seq: 2, Time: at, Turn: 2, Payload: Rewrite{Original: "o", Rewritten: "r", Privacy: p}},
	} {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"privacy":{"web":"never","never_leave":["notes"],"kept":["never_leave"],"loosened":["web"]}`) {
			t.Errorf("%s written as %s", ev.Type(), b)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		var got *Privacy
		switch pl := back.Payload.(type) {
		case SessionStart:
			got = pl.Privacy
		case Rewrite:
			got = pl.Privacy
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s read back as %+v", ev.Type(), got)
		}
	}
}
