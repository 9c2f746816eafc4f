package ingest

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseJSONLLineMatchesSlowOnSharedData checks the fast path against
// encoding/json on real JSON Lines from ../shared/data: every line as it is
// (question records with nested arrays and objects to skip, mostly without
// "text"), and passage lines made from their paragraphs the way a corpus
// holds them, which should nearly all take the fast path.
func TestParseJSONLLineMatchesSlowOnSharedData(t *testing.T) {
	root := jsonlSharedData(t)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no JSON Lines files in ../shared/data; skipping")
	}
	var lines, fast, passages, passagesFast int
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			lines++
			if checkJSONLMatchesSlow(t, line) {
				fast++
			}
			for _, p := range passageLines(t, line, &passages) {
				if checkJSONLMatchesSlow(t, p) {
					passagesFast++
				}
			}
		}
	}
	t.Logf("%d files: %d lines (%d fast), %d passage lines (%d fast)", len(files), lines, fast, passages, passagesFast)
	if passagesFast*100 < passages*95 {
		t.Errorf("only %d of %d passage lines took the fast path", passagesFast, passages)
	}
}

// passageLines makes corpus lines from the paragraphs of a question record:
// an object paragraph ({"title", "paragraph_text", ...}) keeps its own bytes
// with the text key renamed; a [title, [sentences]] pair is encoded again
// with a numeric id. n numbers them.
func passageLines(t *testing.T, line []byte, n *int) [][]byte {
	var rec map[string]json.RawMessage
	if json.Unmarshal(line, &rec) != nil {
		return nil
	}
	var out [][]byte
	for _, v := range rec {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			continue
		}
		for _, it := range items {
			switch {
			case bytes.HasPrefix(it, []byte("{")) && bytes.Contains(it, []byte(`"paragraph_text"`)):
				out = append(out, bytes.Replace(it, []byte(`"paragraph_text"`), []byte(`"text"`), 1))
			case bytes.HasPrefix(it, []byte("[")):
				var pair []json.RawMessage
				var title string
				var sentences []string
				if json.Unmarshal(it, &pair) != nil || len(pair) != 2 ||
					json.Unmarshal(pair[0], &title) != nil || json.Unmarshal(pair[1], &sentences) != nil {
					continue
				}
				b, err := json.Marshal(map[string]any{"id": *n, "title": title, "text": strings.Join(sentences, "")})
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, b)
			default:
				continue
			}
			*n++
		}
	}
	return out
}

func jsonlSharedData(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data")
		if _, err := os.Stat(filepath.Join(p, "README.md")); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skip("../shared/data is absent; skipping")
		}
	}
}
