package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/chromium"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

// mdAnswer is an answer in the Markdown a model writes: emphasis, a
// heading, a list, code, a web link, and what must not become live: a
// javascript: link, an image (a remote load), raw HTML.
const mdAnswer = "## Where it flows\n\nThe **Vltava** (German: *Moldau*) flows through Prague [1][2].\n\n" +
	"- it rises in the `Šumava`\n- it joins the Elbe [2]\n\n" +
	"See [the river](https://en.wikipedia.org/wiki/Vltava). " + hostileMDLink + " ![map](https://tracker.example/pixel.png) " +
	"<img src=x onerror=\"document.title='PWNED'\"> <b>raw</b>"

// storeMarkdownAnswer stores a session whose answer (final and step) is
// mdAnswer.
func storeMarkdownAnswer(t testing.TB, s *store.Store) *store.Record {
	t.Helper()
	const id = "mdanswer"
	if err := s.CreateSession(context.Background(), store.Session{ID: id, Question: "Which river?", Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"id": "notes/vltava.md#0", "locator": "notes/vltava.md#0", "title": "Vltava", "text": "The Vltava flows through Prague.", "source": "local:notes", "score": 2}
	return storeLines(t, s, id, mdAnswer, []map[string]any{
		{"type": "session", "question": "Which river?", "config": fixture.Settings()},
		{"type": "action", "step": 1, "tool": "Search_Engine", "query": "river Prague"},
		{"type": "retrieval", "step": 1, "source": "local:notes", "query": "river Prague", "docs": []any{doc}},
		{"type": "observation", "step": 1, "source": "local:notes", "doc_ids": []string{"notes/vltava.md#0"}, "doc_nums": []int{1}},
		{"type": "answer", "step": 2, "text": mdAnswer, "label": "CORRECT"},
		{"type": "final", "answer": mdAnswer, "label": "CORRECT", "citations": []int{1, 2}, "sources": []any{doc}, "source_nums": []int{1}},
	})
}

// TestHTMLAnswerMarkdown: the HTML report shows the answer's Markdown
// rendered (final answer and the step's answer): strong, em, heading,
// list, code, an http(s) link; a citation links to its source, a citation
// of no document is marked; nothing live comes out of it (no image, no
// javascript: link, no raw HTML), and what was unsafe is there as text.
func TestHTMLAnswerMarkdown(t *testing.T) {
	page := string(renderHTML(t, storeMarkdownAnswer(t, openStore(t))))
	checkInert(t, page)
	_, answer, _ := strings.Cut(page, `<div class="answer-text">`)
	answer, _, _ = strings.Cut(answer, "</section>")
	_, step, _ := strings.Cut(page, `<div class="step-answer">`)
	step, _, _ = strings.Cut(step, "</div>")
	for name, part := range map[string]string{"final answer": answer, "step answer": step} {
		for _, want := range []string{
			"<strong>Vltava</strong>", "<em>Moldau</em>", ">Where it flows</h", "<li>it rises in the <code>Šumava</code></li>",
			`<a href="https://en.wikipedia.org/wiki/Vltava" rel="noopener noreferrer">the river</a>`,
			`&lt;b&gt;raw&lt;/b&gt;`, `[open](javascript:alert(1))`,
		} {
			if !strings.Contains(part, want) {
				t.Errorf("%s lacks %s:\n%s", name, want, part)
			}
		}
		for _, bad := range []string{"**", "## ", "<img", "<b>", `href="javascript`, "<h1", "<h2", "<h3"} {
			if strings.Contains(part, bad) {
				t.Errorf("%s holds %q:\n%s", name, bad, part)
			}
		}
	}
	for _, want := range []string{`<a class="cite" href="#t1-src-1">[1]</a>`, `<span class="cite missing"`} {
		if !strings.Contains(answer, want) {
			t.Errorf("final answer lacks %s:\n%s", want, answer)
		}
	}
}

// TestHTMLAnswerMarkdownInBrowser: in headless Chromium, offline, the
// answer is rendered (bold is a <strong> element, the list a list), the
// DOM the browser built is inert, and the unsafe Markdown is there as text.
func TestHTMLAnswerMarkdownInBrowser(t *testing.T) {
	b := chromium.New(t)
	file := filepath.Join(t.TempDir(), "md.html")
	if err := os.WriteFile(file, renderHTML(t, storeMarkdownAnswer(t, openStore(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := b.DOM(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	checkInert(t, dom)
	if strings.Contains(dom, "PWNED</title>") {
		t.Error("a script ran: it retitled the page")
	}
	for _, want := range []string{"<strong>Vltava</strong>", "<li>it joins the Elbe "} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM lacks %s", want)
		}
	}
	text := textOf(t, dom)
	for _, want := range []string{hostileMDLink, `<img src=x onerror="document.title='PWNED'">`} {
		if !strings.Contains(text, want) {
			t.Errorf("the browser does not show %q as text", want)
		}
	}
	if strings.Contains(text, "**") {
		t.Error("the browser shows raw ** Markdown")
	}
}
