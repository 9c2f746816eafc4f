package local

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedPassages are the paragraphs of the multi-hop pools under
// ../shared/data (title and text, without duplicates); the test is skipped
// without them. (internal/testdouble/evaltest finds shared/data the same way, but it
// imports this package.)
func sharedPassages(tb testing.TB) []passage {
	tb.Helper()
	var dir string
	wd, _ := os.Getwd()
	for d := wd; dir == ""; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "shared", "data", "multihop")); err == nil && st.IsDir() {
			dir = filepath.Join(d, "shared", "data", "multihop")
		} else if filepath.Dir(d) == d {
			tb.Skipf("shared/data/multihop not found above %s; skipping", wd)
		}
	}
	var files []string
	for _, pat := range []string{"*/*.json", "*/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := make(map[string]bool)
	var out []passage
	add := func(title, text string) {
		if k := title + "\x00" + text; !seen[k] {
			seen[k] = true
			out = append(out, passage{ID: "p" + string(rune('a'+len(out)%26)), Title: title, Text: text, File: "pool.jsonl"})
		}
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var rec struct {
				Context    [][]json.RawMessage `json:"context"` // HotpotQA, 2Wiki: [title, [sentences]]
				Paragraphs []struct {
					Title string `json:"title"`
					Text  string `json:"paragraph_text"`
				} `json:"paragraphs"` // MuSiQue
				Contexts []struct {
					Title string `json:"title"`
					Text  string `json:"paragraph_text"`
				} `json:"contexts"` // IRCoT HotpotQA
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				tb.Fatalf("%s: %v", name, err)
			}
			for _, c := range rec.Context {
				var title string
				var sents []string
				if len(c) != 2 || json.Unmarshal(c[0], &title) != nil || json.Unmarshal(c[1], &sents) != nil {
					tb.Fatalf("%s: unexpected context %s", name, c)
				}
				var sb strings.Builder
				for i, s := range sents {
					if i > 0 && !strings.HasPrefix(s, " ") {
						sb.WriteByte(' ')
					}
					sb.WriteString(s)
				}
				add(title, sb.String())
			}
			for _, p := range rec.Paragraphs {
				add(p.Title, p.Text)
			}
			for _, p := range rec.Contexts {
				add(p.Title, p.Text)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	if len(out) == 0 {
		tb.Skipf("no paragraphs under %s", dir)
	}
	return out
}
