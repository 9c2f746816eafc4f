package cli

import (
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// The terminal's question names what a held query carries and where it
// comes from, as the workspace's dialog does.
func TestConsentQuestionNamesTheCarriedString(t *testing.T) {
	for _, tt := range []struct {
		req  engine.ConsentRequest
		want string
	}{
		{engine.ConsentRequest{Query: "who knows hunter2-ZEBRA", Source: "web:duckduckgo", Guarded: "notes", Carries: "hunter2-ZEBRA", CarriesKind: "an identifier",
			Hold: `the query carries an identifier from never-leave corpus "notes"`},
			"careful: it carries “hunter2-ZEBRA”, an identifier found in never-leave corpus notes"},
		{engine.ConsentRequest{Query: "q", Source: "web:duckduckgo", Guarded: "notes", Hold: `the context holds passages of corpus "notes", marked never-leave`},
			"careful: the context holds passages of never-leave corpus notes"},
		{engine.ConsentRequest{Query: "q", Source: "web:duckduckgo", Guarded: "kb", Hold: `never-leave corpus "kb" could not be read to check the query (busy)`},
			`careful: never-leave corpus "kb" could not be read to check the query (busy)`},
	} {
		if got := consentQuestion(tt.req); !strings.Contains(got, tt.want) {
			t.Errorf("question:\n%s\nwant %q", got, tt.want)
		}
	}
}
