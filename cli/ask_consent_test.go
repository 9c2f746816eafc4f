package cli

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
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
		{"judge", engine.ConsentRequest{Query: "Olsen \x1b[2Jbotanist", Source: "web:duckduckgo", Kind: sources.KindWeb, Analysis: "nothing about the ecologist"},
			[]string{"Send this query to web:duckduckgo?", "“Olsen botanist”", "why: nothing about the ecologist", "[y]es · [a]ll web queries for the rest of this run · [N]o"}},
		// An answer for the run covers the kind of source asked about.
		{"mcp over the network", engine.ConsentRequest{Query: "heron lead", Source: "mcp:kb", Kind: sources.KindMCPRemote, Analysis: "the corpus says nothing"},
			[]string{"Send this query to mcp:kb?", "[a]ll queries to MCP servers over the network for the rest of this run"}},
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
