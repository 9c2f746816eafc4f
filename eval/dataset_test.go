package eval

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseQuestionFormats(t *testing.T) {
	type para struct {
		title, text string
		sup         bool
	}
	cases := []struct {
		name   string
		line   string
		format string
		id     string
		text   string
		gold   []string
		paras  []para
	}{
		{
			name:   "ircot",
			line:   `{"question_id": "5a8c", "question_text": "Who?", "answers_objects": [{"number": "", "date": {"day": "", "month": "", "year": ""}, "spans": ["Chief of Protocol"]}], "contexts": [{"id": "0", "title": "A", "paragraph_text": "alpha", "is_supporting": false}, {"id": "1", "title": "B", "paragraph_text": "beta", "is_supporting": true}]}`,
			format: FormatIRCoT, id: "5a8c", text: "Who?", gold: []string{"Chief of Protocol"},
			paras: []para{{"A", "alpha", false}, {"B", "beta", true}},
		},
		{
			name:   "ircot number and date answers",
			line:   `{"question_id": "x", "question_text": "When?", "answers_objects": [{"number": "12", "date": {"day": "", "month": "", "year": ""}, "spans": []}, {"number": "", "date": {"day": "3", "month": "May", "year": "1990"}, "spans": []}]}`,
			format: FormatIRCoT, id: "x", text: "When?", gold: []string{"12", "3 May 1990"},
		},
		{
			name:   "musique",
			line:   `{"id": "2hop__1_2", "question": "Seat?", "answer": "Stanley", "answer_aliases": ["Stanley, ND"], "paragraphs": [{"idx": 0, "title": "Port Blair", "paragraph_text": "capital", "is_supporting": false}, {"idx": 1, "title": "Courthouse", "paragraph_text": "built 1914", "is_supporting": true}], "answerable": true}`,
			format: FormatMuSiQue, id: "2hop__1_2", text: "Seat?", gold: []string{"Stanley", "Stanley, ND"},
			paras: []para{{"Port Blair", "capital", false}, {"Courthouse", "built 1914", true}},
		},
		{
			name:   "hotpotqa context lists",
			line:   `{"_id": "5a7f", "question": "Which band?", "answer": "Rush", "supporting_facts": [["Neil Peart", 1]], "context": [["Jeff Porcaro", ["Jeffrey was a drummer.", " He played in Toto."]], ["Neil Peart", ["Neil was a drummer.", " He played in Rush."]]]}`,
			format: FormatHotpot, id: "5a7f", text: "Which band?", gold: []string{"Rush"},
			paras: []para{{"Jeff Porcaro", "Jeffrey was a drummer. He played in Toto.", false}, {"Neil Peart", "Neil was a drummer. He played in Rush.", true}},
		},
		{
			name:   "2wiki sentences without leading spaces",
			line:   `{"_id": "b0", "question": "Which film?", "answer": "Free Guy", "supporting_facts": [["Free Guy", 0]], "context": [["Free Guy", ["Free Guy is a film.", "It was directed by Shawn Levy."]]]}`,
			format: FormatHotpot, id: "b0", text: "Which film?", gold: []string{"Free Guy"},
			paras: []para{{"Free Guy", "Free Guy is a film. It was directed by Shawn Levy.", true}},
		},
		{
			name:   "plain with numeric idx",
			line:   `{"idx": 7, "question": " Which novelist? ", "answer": "Paul Thomas Mann", "gen_text_store": ""}`,
			format: FormatPlain, id: "7", text: "Which novelist?", gold: []string{"Paul Thomas Mann"},
		},
		{
			name:   "plain answers list and golden answers",
			line:   `{"question": "Q?", "answers": ["a", "b", "a"], "golden_answers": ["c"]}`,
			format: FormatPlain, text: "Q?", gold: []string{"a", "b", "c"},
		},
		{
			name:   "repeated paragraph within a question",
			line:   `{"question": "Q?", "answer": "x", "paragraphs": [{"title": "T", "paragraph_text": "same"}, {"title": "T", "paragraph_text": "same", "is_supporting": true}, {"title": "E", "paragraph_text": ""}]}`,
			format: FormatMuSiQue, text: "Q?", gold: []string{"x"},
			paras: []para{{"T", "same", true}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, format, err := ParseQuestion([]byte(c.line))
			if err != nil {
				t.Fatal(err)
			}
			if format != c.format || q.ID != c.id || q.Text != c.text || !reflect.DeepEqual(q.Gold, c.gold) {
				t.Errorf("got format %q id %q text %q gold %q; want %q %q %q %q", format, q.ID, q.Text, q.Gold, c.format, c.id, c.text, c.gold)
			}
			if len(q.Paragraphs) != len(c.paras) {
				t.Fatalf("got %d paragraphs, want %d: %+v", len(q.Paragraphs), len(c.paras), q.Paragraphs)
			}
			for i, p := range c.paras {
				got := q.Paragraphs[i]
				if got.Title != p.title || got.Text != p.text || got.Supporting != p.sup || got.ID != ParagraphID(p.title, p.text) {
					t.Errorf("paragraph %d = %+v, want %+v", i, got, p)
				}
			}
		})
	}
}

func TestParseQuestionRefusals(t *testing.T) {
	for _, line := range []string{
		`[1, 2]`,
		`{"answer": "x"}`,
		`{"question": "Q?"}`,
		`{"question": "Q?", "answer": ""}`,
		`{"question": "  ", "answer": "x"}`,
	} {
		if _, _, err := ParseQuestion([]byte(line)); err == nil {
			t.Errorf("ParseQuestion(%s) accepted it", line)
		}
	}
}

func TestParseContainers(t *testing.T) {
	cases := []struct {
		name  string
		input string
		ids   []string
		yesNo bool
	}{
		{"jsonl", "{\"id\":\"a\",\"question\":\"Q1\",\"answer\":\"x\"}\n\n{\"id\":\"b\",\"question\":\"Q2\",\"answer\":\"y\"}\n", []string{"a", "b"}, false},
		{"json array", `[{"id":"a","question":"Q1","answer":"yes"},{"question":"Q2","answer":"No"}]`, []string{"a", "q2"}, true},
		{"pretty-printed objects", "{\n  \"id\": \"a\",\n  \"question\": \"Q1\",\n  \"answer\": \"x\"\n}\n{\n  \"id\": \"a\",\n  \"question\": \"Q2\",\n  \"answer\": \"x\"\n}", []string{"a", "a#2"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds, err := Parse(strings.NewReader(c.input))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, q := range ds.Questions {
				ids = append(ids, q.ID)
				if q.Index != i {
					t.Errorf("question %d has index %d", i, q.Index)
				}
			}
			if !reflect.DeepEqual(ids, c.ids) || ds.YesNo != c.yesNo {
				t.Errorf("ids %q yesNo %v, want %q %v", ids, ds.YesNo, c.ids, c.yesNo)
			}
		})
	}
	for _, bad := range []string{"", "{\"question\":\"Q\",\"answer\":\"x\"}\n{broken", "{\"question\":\"Q\"}"} {
		if _, err := Parse(strings.NewReader(bad)); !errors.Is(err, ErrData) {
			t.Errorf("Parse(%q) error %v, want ErrData", bad, err)
		}
	}
}

func TestDatasetName(t *testing.T) {
	cases := map[string]string{
		"/d/multihop/hotpotqa-ircot-dev500/dev_subsampled.jsonl": "hotpotqa-ircot-dev500",
		"/d/multihop/migres-dev200/musique.json":                 "musique",
		"qa/hotpotqa_500.jsonl":                                  "hotpotqa_500",
		"test.json":                                              "test",
		"x/bioasq.test.jsonl":                                    "bioasq",
	}
	for in, want := range cases {
		if got := DatasetName(in); got != want {
			t.Errorf("DatasetName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoadSharedFiles reads the real QA files of ../shared/data: every
// question has gold answers, and the pools have the sizes the data's README
// describes.
func TestLoadSharedFiles(t *testing.T) {
	root := sharedDataDir(t)
	cases := []struct {
		rel          string
		questions    int
		format       string
		withoutParas int
	}{
		{"multihop/hotpotqa-ircot-dev500/dev_subsampled.jsonl", 500, FormatIRCoT, 0},
		{"multihop/migres-dev200/musique.json", 200, FormatMuSiQue, 0},
		{"multihop/migres-dev200/hotpot.json", 200, FormatHotpot, 0},
		{"multihop/migres-dev200/wikihop.json", 200, FormatHotpot, 36},
		{"qa/r1searcher-eval/hotpotqa_500.jsonl", 500, FormatPlain, 500},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			ds, err := LoadFile(filepath.Join(root, filepath.FromSlash(c.rel)))
			if err != nil {
				t.Fatal(err)
			}
			if len(ds.Questions) != c.questions || ds.Format != c.format || ds.YesNo {
				t.Fatalf("%d questions, format %s, yes/no %v", len(ds.Questions), ds.Format, ds.YesNo)
			}
			without := 0
			for _, q := range ds.Questions {
				if len(q.Gold) == 0 {
					t.Errorf("%s has no gold", q.ID)
				}
				if len(q.Paragraphs) == 0 {
					without++
				} else if len(q.Supporting()) == 0 {
					t.Errorf("%s has paragraphs but none supporting", q.ID)
				}
			}
			if without != c.withoutParas {
				t.Errorf("%d questions without paragraphs, want %d", without, c.withoutParas)
			}
		})
	}
}

func sharedDataDir(t testing.TB) string {
	t.Helper()
	wd, _ := os.Getwd()
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "data")
		if _, err := os.Stat(filepath.Join(p, "multihop")); err == nil {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skip("../shared/data is absent; skipping")
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"question_id": "1", "question_text": "Q?", "answers_objects": [{"spans": ["a"]}], "contexts": [{"title": "T", "paragraph_text": "x", "is_supporting": true}]}`))
	f.Add([]byte(`[{"question": "Q?", "answer": ["a", 1, true]}]`))
	f.Add([]byte(`{"_id": 3, "question": "Q", "answer": "a", "context": [["T", ["s1", " s2"]], ["U"]], "supporting_facts": [["T", 0]]}`))
	f.Add([]byte("{\"question\":\"Q\",\"answer\":\"x\"}\n{\"question\":\"Q\",\"answer\":\"x\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			if !errors.Is(err, ErrData) {
				t.Fatalf("error %v does not match ErrData", err)
			}
			return
		}
		seen := map[string]bool{}
		for i, q := range ds.Questions {
			if q.Text == "" || len(q.Gold) == 0 || q.Index != i || seen[q.ID] || q.ID == "" {
				t.Fatalf("bad question %+v", q)
			}
			seen[q.ID] = true
			for _, p := range q.Paragraphs {
				if p.Text == "" || p.ID != ParagraphID(p.Title, p.Text) {
					t.Fatalf("bad paragraph %+v", p)
				}
			}
		}
	})
}
