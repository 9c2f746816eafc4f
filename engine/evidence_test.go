package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEvidenceEventQuotesCitedSentences: the evidence payload of an answer
// quotes the sentence of the cited document that supports each claim (not
// the whole document), marks a claim whose cited document says nothing
// about it, and the quotes, document text, are sanitized.
func TestEvidenceEventQuotesCitedSentences(t *testing.T) {
	docs := []Document{
		{ID: "a", Title: "Velloran Institute", Text: "The Velloran Institute was founded in 1887 by Ada Marsh. \x1b[31mIts library holds forty thousand maps.\x1b[0m The weather in spring is mild."},
		{ID: "b", Title: "Harbour", Text: "The harbour freezes in winter and ships wait outside."},
	}
	answer := "The Velloran Institute was founded in 1887 [1]. Its library holds forty thousand maps [1]. Its director won a Nobel prize [2]."
	ev := sanitize(Event{Payload: answerEvidence(answer, Citations(answer), docs)})
	p := ev.Payload.(Evidence)
	if len(p.Claims) != 3 {
		t.Fatalf("claims = %+v", p.Claims)
	}
	for i, c := range p.Claims[:2] {
		if c.Verdict != "supported" || len(c.Support) == 0 {
			t.Fatalf("claim %d = %+v", i, c)
		}
		q := c.Support[0]
		if q.N != 1 || strings.Contains(q.Quote, "\x1b") || strings.Contains(q.Quote, "weather") {
			t.Errorf("claim %d quote = %+v", i, q)
		}
	}
	if p.Claims[0].Support[0].Quote == p.Claims[1].Support[0].Quote {
		t.Errorf("both claims quote %q", p.Claims[0].Support[0].Quote)
	}
	if c := p.Claims[2]; c.Verdict != "unsupported" || len(c.Support) != 0 {
		t.Errorf("third claim = %+v", c)
	}
	b, err := json.Marshal(Event{Payload: Evidence{}})
	if err != nil || !strings.Contains(string(b), `"claims":[]`) || strings.Contains(string(b), `"step"`) {
		t.Errorf("empty evidence = %s (%v)", b, err)
	}
	if got := wireNormal(t, p); len(got.(Evidence).Claims) != 3 {
		t.Errorf("round trip = %+v", got)
	}
}
