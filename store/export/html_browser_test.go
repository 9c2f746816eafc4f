package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/chromium"
)

// TestHTMLHostileInBrowser opens the hostile session's page in headless
// Chromium, offline, once: the DOM the browser built has no script,
// frame, handler or javascript: link, no script ran (the title is the
// page's), the hostile texts are there as text; a screenshot at laptop
// width in the light scheme and one at phone width in the dark scheme are
// not blank (and dark is dark); printed to PDF, the collapsed sections are
// expanded.
func TestHTMLHostileInBrowser(t *testing.T) {
	b := chromium.New(t)
	rec := storeHostile(t, openStore(t))
	file := filepath.Join(t.TempDir(), "hostile.html")
	if err := os.WriteFile(file, renderHTML(t, rec), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dom, err := b.DOM(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("dom", func(t *testing.T) {
		checkInert(t, dom)
		if strings.Contains(dom, "PWNED</title>") {
			t.Error("a script ran: it retitled the page")
		}
		text := textOf(t, dom)
		for _, want := range []string{hostileScript, hostileImg, hostileFrame, hostileLink, hostileMDLink} {
			if !strings.Contains(text, want) {
				t.Errorf("the browser does not show %q as text", want)
			}
		}
	})
	t.Run("screenshots", func(t *testing.T) {
		for _, c := range []struct {
			name string
			size chromium.Size
			dark bool
		}{{"laptop light", chromium.Laptop, false}, {"phone dark", chromium.Phone, true}} {
			shot, err := b.Screenshot(ctx, file, c.size, c.dark)
			if err != nil {
				t.Fatal(err)
			}
			ink, bg, err := chromium.Ink(shot)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f%% of the pixels differ from the background (luminance %d)", c.name, 100*ink, bg)
			if ink < 0.01 {
				t.Errorf("%s: the screenshot is blank (%.2f%% ink)", c.name, 100*ink)
			}
			if c.dark != (bg < 96) {
				t.Errorf("%s: background luminance %d", c.name, bg)
			}
		}
	})
	t.Run("print", func(t *testing.T) {
		chromium.Poppler(t)
		pdf, err := b.PDF(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		text, err := chromium.PDFText(pdf)
		if err != nil {
			t.Fatal(err)
		}
		// The settings, the counts and the search results are collapsed
		// sections on screen; in print they are expanded.
		for _, want := range []string{"documents per retrieval", "LLM calls", "Kept out of the context", "notes/evil.md#0", "Evil </details>"} {
			if !strings.Contains(text, want) {
				t.Errorf("the printed page lacks %q:\n%s", want, text)
			}
		}
	})
}
