package guide

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// page is one embedded page of the guide.
type page struct{ name, markdown string }

func pages(t *testing.T) []page {
	t.Helper()
	names, err := fs.Glob(FS(), "*.md")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded pages: %v", err)
	}
	out := make([]page, len(names))
	for i, n := range names {
		b, err := fs.ReadFile(FS(), n)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = page{n, string(b)}
	}
	return out
}

func TestEveryPageIsTitled(t *testing.T) {
	for _, p := range pages(t) {
		if !strings.HasPrefix(p.markdown, "# ") {
			t.Errorf("%s does not open with a # title", p.name)
		}
		if len(strings.Fields(p.markdown)) < 150 {
			t.Errorf("%s is too short to be useful (%d words)", p.name, len(strings.Fields(p.markdown)))
		}
	}
}

func TestLinksPointAtPages(t *testing.T) {
	link := regexp.MustCompile(`\]\(([a-z-]+\.md)\)`)
	var names []string
	for _, p := range pages(t) {
		names = append(names, p.name)
	}
	for _, p := range pages(t) {
		for _, m := range link.FindAllStringSubmatch(p.markdown, -1) {
			if !slices.Contains(names, m[1]) {
				t.Errorf("%s links to %s, which is not a page", p.name, m[1])
			}
		}
	}
}

func TestGuideCoversTheContract(t *testing.T) {
	// The settings and commands a user needs must be documented.
	all := ""
	for _, p := range pages(t) {
		all += p.markdown
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
