package engine

import (
	"strings"
	"testing"
)

// TestEvidenceVerifyClaimsSilentReply: a claim check whose reply gives no
// usable verdict (empty, not JSON, no claims, only unknown claim numbers)
// is said in a warning, never dropped in silence; a usable reply warns of
// nothing.
func TestEvidenceVerifyClaimsSilentReply(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		warn        bool
	}{
		{"empty", "", true},
		{"not JSON", "I think they are fine.", true},
		{"empty object", "{}", true},
		{"no claims", `{"claims": []}`, true},
		{"unknown claim numbers", `{"claims": [{"claim": 7, "supported": false, "analysis": "?"}]}`, true},
		{"usable", `{"claims": [{"claim": 1, "supported": true, "analysis": "The quote gives 1887."}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["Velloran"] = []Document{doc("local:wiki", "d1", "Velloran Institute", "The Velloran Institute was founded in 1887 by Ada Marsh.")}
			h.llm.steps = []reply{
				{text: "Thought: I should look it up.\nAction: Search_Engine\nAction Input: Velloran Institute founded"},
				{text: "Thought: I now know the final answer to the original question\nFinal Answer: The Velloran Institute was founded in 1887 [1].\nSelf-Evaluation: CORRECT\nExplanation: [1] says so.\nImprovement Suggestions: None"},
				{text: tc.reply},
			}
			h.llm.judges = []reply{judgeJSON(true, "gives the year")}
			if _, err := h.run(t, "When was the Velloran Institute founded?", func(s *Settings) { s.VerifyClaims = true }); err != nil {
				t.Fatal(err)
			}
			if len(h.llm.prompts(purposeVerify)) != 1 {
				t.Fatalf("claim check calls: %d", len(h.llm.prompts(purposeVerify)))
			}
			var warned []string
			for _, n := range payloads[Notice](h.rec) {
				if strings.Contains(n.Message, "claim check") {
					warned = append(warned, n.Message)
				}
			}
			if tc.warn && len(warned) == 0 {
				t.Errorf("reply %q: no warning; notices %+v", tc.reply, payloads[Notice](h.rec))
			}
			if !tc.warn && len(warned) > 0 {
				t.Errorf("usable reply warned: %v", warned)
			}
		})
	}
}
