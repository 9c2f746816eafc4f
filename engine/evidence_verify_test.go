package engine

import (
	"cmp"
	"strings"
	"testing"
)

// TestEvidenceVerifyClaimsSilentReply: a claim check whose reply gives no
// usable verdict (empty, not JSON, no claims, only unknown claim numbers),
// or judges only some of the claims asked about, is said in a warning,
// never passed over in silence; a reply judging every claim warns of
// nothing.
func TestEvidenceVerifyClaimsSilentReply(t *testing.T) {
	const twoClaims = "The Velloran Institute was founded in 1887 [1]. Ada Marsh founded the Velloran Institute [1]."
	for _, tc := range []struct {
		name, reply string
		warn        bool
		// answer is the final answer when not the one-claim default.
		answer string
	}{
		{"empty", "", true, ""},
		{"not JSON", "I think they are fine.", true, ""},
		{"empty object", "{}", true, ""},
		{"no claims", `{"claims": []}`, true, ""},
		{"unknown claim numbers", `{"claims": [{"claim": 7, "supported": false, "analysis": "?"}]}`, true, ""},
		{"usable", `{"claims": [{"claim": 1, "supported": true, "analysis": "The quote gives 1887."}]}`, false, ""},
		{"one of two claims judged", `{"claims": [{"claim": 1, "supported": true, "analysis": "The quote gives 1887."}]}`, true, twoClaims},
		{"both claims judged", `{"claims": [{"claim": 1, "supported": true}, {"claim": 2, "supported": true}]}`, false, twoClaims},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.local.answers["Velloran"] = []Document{doc("local:wiki", "d1", "Velloran Institute", "The Velloran Institute was founded in 1887 by Ada Marsh.")}
			h.llm.steps = []reply{
				{text: "Thought: I should look it up.\nAction: Search_Engine\nAction Input: Velloran Institute founded"},
				{text: "Thought: I now know the final answer to the original question\nFinal Answer: " + cmp.Or(tc.answer, "The Velloran Institute was founded in 1887 [1].") + "\nSelf-Evaluation: CORRECT\nExplanation: [1] says so.\nImprovement Suggestions: None"},
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
			if tc.warn && tc.answer == twoClaims && !strings.Contains(strings.Join(warned, " "), "judged 1 of the 2 claims asked about; for claim 2 ") {
				t.Errorf("the warning does not name the claim left unjudged: %v", warned)
			}
			if !tc.warn && len(warned) > 0 {
				t.Errorf("usable reply warned: %v", warned)
			}
		})
	}
}
