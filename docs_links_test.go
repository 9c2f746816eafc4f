package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestDocsLinksResolve: every relative link of README.md, docs/*.md and
// guide/*.md names a file inside the repository, and every #anchor a
// heading of the file it points into. A clone has no ../shared: a link
// there (the contract lives in docs/contract.md) is a broken link.
func TestDocsLinksResolve(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "guide/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		for _, l := range markdownLinks(t, f) {
			checked++
			if msg := checkLink(root, f, l); msg != "" {
				t.Errorf("%s: link %q %s", f, l, msg)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links found: the link pattern is broken", checked)
	}
}

// linkRE matches an inline Markdown link's destination: "](dest)" or
// "](dest "title")".
var linkRE = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// markdownLinks are the link destinations of a Markdown file, code
// blocks and code spans left out.
func markdownLinks(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

func stripCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkLink says what is wrong with link l of file f ("" when nothing).
func checkLink(root, f, l string) string {
	if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(l, "#")
	target := f
	if path != "" {
		target = filepath.Join(filepath.Dir(f), path)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return err.Error()
	}
	if rel, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(rel, "..") {
		return "points outside the repository"
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "names no file of the repository"
	}
	if anchor == "" || info.IsDir() || !strings.HasSuffix(abs, ".md") {
		return ""
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return err.Error()
	}
	if !headingAnchors(string(b))[anchor] {
		return "names no heading of " + target
	}
	return ""
}

// headingAnchors are the anchors GitHub gives a file's headings: lower
// case, punctuation dropped, spaces as hyphens, repeats numbered.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// TestContractInDocs: docs/contract.md holds the project's contract whole:
// every line of the shared CONTRACT.md, perhaps extended (where this
// checkout has it; a clone has only docs/contract.md).
func TestContractInDocs(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("..", "shared", "CONTRACT.md"))
	if err != nil {
		t.Skip("../shared/CONTRACT.md is not here (a clone): nothing to compare with")
	}
	ours, err := os.ReadFile(filepath.Join("docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A line may be extended where it stands ("extend freely"): each line's
	// words, its closing punctuation aside, must still be there.
	have := flatText(string(ours))
	for i, l := range strings.Split(string(shared), "\n") {
		if w := strings.TrimRight(flatText(l), ".;,"); w != "" && !strings.Contains(have, w) {
			t.Errorf("docs/contract.md lacks line %d of the contract: %q", i+1, l)
		}
	}
}
