package retrieval

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

const trecDocs = `<DOC>
<DOCNO>1</DOCNO>
compact memories have flexible capacities  a digital data storage
system
</DOC>
<DOC>
<DOCNO> 7 </DOCNO>
</DOC>
<DOC>
no number here
</DOC>
<DOC>
<DOCNO>12</DOCNO>
the british computer society
</DOC>
<DOC>
<DOCNO>13</DOCNO> unterminated`

func TestParseTRECDocs(t *testing.T) {
	docs, skipped := ParseTRECDocs([]byte(trecDocs))
	want := []Doc{
		{ID: "1", Text: "compact memories have flexible capacities a digital data storage system"},
		{ID: "12", Text: "the british computer society"},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs = %#v, want %#v", docs, want)
	}
	if skipped != 2 {
		t.Errorf("skipped = %d, want 2 (empty text, missing DOCNO)", skipped)
	}
}

func TestParseTRECTopics(t *testing.T) {
	in := `<top>
<num>1</num><title>
MEASUREMENT OF DIELECTRIC CONSTANT
</title>
</top>
<top><num>2</num><title>  </title></top>
<top>
<num> 3 </num><title>SYSTEMS OF
DATA CODING</title>
</top>`
	got := ParseTRECTopics([]byte(in))
	want := []Query{{ID: "1", Text: "MEASUREMENT OF DIELECTRIC CONSTANT"}, {ID: "3", Text: "SYSTEMS OF DATA CODING"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("topics = %#v, want %#v", got, want)
	}
}

func TestParseQrels(t *testing.T) {
	trec, bad := ParseTRECQrels([]byte("1 0 1239 1\n1 0 1502 1\n\n2 0 7 0\nbroken line\n3 0 9 x\n"))
	wantTREC := map[string]map[string]int{"1": {"1239": 1, "1502": 1}, "2": {"7": 0}}
	if !reflect.DeepEqual(trec, wantTREC) || bad != 2 {
		t.Errorf("TREC qrels = %v (bad %d), want %v (bad 2)", trec, bad, wantTREC)
	}
	cran, bad := ParseCranfieldQrels([]byte("1 184 2 \n1 29 4\n2 486 -1\n2 1 2 3\n"))
	wantCran := map[string]map[string]int{"1": {"184": 2, "29": 4}, "2": {"486": -1}}
	if !reflect.DeepEqual(cran, wantCran) || bad != 1 {
		t.Errorf("Cranfield qrels = %v (bad %d), want %v (bad 1)", cran, bad, wantCran)
	}
}

const cranDocs = `.I 1
.T
experimental investigation of the aerodynamics of a
wing in a slipstream .
.A
brenckman,m.
.B
j. ae. scs. 25, 1958, 324.
.W
experimental investigation of the aerodynamics of a
wing in a slipstream .
  an experimental study of a wing in a propeller slipstream was
made .
.I 2
.T
wings
.W
wingspan data .
.I 471
.T
.A
.B
.W
.I 5
.W
abstract without a title .
`

func TestCranfieldDocs(t *testing.T) {
	recs := ParseDotRecords([]byte(cranDocs))
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	if recs[0].Fields['A'] != "brenckman,m." || recs[0].Fields['B'] != "j. ae. scs. 25, 1958, 324." {
		t.Errorf("record 1 fields = %q", recs[0].Fields)
	}
	var docs []Doc
	for _, r := range recs {
		if d, ok := CranfieldDoc(r); ok {
			docs = append(docs, d)
		}
	}
	want := []Doc{
		// The title repeated at the start of the abstract is dropped.
		{ID: "1", Title: "experimental investigation of the aerodynamics of a wing in a slipstream .",
			Text: "an experimental study of a wing in a propeller slipstream was made ."},
		// "wings" is not followed by a space in "wingspan": nothing dropped.
		{ID: "2", Title: "wings", Text: "wingspan data ."},
		{ID: "5", Text: "abstract without a title ."},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs = %#v\nwant %#v", docs, want)
	}
}

func TestCranfieldQueriesAreNumberedByPosition(t *testing.T) {
	recs := ParseDotRecords([]byte(".I 001\n.W\nwhat similarity laws .\n.I 004\n.W\nheat conduction .\n"))
	if len(recs) != 2 || recs[1].ID != "004" || recs[1].Fields['W'] != "heat conduction ." {
		t.Fatalf("records = %#v", recs)
	}
}

func TestFirstDocs(t *testing.T) {
	ds := &Dataset{
		Docs: []Doc{{ID: "a"}, {ID: "b"}, {ID: "c"}},
		Queries: []Query{
			{ID: "1", Rel: map[string]int{"a": 1, "c": 2}},
			{ID: "2", Rel: map[string]int{"c": 1}},
			{ID: "3", Rel: map[string]int{"b": -1, "a": 3}},
		},
	}
	ds.FirstDocs(2)
	if len(ds.Docs) != 2 {
		t.Fatalf("docs = %v", ds.Docs)
	}
	want := []Query{{ID: "1", Rel: map[string]int{"a": 1}}, {ID: "3", Rel: map[string]int{"b": -1, "a": 3}}}
	if !reflect.DeepEqual(ds.Queries, want) {
		t.Errorf("queries = %v, want %v", ds.Queries, want)
	}
}

func TestFTS5MatchQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"What is BM25?", `"What" OR "is" OR "BM25"`},
		{`title:foo NEAR(bar) -baz "quoted" x*`, `"title" OR "foo" OR "NEAR" OR "bar" OR "baz" OR "quoted" OR "x"`},
		{"Émile Zola's café", `"Émile" OR "Zola" OR "s" OR "café"`},
		{"the the", `"the" OR "the"`},
		{"  ?!  ", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := FTS5MatchQuery(tt.in); got != tt.want {
			t.Errorf("FTS5MatchQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFindSharedData(t *testing.T) {
	root := t.TempDir()
	deep := root + "/repo/pkg/sub"
	for _, d := range []string{deep, root + "/shared/data"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := FindSharedData(deep); got != root+"/shared/data" {
		t.Errorf("FindSharedData = %q", got)
	}
	if got := FindSharedData(t.TempDir()); got != "" && !strings.HasSuffix(got, "shared/data") {
		t.Errorf("FindSharedData in an unrelated folder = %q", got)
	}
}

func TestCranfieldGain(t *testing.T) {
	for grade, want := range map[int]int{1: 4, 2: 3, 3: 2, 4: 1, -1: 0, 0: 0, 5: 0} {
		if got := CranfieldGain(grade); got != want {
			t.Errorf("CranfieldGain(%d) = %d, want %d", grade, got, want)
		}
	}
}
