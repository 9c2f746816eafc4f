package guide

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestEveryPageIsListedAndTitled(t *testing.T) {
	embedded, err := fs.Glob(FS(), "*.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := slices.Clone(order)
	slices.Sort(listed)
	if !slices.Equal(embedded, listed) {
		t.Fatalf("embedded pages %v, reading order lists %v", embedded, listed)
	}
	for _, p := range Pages() {
		if p.Title == "" {
			t.Errorf("%s has no # title", p.Name)
		}
		if len(strings.Fields(p.Markdown)) < 150 {
			t.Errorf("%s is too short to be useful (%d words)", p.Name, len(strings.Fields(p.Markdown)))
		}
	}
}

func TestLinksPointAtPages(t *testing.T) {
	link := regexp.MustCompile(`\]\(([a-z-]+\.md)\)`)
	for _, p := range Pages() {
		for _, m := range link.FindAllStringSubmatch(p.Markdown, -1) {
			if !slices.Contains(order, m[1]) {
				t.Errorf("%s links to %s, which is not a page", p.Name, m[1])
			}
		}
	}
}

func TestGuideCoversTheContract(t *testing.T) {
	// The settings and commands a user needs must be documented.
	all := ""
	for _, p := range Pages() {
		all += p.Markdown
	}
	for _, want := range []string{
		"--web", "--corpus", "--model", "--llm-url", "--num-ctx", "--max-steps", "-k N",
		"PREFRAG_HOME", "PREFRAG_CONFIG", "OLLAMA_HOST", "NO_COLOR",
		"prefrag index", "prefrag corpora pin", "prefrag sessions export", "ollama pull",
		"CORRECT", "PARTIALLY CORRECT", "INCORRECT", "interrupted",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the guide never mentions %q", want)
		}
	}
}

func TestWriteTo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guide")
	paths, err := WriteTo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(order) {
		t.Fatalf("wrote %d files, want %d", len(paths), len(order))
	}
	st, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	// Writing again leaves unchanged files alone (an ingest skips them).
	if _, err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	st2, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if !st2.ModTime().Equal(st.ModTime()) {
		t.Error("an unchanged page was rewritten")
	}
	b, err := os.ReadFile(filepath.Join(dir, "keys.md"))
	if err != nil || !strings.HasPrefix(string(b), "# Keys") {
		t.Fatalf("keys.md not written as embedded: %v", err)
	}
}
