package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
)

// `corpora add` refuses what it cannot store safely or use, in one sentence
// with exit 2, and registers the rest (unreachable clusters too, with a
// warning).
func TestCorporaAddUsage(t *testing.T) {
	configWorld(t, "")
	es := fakeelastic.New(t, fakeelastic.Options{Index: "docs", Docs: []fakeelastic.Doc{{ID: "a", Title: "t", Text: "x"}}})
	t.Setenv("KB_SECRET", "value-never-printed")
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no engine", []string{"corpora", "add", "kb", "--index", "docs"}, ExitUsage, "--elasticsearch URL or --manticore"},
		{"both engines", []string{"corpora", "add", "kb", "--elasticsearch", es.URL(), "--manticore", "127.0.0.1:9306", "--index", "docs"}, ExitUsage, "one of"},
		{"no index", []string{"corpora", "add", "kb", "--elasticsearch", es.URL()}, ExitUsage, "--index"},
		{"bad name", []string{"corpora", "add", "../kb", "--elasticsearch", es.URL(), "--index", "docs"}, ExitUsage, "invalid corpus name"},
		{"password in url", []string{"corpora", "add", "kb", "--elasticsearch", "http://u:value-never-printed@127.0.0.1:9", "--index", "docs"}, ExitUsage, "user name or password"},
		{"value for a name", []string{"corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "docs", "--api-key-env", "value-never-printed"}, ExitUsage, "NAME of an environment variable"},
		{"ok", []string{"corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "docs", "--api-key-env", "KB_SECRET"}, ExitOK, "registered remote corpus kb"},
		{"flags first", []string{"corpora", "--index", "docs", "add", "kb3", "--elasticsearch", es.URL()}, ExitOK, "1 documents"},
		{"exists", []string{"corpora", "add", "kb", "--elasticsearch", es.URL(), "--index", "docs"}, ExitUsage, "already exists"},
		{"unreachable still registered", []string{"corpora", "add", "kb2", "--elasticsearch", "http://127.0.0.1:1", "--index", "docs", "--timeout", "2s"}, ExitOK, "cannot be searched now"},
		{"manticore unreachable still registered", []string{"corpora", "add", "mc", "--manticore", "127.0.0.1:1", "--index", "dist", "--timeout", "2s"}, ExitOK, "cannot be searched now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(tc.args, strings.NewReader(""), &out, &errb)
			all := out.String() + errb.String()
			if code != tc.code || !strings.Contains(all, tc.says) {
				t.Errorf("exit %d, want %d; output %q lacks %q", code, tc.code, all, tc.says)
			}
			if strings.Contains(all, "value-never-printed") {
				t.Errorf("secret printed: %q", all)
			}
		})
	}
}
