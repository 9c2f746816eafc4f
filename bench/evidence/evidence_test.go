package evidence

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadShapes(t *testing.T) {
	tests := []struct {
		file               string
		questions, skipped int
		firstGold          [][2]int // paragraph, sentence
	}{
		{"testdata/tiny_hotpot.json", 3, 0, [][2]int{{0, 1}, {1, 0}}},
		{"testdata/tiny_2wiki.jsonl", 2, 1, [][2]int{{0, 0}, {1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ds, err := LoadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds.Questions) != tt.questions || ds.Skipped != tt.skipped || ds.BadFacts != 0 {
				t.Fatalf("questions %d skipped %d bad %d", len(ds.Questions), ds.Skipped, ds.BadFacts)
			}
			q := ds.Questions[0]
			for _, g := range tt.firstGold {
				p := q.Paragraphs[g[0]]
				if !containsInt(p.Gold, g[1]) {
					t.Errorf("paragraph %q gold %v, want sentence %d", p.Title, p.Gold, g[1])
				}
			}
			// Sentence spans point into the joined text, trimmed, with a space
			// between 2Wiki's sentences.
			for _, p := range q.Paragraphs {
				for i, s := range p.Sentences {
					seg := p.Text[s.Start:s.End]
					if seg != strings.TrimSpace(seg) || seg == "" {
						t.Errorf("%q sentence %d = %q", p.Title, i, seg)
					}
				}
				if strings.Contains(p.Text, ".It") || strings.Contains(p.Text, ".She") {
					t.Errorf("sentences run together: %q", p.Text)
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, body string }{
		{"empty", ""},
		{"not JSON", "hello"},
		{"no usable record", `{"question": "q", "answer": "a"}`},
		{"bad record", `[{"question": 3}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tt.body))
			if !errors.Is(err, ErrFormat) {
				t.Errorf("err = %v, want ErrFormat", err)
			}
		})
	}
}

func TestRunTiny(t *testing.T) {
	for _, file := range []string{"testdata/tiny_hotpot.json", "testdata/tiny_2wiki.jsonl"} {
		ds, err := LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Run(context.Background(), ds, Systems())
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].System != SystemBaseline || rows[1].System != SystemAligner {
			t.Fatalf("rows %+v", rows)
		}
		al := rows[1]
		if al.F1 < 0.99 || al.Precision < 0.99 || al.Recall < 0.99 || al.ExactMatch < 0.99 {
			t.Errorf("%s: aligner %+v, want every supporting sentence and nothing else", file, al)
		}
		if al.GoldSupported < 0.99 || al.Distractors == 0 || al.MeanUS <= 0 {
			t.Errorf("%s: aligner %+v", file, al)
		}
		if bl := rows[0]; bl.F1 >= al.F1 {
			t.Errorf("%s: baseline F1 %.3f not below the aligner's %.3f", file, bl.F1, al.F1)
		}
	}
}

func TestRunUnknownSystem(t *testing.T) {
	ds, _ := LoadFile("testdata/tiny_hotpot.json")
	if _, err := Run(context.Background(), ds, []string{"bm25"}); err == nil {
		t.Error("no error for an unknown system")
	}
}

// sharedFile finds a file of the project's shared data, or skips.
func sharedFile(t testing.TB, rel string) string {
	wd, _ := os.Getwd()
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "..", "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skipf("../shared/data/%s is absent", rel)
		}
	}
}

// The shared files: the aligner beats the naive baseline and stays above
// the floor measured when it was written (README: Evidence benchmark).
func TestRunShared(t *testing.T) {
	tests := []struct {
		rel   string
		floor float64
	}{
		{"multihop/migres-dev200/hotpot.json", 0.90},
		{"multihop/migres-dev200/wikihop.json", 0.89},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.rel), func(t *testing.T) {
			ds, err := LoadFile(sharedFile(t, tt.rel))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := Run(context.Background(), ds, Systems())
			if err != nil {
				t.Fatal(err)
			}
			bl, al := rows[0], rows[1]
			t.Logf("baseline P %.3f R %.3f F1 %.3f; aligner P %.3f R %.3f F1 %.3f", bl.Precision, bl.Recall, bl.F1, al.Precision, al.Recall, al.F1)
			if al.F1 < tt.floor || al.F1 <= bl.F1+0.03 {
				t.Errorf("aligner F1 %.3f (floor %.2f), baseline %.3f", al.F1, tt.floor, bl.F1)
			}
		})
	}
}

// A record whose supporting facts name no sentence of its context is
// named as such, with the first bad fact, not as a record missing fields.
func TestLoadBadFactsNamed(t *testing.T) {
	const ctx = `"context": [["Maren Holt", ["Maren Holt is a chemist.", " She directed an institute."]]]`
	tests := []struct{ name, facts, want string }{
		{"sentence past the end", `[["Maren Holt", 7]]`, `the supporting fact ["Maren Holt",7] names sentence 7 of "Maren Holt", which has 2`},
		{"title not in the context", `[["Oslo", 0]]`, `the supporting fact ["Oslo",0] names no paragraph of the context`},
		{"not a pair", `[["Maren Holt"]]`, `the supporting fact ["Maren Holt"] is not [title, sentence index]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `[{"_id": "r1", "question": "q?", "answer": "a", "supporting_facts": ` + tt.facts + `, ` + ctx + `}]`
			_, err := Load(strings.NewReader(body))
			if !errors.Is(err, ErrBadFacts) || errors.Is(err, ErrFormat) {
				t.Fatalf("err = %v, want ErrBadFacts", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "record 1: "+tt.want) || strings.Contains(msg, "has question, answer") {
				t.Errorf("message %q, want it to name %q", msg, tt.want)
			}
		})
	}
	// One good record among them: loaded, the bad facts counted.
	body := `{"question": "q?", "answer": "a", "supporting_facts": [["Maren Holt", 7]], ` + ctx + "}\n" +
		`{"question": "q2?", "answer": "b", "supporting_facts": [["Maren Holt", 1], ["Oslo", 0]], ` + ctx + "}\n"
	ds, err := Load(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Questions) != 1 || ds.Skipped != 1 || ds.BadFactRecords != 1 || ds.BadFacts != 2 || !strings.HasPrefix(ds.FirstBadFact, "record 1: ") {
		t.Errorf("dataset: %d questions, skipped %d, bad-fact records %d, bad facts %d, first %q", len(ds.Questions), ds.Skipped, ds.BadFactRecords, ds.BadFacts, ds.FirstBadFact)
	}
}

// Load reads any bytes without panicking: a dataset, or an error that is
// ErrFormat or ErrBadFacts; a dataset's gold sentences are in range.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/tiny_hotpot.json", "testdata/tiny_2wiki.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"question": "q?", "answer": "a", "supporting_facts": [["T", 9], ["T"], 5], "context": [["T", ["One.", "Two."]]]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := Load(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrBadFacts) {
				t.Fatalf("error %v is neither ErrFormat nor ErrBadFacts", err)
			}
			return
		}
		if len(ds.Questions) == 0 || ds.BadFactRecords > ds.Skipped {
			t.Fatalf("dataset %+v", ds)
		}
		for _, q := range ds.Questions {
			for _, p := range q.Paragraphs {
				for _, g := range p.Gold {
					if g < 0 || g >= len(p.Sentences) {
						t.Fatalf("gold sentence %d of %d", g, len(p.Sentences))
					}
				}
			}
		}
	})
}
