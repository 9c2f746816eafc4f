package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/prefrag/prefrag/internal/testdouble/chromium"
)

// TestExportHTMLTwentyTurnThreadInBrowser: the report of a 3-step session
// and of the 20-turn thread it grows into opens in headless Chromium; the
// long page shows every one of the 20 questions and the last answer, and
// its screenshot is not blank. The pages' sizes are logged (the issue's
// note reports them).
func TestExportHTMLTwentyTurnThreadInBrowser(t *testing.T) {
	browser := chromium.New(t)
	w, script, out := caseStudyTurn1(t)
	id := wireEvents(t, out)[0].Session
	dir := t.TempDir()
	export := func(name string) string {
		t.Helper()
		page := filepath.Join(dir, name)
		if _, errOut, code := w.run("sessions", "export", id, "--format", "html", "-o", page); code != 0 {
			t.Fatalf("export html: exit %d\n%s", code, errOut)
		}
		fi, err := os.Stat(page)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", name, fi.Size())
		return page
	}
	export("three-steps.html")

	questions := []string{caseQuestion}
	for turn := 2; turn <= 20; turn++ {
		q := fmt.Sprintf("%s (asked again as question %d)", followUp, turn)
		script.add(followUpSteps("[1]"), nil)
		if _, errOut, code := w.run(w.askArgs("--json", "--continue", "last", q)...); code != 0 {
			t.Fatalf("question %d: exit %d\n%s", turn, code, errOut)
		}
		questions = append(questions, q)
	}
	page := export("twenty-turns.html")

	ctx := context.Background()
	dom, err := browser.DOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := visible(doc)
	for i, q := range questions {
		if !strings.Contains(text, q) {
			t.Errorf("question %d is not on the page: %q", i+1, q)
		}
	}
	if !strings.Contains(text, "a thread of 20 questions") || !strings.Contains(text, "Question 20") || strings.Contains(text, "Question 21") {
		t.Error("the page does not number the thread's 20 questions")
	}
	if !strings.Contains(text, "At the Carlsberg Laboratory in Copenhagen") {
		t.Error("the last answer is not on the page")
	}
	shot, err := browser.Screenshot(ctx, page, chromium.Laptop, false)
	if err != nil {
		t.Fatal(err)
	}
	ink, _, err := chromium.Ink(shot)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("twenty-turns screenshot: %.1f%% of the pixels differ from the background", 100*ink)
	if ink < 0.01 {
		t.Errorf("the screenshot is blank (%.2f%% ink)", 100*ink)
	}
}
