package eval

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/searxwire"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/web"
)

// qaFixture is a small MuSiQue-style file: two questions sharing one
// distractor paragraph.
const qaFixture = `{"id": "q1", "question": "Which county is Van Hook Township in?", "answer": "Mountrail County", "paragraphs": [
  {"title": "Van Hook Township", "paragraph_text": "Van Hook Township is a township in Mountrail County, North Dakota.", "is_supporting": true},
  {"title": "Port Blair", "paragraph_text": "Port Blair is the capital of the Andaman and Nicobar Islands.", "is_supporting": false}]}
{"id": "q2", "question": "What is the seat of Mountrail County?", "answer": "Stanley", "paragraphs": [
  {"title": "Mountrail County Courthouse", "paragraph_text": "The Mountrail County Courthouse in Stanley, North Dakota was built in 1914.", "is_supporting": true},
  {"title": "Port Blair", "paragraph_text": "Port Blair is the capital of the Andaman and Nicobar Islands.", "is_supporting": false}]}
`

func writeFixture(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "qa.jsonl")
	if err := os.WriteFile(p, []byte(qaFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHoldoutIsDeterministicAndNearTheFraction(t *testing.T) {
	h := Holdout{Fraction: 0.3, Seed: 7}
	// The split is a pure function of seed and paragraph id, so a corpus
	// indexed with a holdout in one process and an evaluation in another
	// hold out the same paragraphs: pinned here, with the id scheme.
	if id := ParagraphID("t", "p0"); id != "pfd40af04848ef0cd" {
		t.Errorf("ParagraphID(t, p0) = %q, want pfd40af04848ef0cd", id)
	}
	var bits strings.Builder
	for i := 0; i < 24; i++ {
		if (Holdout{Fraction: 0.3, Seed: 7}).HeldOut(ParagraphID("t", "p"+strconv.Itoa(i))) {
			bits.WriteByte('1')
		} else {
			bits.WriteByte('0')
		}
	}
	if want := "011000000100000100011000"; bits.String() != want {
		t.Errorf("held out (seed 7, 0.3) of p0..p23 = %s, want %s", bits.String(), want)
	}
	n, in := 20000, 0
	for i := 0; i < n; i++ {
		id := ParagraphID("t", string(rune('a'+i%26))+strings.Repeat("x", i/26))
		if h.HeldOut(id) {
			in++
		}
	}
	if got := float64(in) / float64(n); got < 0.28 || got > 0.32 {
		t.Errorf("held out %.3f of paragraphs, want about 0.3", got)
	}
	other := Holdout{Fraction: 0.3, Seed: 8}
	differ := 0
	for i := 0; i < 200; i++ {
		id := ParagraphID("t", strings.Repeat("y", i))
		if h.HeldOut(id) != other.HeldOut(id) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the seed changes nothing")
	}
	if (Holdout{}).HeldOut("p0") || !(Holdout{Fraction: 1}).HeldOut("p0") {
		t.Error("fractions 0 and 1 must hold out nothing and everything")
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if (Holdout{Fraction: bad}).Validate() == nil {
			t.Errorf("fraction %v accepted", bad)
		}
	}
}

func TestPoolAndSplit(t *testing.T) {
	ds, err := LoadFile(writeFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := PoolParagraphs(ds.Questions)
	if len(pool) != 3 {
		t.Fatalf("pool has %d paragraphs, want 3 (Port Blair once)", len(pool))
	}
	kept, held := SplitPool(pool, Holdout{Fraction: 1})
	if len(kept) != 1 || kept[0].Title != "Port Blair" || len(held) != 2 {
		t.Errorf("fraction 1 kept %+v held %+v", kept, held)
	}
	web := StandInParagraphs(pool, Holdout{Fraction: 1})
	if len(web) != 3 {
		t.Errorf("the stand-in serves %d paragraphs, want the 2 held out and the distractor", len(web))
	}
	if got := StandInParagraphs(pool, Holdout{}); len(got) != 1 {
		t.Errorf("without a holdout the stand-in serves %d paragraphs, want only the distractor", len(got))
	}
}

func TestIndexFromQA(t *testing.T) {
	file := writeFixture(t)
	dir := t.TempDir()
	ctx := context.Background()
	rep, err := IndexFromQA(ctx, dir, "musique", file, PoolHoldout(Holdout{Fraction: 1, Seed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Passages != 1 {
		t.Fatalf("the corpus holds %d passages, want only the distractor", rep.Stats.Passages)
	}
	info, ok, err := ReadQAPoolInfo(dir, "musique")
	if err != nil || !ok {
		t.Fatalf("pool info: %v %v", ok, err)
	}
	if info.Paragraphs != 3 || info.Supporting != 2 || info.HeldOut != 2 || info.Holdout == nil || info.Holdout.Fraction != 1 || info.Questions != 2 {
		t.Errorf("pool info %+v", info)
	}

	// Without a holdout the same corpus gets every paragraph; the pooled
	// file is replaced, not added to.
	rep, err = IndexFromQA(ctx, dir, "musique", file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Passages != 3 || len(rep.Failed) != 0 {
		t.Fatalf("after re-pooling: %d passages, failures %v", rep.Stats.Passages, rep.Failed)
	}
	c, err := local.Open(dir, "musique")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	docs, err := c.Search(ctx, "Mountrail County Courthouse Stanley", 1)
	if err != nil || len(docs) != 1 {
		t.Fatalf("search: %v %v", docs, err)
	}
	if want := ParagraphID("Mountrail County Courthouse", "The Mountrail County Courthouse in Stanley, North Dakota was built in 1914."); docs[0].ID != want {
		t.Errorf("passage id %q, want the paragraph id %q", docs[0].ID, want)
	}
	// Re-running with the same input changes nothing.
	rep, err = IndexFromQA(ctx, dir, "musique", file, PoolLimit(5))
	if err != nil || rep.Unchanged != 1 || rep.Passages != 0 {
		t.Errorf("re-run: %+v %v", rep, err)
	}
	if infos, _ := catalog.List(dir); len(infos) != 1 || infos[0].Name != "musique" {
		t.Errorf("corpus listing %+v: the pool folder must not show", infos)
	}

	if _, err := IndexFromQA(ctx, dir, ".bad", file); err == nil {
		t.Error("an invalid corpus name was accepted")
	}
	plain := filepath.Join(t.TempDir(), "plain.jsonl")
	os.WriteFile(plain, []byte(`{"question": "Q?", "answer": "x"}`+"\n"), 0o644)
	if _, err := IndexFromQA(ctx, dir, "plain", plain); err == nil || !strings.Contains(err.Error(), ErrNoParagraphs.Error()) {
		t.Errorf("a file without paragraphs gave %v", err)
	}
}

func TestStandInAnswersLikeSearXNG(t *testing.T) {
	ds, err := LoadFile(writeFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	pool := PoolParagraphs(ds.Questions)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	si, err := StartStandIn(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	defer si.Close()
	if !strings.HasPrefix(si.URL(), "http://127.0.0.1:") || si.Len() != 3 {
		t.Fatalf("URL %s, %d paragraphs", si.URL(), si.Len())
	}

	// The production SearXNG client reads it.
	eng, err := web.New(web.SearXNG, web.Config{BaseURL: si.URL(), MinInterval: -1, Guard: web.NewHostGuard(nil)})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := eng.Search(ctx, "Mountrail County Courthouse", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Title != "Mountrail County Courthouse" || !strings.Contains(docs[0].Text, "built in 1914") {
		t.Fatalf("docs %+v", docs)
	}
	id, ok := ParagraphIDOf(docs[0].ID)
	if !ok || id != pool[2].ID {
		t.Errorf("ParagraphIDOf(%q) = %q %v, want %q", docs[0].ID, id, ok, pool[2].ID)
	}
	if n := si.searches.Load(); n != 1 {
		t.Errorf("%d searches counted", n)
	}

	for _, c := range []struct {
		query string
		code  int
		ctype string
	}{
		{"/search?q=x", 200, "text/html"},
		{"/search?q=x&format=csv", 403, "text/plain"},
		{"/search?q=Port+Blair&format=json&pageno=2", 200, "application/json"},
	} {
		resp, err := http.Get(si.URL() + c.query)
		if err != nil {
			t.Fatal(err)
		}
		var ans searxwire.Answer
		if c.code == 200 && strings.HasPrefix(c.ctype, "application/json") {
			if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || len(ans.Results) != 0 {
				t.Errorf("page 2: %+v %v", ans, err)
			}
		}
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) {
			t.Errorf("%s: %d %s", c.query, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}

	// It stops with its context.
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := http.Get(si.URL() + "/"); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("the stand-in still answers after its context ended")
}

func TestParagraphIDOf(t *testing.T) {
	id := ParagraphID("T", "x")
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{id, id, true},
		{id + "#2", id, true},
		{"https://en.wikipedia.org/wiki/T#" + id, id, true},
		{"https://example.org/page", "", false},
		{"notes.md#3", "", false},
	}
	for _, c := range cases {
		got, ok := ParagraphIDOf(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParagraphIDOf(%q) = %q %v", c.in, got, ok)
		}
	}
}
