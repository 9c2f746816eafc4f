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
