package retrieval

import (
	"reflect"
	"strings"
	"testing"
)

// One line in each layout of the data, plus a question with no supporting
// paragraph and one with no context (as 36 of the 2Wiki questions).
const multihopLines = `{"question_id": "q1", "question_text": "Who  portrayed Corliss Archer?", "contexts": [{"id": "0", "title": "Meet Corliss Archer", "paragraph_text": "A radio program.", "is_supporting": false}, {"id": "1", "title": "Shirley Temple", "paragraph_text": "Shirley Temple Black was an actress.", "is_supporting": true}]}
{"id": "2hop__1_2", "question": "What is the seat of the county?", "paragraphs": [{"idx": 0, "title": "Port Blair", "paragraph_text": "Port Blair is a capital.", "is_supporting": false}, {"idx": 1, "title": "Shirley Temple", "paragraph_text": "Shirley Temple Black was an actress.", "is_supporting": true}], "answerable": true}

{"_id": "h3", "question": "Which band?", "supporting_facts": [["Neil Peart", 1], ["Nobody's Hero", 0]], "context": [["Neil Peart", ["Neil Peart was a drummer.", " He joined Rush."]], ["Jeff Porcaro", ["Jeff Porcaro was a drummer.", "He played with Toto."]], ["Nobody's Hero", ["A song by Rush."]]]}
{"_id": "w4", "question": "Which film?", "supporting_facts": [["Free Guy", 0]], "evidences": []}
{"id": "m5", "question": "Nothing supports this?", "paragraphs": [{"idx": 0, "title": "T", "paragraph_text": "text", "is_supporting": false}]}
`

func TestParseMultihop(t *testing.T) {
	qs, skipped, err := ParseMultihop(strings.NewReader(multihopLines))
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 2 {
		t.Errorf("skipped = %d, want 2", skipped)
	}
	want := []MultihopQuestion{
		{ID: "q1", Question: "Who portrayed Corliss Archer?", Paragraphs: []Paragraph{
			{Title: "Meet Corliss Archer", Text: "A radio program."},
			{Title: "Shirley Temple", Text: "Shirley Temple Black was an actress.", Supporting: true},
		}},
		{ID: "2hop__1_2", Question: "What is the seat of the county?", Paragraphs: []Paragraph{
			{Title: "Port Blair", Text: "Port Blair is a capital."},
			{Title: "Shirley Temple", Text: "Shirley Temple Black was an actress.", Supporting: true},
		}},
		{ID: "h3", Question: "Which band?", Paragraphs: []Paragraph{
			{Title: "Neil Peart", Text: "Neil Peart was a drummer. He joined Rush.", Supporting: true},
			// 2Wiki-style sentences without a leading space get one.
			{Title: "Jeff Porcaro", Text: "Jeff Porcaro was a drummer. He played with Toto."},
			{Title: "Nobody's Hero", Text: "A song by Rush.", Supporting: true},
		}},
	}
	if !reflect.DeepEqual(qs, want) {
		t.Errorf("questions =\n%#v\nwant\n%#v", qs, want)
	}
}

func TestParseMultihopErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not JSON", "{\"id\": \"a\"}\nnot json\n", "line 2"},
		{"bad context pair", `{"_id": "x", "question": "q", "context": [["only a title"]]}`, "line 1"},
		{"array line", `[1, 2]`, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseMultihop(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestPoolParagraphs(t *testing.T) {
	qs, _, err := ParseMultihop(strings.NewReader(multihopLines))
	if err != nil {
		t.Fatal(err)
	}
	ds := PoolParagraphs("pool", qs, 0)
	// Shirley Temple appears in two questions: pooled once.
	if len(ds.Docs) != 6 {
		t.Fatalf("pool holds %d paragraphs, want 6: %v", len(ds.Docs), ds.Docs)
	}
	if ds.Docs[1].ID != "p000002" || ds.Docs[1].Title != "Shirley Temple" {
		t.Errorf("second paragraph = %+v", ds.Docs[1])
	}
	wantRel := []map[string]int{{"p000002": 1}, {"p000002": 1}, {"p000004": 1, "p000006": 1}}
	for i, q := range ds.Queries {
		if !reflect.DeepEqual(q.Rel, wantRel[i]) {
			t.Errorf("question %s relevant = %v, want %v", q.ID, q.Rel, wantRel[i])
		}
	}
	if ds.Kind != Pool || len(ds.Queries) != 3 {
		t.Errorf("kind %v, %d queries", ds.Kind, len(ds.Queries))
	}

	// A cap of 3 paragraphs takes the first question (2 new), the second
	// (1 new: Port Blair), and stops before the third (3 new).
	capped := PoolParagraphs("pool", qs, 3)
	if len(capped.Docs) != 3 || len(capped.Queries) != 2 {
		t.Errorf("capped pool: %d paragraphs, %d questions; want 3 and 2", len(capped.Docs), len(capped.Queries))
	}
}

func TestJoinSentences(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"One.", " Two."}, "One. Two."},
		{[]string{"One.", "Two."}, "One. Two."},
		{[]string{"One. ", "Two."}, "One. Two."},
		{[]string{"", "Two."}, "Two."},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := joinSentences(tt.in); got != tt.want {
			t.Errorf("joinSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
