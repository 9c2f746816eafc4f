package cli

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// TestConsentQuestion: the terminal's question shows the query and where
// it goes, why (the judge's reason, a reflection, a never-leave hold with
// the string the query carries), the answers, and no escape sequence.
func TestConsentQuestion(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  engine.ConsentRequest
		want []string
	}{
		{"judge", engine.ConsentRequest{Query: "Olsen \x1b[2Jbotanist", Source: "web:duckduckgo", Analysis: "nothing about the ecologist"},
			[]string{"Send this query to web:duckduckgo?", "“Olsen botanist”", "why: nothing about the ecologist", "[y]es · [a]ll web queries of this run · [N]o"}},
		{"reflection", engine.ConsentRequest{Query: "Q?", Source: "web:searxng", Reflection: true, Analysis: "no judge decision"},
			[]string{"the answer was judged weak"}},
		{"never-leave", engine.ConsentRequest{Query: "ACME-7731 price", Source: "web:duckduckgo", Guarded: "notes", Hold: "the query carries an identifier of never-leave corpus notes",
			Carries: "ACME-7731", CarriesKind: "an identifier", Analysis: "need prices (the query carries an identifier of never-leave corpus notes)"},
			[]string{"careful: it carries “ACME-7731”, an identifier found in never-leave corpus notes", "why: need prices"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := consentQuestion(tc.req)
			for _, w := range tc.want {
				if !strings.Contains(q, w) {
					t.Errorf("question lacks %q:\n%s", w, q)
				}
			}
			if strings.Contains(q, "\x1b") {
				t.Errorf("question holds an escape: %q", q)
			}
		})
	}
}
