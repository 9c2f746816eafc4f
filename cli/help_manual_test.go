package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpPointsToTheManual: every command with a help text names a page of
// the manual, and every page named exists (with its section, when one is
// named).
func TestHelpPointsToTheManual(t *testing.T) {
	for name := range helpTexts {
		if manualPage(name) == "" {
			t.Errorf("help of %q names no page of the manual (add it to manualPages)", name)
		}
	}
	for name, page := range manualPages {
		file, section, _ := strings.Cut(page, "#")
		raw, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if section != "" && !strings.Contains(strings.ToLower(string(raw)), "## "+strings.ReplaceAll(section, "-", " ")) {
			t.Errorf("%q: %s has no section %q", name, file, section)
		}
	}
	if got := manualPage("sessions export"); got != manualPages["sessions"] {
		t.Errorf("sessions export: %q, want the sessions page", got)
	}
}

// The page `sessions rerun --help` names is the section that describes
// the re-run, its flags included.
func TestRerunHelpNamesItsSection(t *testing.T) {
	file, section, _ := strings.Cut(manualPage("sessions rerun"), "#")
	raw, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ToLower(string(raw))
	head := "## " + strings.ReplaceAll(section, "-", " ")
	i := strings.Index(text, head)
	if section == "" || i < 0 {
		t.Fatalf("%s: no section %q", file, section)
	}
	body := text[i+len(head):]
	if j := strings.Index(body, "\n## "); j >= 0 {
		body = body[:j]
	}
	for _, want := range []string{"sessions rerun", "--offline", "--web", "web_chosen", "--llm-url", "--model"} {
		if !strings.Contains(body, want) {
			t.Errorf("%s#%s does not describe %s", file, section, want)
		}
	}
}
