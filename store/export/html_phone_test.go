package export

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/chromium"
	"github.com/prefrag/prefrag/internal/testdouble/fixture"
	"github.com/prefrag/prefrag/store"
)

// Long texts nothing breaks by itself: a word, a URL, a path, a line of
// code, a table row.
var (
	longWord = strings.Repeat("Pneumonoultramicroscopicsilicovolcanoconiosis", 4)
	longURL  = "https://example.org/" + strings.Repeat("a-very-long-path-segment/", 8) + "page.html?query=" + strings.Repeat("x", 120) + "&utm_source=" + strings.Repeat("y", 60)
	longPath = "notes/" + strings.Repeat("deeply-nested-folder/", 10) + "a_file_with_a_long_name_and_no_spaces.md#0"
	longCode = "```go\nfunc main() { fmt.Println(\"" + strings.Repeat("x", 150) + "\") }\n```"
	longRow  = "| " + strings.Repeat("column-heading-without-spaces | ", 8) + "\n|" + strings.Repeat("---|", 8) + "\n| " + strings.Repeat(longWord[:40]+" | ", 8)
	// Preserved white space: a code block indented with tabs, a table
	// padded with spaces.
	longSpace = "```\n" + strings.Repeat("\t", 12) + "deeply_indented()\n```\n|" + strings.Repeat(" ", 90) + "padded" + strings.Repeat(" ", 90) + "|"
)

// storeLong stores a thread whose every text is too long for a phone's
// width: the questions (as asked and rewritten), thought, query, judge
// analysis, notice, document titles, URLs and locators, an answer with
// code blocks and tables, its claims and their quotes, the settings and
// the manifest.
func storeLong(t testing.TB, s *store.Store) *store.Record {
	t.Helper()
	const id = "long"
	q := "What is " + longWord + " at " + longURL + "?"
	settings := fixture.Settings()
	settings.Corpora = []string{"corpus-" + longWord}
	settings.Model = "model-" + longWord
	settings.JudgeModel = settings.Model
	settings.LLMURL = "http://127.0.0.1:11434/" + strings.Repeat("prefix/", 12)
	manifest, _ := json.Marshal(map[string]any{"corpora": []map[string]any{{"name": settings.Corpora[0], "path": "/home/analyst/" + longPath, "fingerprint": strings.Repeat("0123456789abcdef", 8)}}})
	if err := s.CreateSession(context.Background(), store.Session{ID: id, Question: q, Model: settings.Model, Manifest: manifest, Started: fixture.Start}); err != nil {
		t.Fatal(err)
	}
	web := map[string]any{"id": longURL, "url": longURL, "title": "Web " + longWord, "text": longWord, "source": "web:duckduckgo", "score": 1}
	local := map[string]any{"id": longPath, "locator": longPath, "title": "Local " + longWord, "text": longWord, "source": "local:" + settings.Corpora[0], "score": 3}
	answer := "It is " + longWord + " [1][2], see " + longURL + ".\n\n" + longCode + "\n\n" + longRow + "\n\n" + longSpace
	f := false
	webSrc := "web:duckduckgo"
	return storeLines(t, s, id, answer, []map[string]any{
		{"type": "session", "question": q, "config": settings},
		{"type": "thought", "step": 1, "text": "Look up " + longWord + " " + longURL},
		{"type": "action", "step": 1, "tool": "Search_" + longWord, "query": longWord + " " + longURL},
		{"type": "retrieval", "step": 1, "source": local["source"], "query": longWord, "docs": []any{local}},
		{"type": "selection", "step": 1, "status": f, "analysis": "Not enough: " + longWord, "next_source": webSrc, "source": local["source"]},
		{"type": "retrieval", "step": 1, "source": webSrc, "query": longURL, "docs": []any{web}},
		{"type": "observation", "step": 1, "source": webSrc, "doc_ids": []string{longURL}, "doc_nums": []int{1}, "discarded": []string{longPath}},
		{"type": "answer", "step": 2, "text": answer, "label": "PARTIALLY CORRECT", "explanation": longWord, "suggestions": longURL},
		{"type": "supplement", "query": q, "doc_ids": []string{longPath}, "doc_nums": []int{2}},
		{"type": "error", "message": "notice " + longWord + " " + longURL, "fatal": false},
		{"type": "final", "answer": answer, "forced": false, "label": "CORRECT", "citations": []int{1, 2},
			"sources": []any{web, local}, "source_nums": []int{1, 2}, "counts": map[string]any{"llm_calls": 3, "judge_calls": 1}},
		{"type": "evidence", "claims": []any{
			map[string]any{"text": "It is " + longWord, "citations": []int{1}, "verdict": "supported",
				"support": []any{map[string]any{"n": 1, "quote": longWord + " " + longURL, "start": 0, "end": 10, "score": 0.9}}},
			map[string]any{"text": longURL, "citations": []int{2}, "verdict": "unsupported", "support": []any{}},
		}},
		{"type": "rewrite", "turn": 2, "original": "and " + longWord + "?", "rewritten": "What about " + longWord + " at " + longURL + "?"},
		{"type": "thought", "turn": 2, "step": 1, "text": longSpace},
		{"type": "answer", "turn": 2, "step": 1, "text": longSpace + " [1]", "label": "CORRECT"},
		{"type": "final", "turn": 2, "answer": longSpace + " [1]", "forced": false, "label": "CORRECT", "citations": []int{1},
			"sources": []any{web}, "source_nums": []int{1}, "counts": map[string]any{"llm_calls": 1}},
	})
}

// TestHTMLPhoneWidthInBrowser lays the reports out in headless Chromium at
// a phone's width (390 and 320 CSS pixels), every <details> open, and
// requires that the page never scrolls sideways: its content is no wider
// than the viewport, no element or text reaches past an edge but inside an
// element that scrolls sideways on its own, and no text is cut off (a
// badge's ellipsis).
// The pages: the case study with its claims and quotes, a thread, the
// hostile session, and a session whose every text is too long to break.
func TestHTMLPhoneWidthInBrowser(t *testing.T) {
	b := chromium.New(t)
	claims := storeCaseStudy(t, openStore(t), caseID)
	line := `{"type":"evidence","session":"` + caseID + `","seq":99,"time":"2025-03-14T09:27:34Z","claims":[` +
		`{"text":"Carsten Erik Olsen died in 1974","citations":[6],"support":[{"n":6,"quote":"Carsten Erik Olsen (1891–1974) was a Danish plant ecologist.","start":0,"end":60,"score":0.9}],"verdict":"supported"},` +
		`{"text":"He assisted Sørensen","citations":[6],"support":[],"verdict":"unsupported"}]}`
	appendLine(t, claims, line)
	dir := t.TempDir()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		rec  *store.Record
	}{
		{"case study with claims", claims},
		{"thread", storeThread(t, openStore(t))},
		{"hostile", storeHostile(t, openStore(t))},
		{"long texts", storeLong(t, openStore(t))},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := renderHTML(t, c.rec)
			// The frame lays the page out at the phone's width; a phone's
			// browser does so only when the page asks it to.
			if !strings.Contains(string(page), `<meta name="viewport" content="width=device-width, initial-scale=1">`) {
				t.Error("the page does not ask a phone to lay it out at the phone's width")
			}
			file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".html")
			if err := os.WriteFile(file, page, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{chromium.PhoneWidth, chromium.NarrowWidth} {
				o, err := b.Overflow(ctx, file, width)
				if err != nil {
					t.Fatal(err)
				}
				if o.ClientWidth != width {
					t.Errorf("laid out %d px wide, want %d", o.ClientWidth, width)
				}
				// Nor is any text cut off: a badge too long for the line
				// wraps on a phone.
				if !o.Fits() || len(o.Clipped) > 0 {
					t.Errorf("the page does not fit a phone: %s", o)
				}
			}
		})
	}
}

// appendLine adds an event, given in its wire form, to a record read back.
func appendLine(t testing.TB, rec *store.Record, line string) {
	t.Helper()
	var ev engine.Event
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatal(err)
	}
	rec.Lines = append(rec.Lines, json.RawMessage(line))
	rec.Events = append(rec.Events, ev)
}
