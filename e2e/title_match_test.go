package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// What is shown is true: a passage the title heuristics put above a
// higher BM25 score says so wherever its score is shown — `search` text
// and --json (title_match; score stays BM25's), `ask`'s text and events,
// the Markdown and HTML exports.
func TestTitleMatchShownWithItsScore(t *testing.T) {
	const q = "at sea level water"
	w := newWorld(t, twice(&fakellm.Script{
		Steps: []string{
			"Thought: search.\nAction: Search_Engine\nAction Input: " + q,
			"Thought: I now know the final answer to the original question\nFinal Answer: One hundred degrees [1].\nSelf-Evaluation: CORRECT",
		},
		Judges: []string{`{"analysis": "enough", "status": true}`},
	}))
	dir := filepath.Join(w.home, "water")
	os.MkdirAll(dir, 0o755)
	for name, text := range map[string]string{
		"a.md": "# Water\n\nWater water water boils at one hundred degrees. Water is wet. Water water.\n",
		"c.md": "# Kettles\n\nA kettle boils quickly; boils boils boils, at sea level it boils at one hundred degrees.\n",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	w.mustRun("index", "--corpus", "water", dir)

	const note = "ranked ahead: title is in the query"
	text := w.mustRun("search", "--corpus", "water", q)
	lines := strings.Split(text, "\n")
	if !strings.Contains(lines[0], "Water") || !strings.Contains(lines[0], note) || strings.Contains(text[strings.Index(text, "Kettles"):], note) {
		t.Errorf("search text: the title match is not said on the passage it moved:\n%s", text)
	}
	type hit struct {
		Title      string   `json:"title"`
		Score      *float64 `json:"score"`
		TitleMatch string   `json:"title_match"`
	}
	var hits []hit
	for _, l := range strings.Split(strings.TrimSpace(w.mustRun("search", "--corpus", "water", "--json", q)), "\n") {
		var h hit
		if err := json.Unmarshal([]byte(l), &h); err != nil || h.Score == nil {
			t.Fatalf("%q: %v (score is the contract's)", l, err)
		}
		hits = append(hits, h)
	}
	if len(hits) != 2 || hits[0].Title != "Water" || hits[0].TitleMatch != "in_query" || hits[1].TitleMatch != "" || *hits[0].Score >= *hits[1].Score {
		t.Errorf("search --json: %+v", hits)
	}

	out := w.mustRun(w.askArgs("--corpus", "water", "--web", "never", "What happens to water at sea level?")...)
	if !strings.Contains(out, note) {
		t.Errorf("ask does not say why the passage stands first:\n%s", out)
	}
	evs := parseEvents(t, w.mustRun(w.askArgs("--corpus", "water", "--web", "never", "--json", "What happens to water at sea level?")...))
	ret := payloadsOf[engine.Retrieval](evs)
	if len(ret) == 0 || len(ret[0].Docs) == 0 || ret[0].Docs[0].TitleMatch != "in_query" {
		t.Fatalf("ask --json retrieval: %+v", ret)
	}
	id := evs[0].Session
	if md := exportMD(t, w, id); !strings.Contains(md, "score 1.33, "+note) {
		t.Errorf("Markdown export lacks the note:\n%s", md)
	}
	page := filepath.Join(w.home, "r.html")
	w.mustRun("sessions", "export", id, "--format", "html", "-o", page)
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), note) {
		t.Errorf("HTML export lacks the note")
	}
}
