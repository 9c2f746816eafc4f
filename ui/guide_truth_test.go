package ui

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/guide"
)

// guidePage is the in-app guide's page name, its lines joined into one
// (the pages wrap their sentences).
func guidePage(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(guide.FS(), name)
	if err != nil {
		t.Fatalf("no guide page %s: %v", name, err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// TestGuideTellsTheExportDialogsTruth: what the guide says of the export
// dialog is what the dialog does — the path it proposes is in the exports
// folder (not the working directory) and named as the guide says, every
// format it offers is in the guide's table, and the guide quotes the line
// it shows once the file is written.
func TestGuideTellsTheExportDialogsTruth(t *testing.T) {
	page := guidePage(t, "sessions.md")
	sh := newShared(context.Background(), Deps{Sessions: newFakeSessions()}, Options{ExportDir: filepath.FromSlash("/data/prefrag/exports"), WorkDir: filepath.FromSlash("/work/notes")})
	one := newExportDialog(sh, []string{"0123456789abcdef"})
	if got, want := one.defaultPath(), filepath.FromSlash("/data/prefrag/exports/prefrag-01234567.md"); got != want {
		t.Fatalf("proposed path %q, want %q", got, want)
	}
	several := newExportDialog(sh, []string{"0123456789abcdef", "fedcba9876543210"})
	several.format = len(several.formats) - 1 // html
	if got, want := several.defaultPath(), filepath.FromSlash("/data/prefrag/exports/prefrag-2-sessions")+string(filepath.Separator); several.formats[several.format].Name != "html" || got != want {
		t.Fatalf("proposed path for several as HTML %q, want %q", got, want)
	}
	for _, want := range []string{
		"`$PREFRAG_HOME/exports/`", "never the current directory", "`prefrag-<id>.<format>`", "`.pairs.jsonl` for pairs",
		"`prefrag-<n>-sessions.<format>` for several", "the folder `prefrag-<n>-sessions/`", "`✓ Written to PATH`",
		"confirm with `y`",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("sessions.md does not say %s", want)
		}
	}
	if strings.Contains(page, "in the current directory)") {
		t.Error("sessions.md still says the dialog proposes the current directory")
	}
	for _, f := range one.formats {
		if !strings.Contains(page, "| `"+f.Name+"` |") {
			t.Errorf("sessions.md's format table lacks %s, which the dialog offers", f.Name)
		}
	}
	if !strings.Contains(guidePage(t, "getting-started.md"), "`$PREFRAG_HOME/exports/`") {
		t.Error("getting-started.md does not say where exports go")
	}
}

// TestGuideTellsTheConsentDialogsTruth: the guide names the consent
// dialog's four choices as the dialog labels them, with their keys, and
// says what each does in the engine's terms (a run, not a session).
func TestGuideTellsTheConsentDialogsTruth(t *testing.T) {
	page := guidePage(t, "web-policy.md")
	keys := guidePage(t, "keys.md")
	k := newConsentKeys()
	for _, c := range consentChoices {
		if !strings.Contains(page, "**"+c.label+"**") {
			t.Errorf("web-policy.md does not name the button %q", c.label)
		}
	}
	for _, b := range k.bindings() {
		h := b.Help()
		if !strings.Contains(keys, "| `"+h.Key+"` | "+h.Desc) {
			t.Errorf("keys.md lacks | `%s` | %s", h.Key, h.Desc)
		}
	}
	for _, want := range []string{"(`x`)", "never-leave corpus", "a follow-up is a new run"} {
		if !strings.Contains(page, want) {
			t.Errorf("web-policy.md's consent dialog does not say %q", want)
		}
	}
	for _, wrong := range []string{"Allow for this session", "allow for session", "every web search of this question."} {
		if strings.Contains(page, wrong) || strings.Contains(keys, wrong) {
			t.Errorf("the guide still says %q", wrong)
		}
	}
}
