package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The user guide (guide/, embedded in the binary and indexed by the app)
// and the manual (docs/) say the same things from one source: a passage of
// docs/ between "<!-- guide: PAGE -->" and "<!-- /guide -->" is the text
// of record, and guide/PAGE holds it word for word (line breaks aside).
// Edit the docs/ block and copy it into the guide page; the test fails
// until both agree.

// guideBlockRE finds the shared blocks of a docs page.
var guideBlockRE = regexp.MustCompile(`(?s)<!-- guide: ([a-z-]+\.md) -->\n(.*?)\n<!-- /guide -->`)

// relativeLinkRE is a Markdown link to another page: it would resolve in
// one folder and not in the other.
var relativeLinkRE = regexp.MustCompile(`\]\((?:[^)#:]+\.md|#[^)]*)\)`)

func TestGuideAgreesWithDocs(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range guideBlockRE.FindAllStringSubmatch(string(b), -1) {
			blocks++
			page, text := m[1], m[2]
			g, err := os.ReadFile(filepath.Join("guide", page))
			if err != nil {
				t.Errorf("%s: a block for guide/%s, which does not exist", d, page)
				continue
			}
			if !strings.Contains(flatText(string(g)), flatText(text)) {
				t.Errorf("guide/%s does not hold this passage of %s word for word (edit the docs block, then copy it into the guide):\n%s", page, d, text)
			}
			if l := relativeLinkRE.FindString(text); l != "" {
				t.Errorf("%s: a shared block links %s, which cannot resolve both in docs/ and in guide/", d, l)
			}
		}
	}
	if blocks < 4 {
		t.Errorf("%d shared blocks between docs/ and guide/, want at least 4 (the pattern is broken?)", blocks)
	}
}

// flatText is s with every run of white space one space.
func flatText(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestReadmeNamesTheDemo: a new user without a model learns of `prefrag
// demo` in the README's first lines.
func TestReadmeNamesTheDemo(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 16)
	if !strings.Contains(strings.Join(lines[:min(15, len(lines))], "\n"), "prefrag demo") {
		t.Error("the README's first 15 lines do not name `prefrag demo`")
	}
}
