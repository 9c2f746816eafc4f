package manticore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/internal/testdouble/sphinxtest"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/manticore"
)

// The two shards of the test cluster: shard 1 on node 0 (which also serves
// the distributed index), shard 2 on node 1.
var shards = [2][]sphinxtest.Doc{
	{
		{ID: "a1", Title: "Eiffel Tower", Text: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. The tower is named after Gustave Eiffel.", URL: "https://example.org/eiffel"},
		{ID: "a2", Title: "Louvre", Text: "The Louvre is the world's most-visited art museum, in Paris, France."},
		{ID: "a3", Title: "Rhine", Text: "The Rhine is a river that flows through Switzerland, Germany and the Netherlands."},
		{ID: "a4", Title: "Quotes \"and\" 'apostrophes'", Text: "A document with a back\\slash, a 'single' and a \"double\" quote, and <angle> & ampersand."},
	},
	{
		{ID: "b1", Title: "Brandenburg Gate", Text: "The Brandenburg Gate is an 18th-century monument in Berlin, Germany."},
		{ID: "b2", Title: "Paris Commune", Text: "The Paris Commune was a government that ruled Paris in 1871."},
		{ID: "b3", Title: "Städte: Zürich, Москва", Text: "Zürich is the largest city in Switzerland; Москва is the capital of Russia. Ångström."},
		{ID: "b4", Title: "Evil\u202etitle\nsecond line", Text: "Bidi control text about sanitizing."},
	},
}

func startCluster(t *testing.T) *sphinxtest.Cluster {
	t.Helper()
	return sphinxtest.Start(t, shards)
}

func open(t *testing.T, addr, index string, timeout time.Duration) *manticore.Corpus {
	t.Helper()
	c, err := manticore.Open(context.Background(), manticore.Config{
		Corpus:     "cluster",
		Addr:       addr,
		Index:      index,
		TitleField: sphinxtest.TitleField,
		TextField:  sphinxtest.TextField,
		IDField:    sphinxtest.IDField,
		URLField:   sphinxtest.URLField,
		Timeout:    timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ids(docs []sources.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

func TestClusterSearch(t *testing.T) {
	cl := startCluster(t)
	ctx := context.Background()

	t.Run("distributed index ranks both shards by BM25", func(t *testing.T) {
		for _, addr := range []string{cl.Addr, "mysql://" + cl.Addr, "sphinxql://" + cl.Addr} {
			c := open(t, addr, sphinxtest.Distributed, 0)
			docs, err := c.Search(ctx, "Which tower is in Paris?", 10)
			if err != nil {
				t.Fatalf("%s: %v", addr, err)
			}
			got := ids(docs)
			// The Eiffel Tower passage holds both words (tower three
			// times). Then the two other passages with Paris: b2 before
			// a2, as "paris" is rarer in b2's shard (IDF is per shard)
			// and b2 has it in its title too; by document id (no
			// ranking) a2 would come first. The rest only hold "is" or
			// "in" (OR semantics, no stop words).
			if len(got) != 6 || got[0] != "a1" || got[1] != "b2" || got[2] != "a2" {
				t.Fatalf("%s: got %v, want [a1 b2 a2 …] (6)", addr, got)
			}
			t.Logf("%s: %v, scores %v %v %v", addr, got, docs[0].Score, docs[1].Score, docs[2].Score)
			for i, d := range docs {
				if i > 0 && d.Score > docs[i-1].Score {
					t.Errorf("scores not descending: %v", docs)
				}
				if d.Source != "local:cluster" || d.Score <= 0 {
					t.Errorf("doc %s: source %q score %v", d.ID, d.Source, d.Score)
				}
			}
			a1 := docs[0]
			if a1.Title != "Eiffel Tower" || !strings.HasPrefix(a1.Text, "The Eiffel Tower is a wrought-iron") || a1.URL != "https://example.org/eiffel" || a1.Locator != a1.URL {
				t.Errorf("a1 = %+v", a1)
			}
			if c.Name() != "local:cluster" || c.Kind() != sources.KindRemote {
				t.Errorf("Name %q Kind %v", c.Name(), c.Kind())
			}
		}
	})

	t.Run("k bounds", func(t *testing.T) {
		c := open(t, cl.Addr, sphinxtest.Distributed, 0)
		for _, tc := range []struct {
			k, want int
		}{{-1, 0}, {0, 0}, {1, 1}, {2, 2}, {1 << 30, 3}} {
			docs, err := c.Search(ctx, "paris", tc.k)
			if err != nil || len(docs) != tc.want {
				t.Errorf("k=%d: %d docs (%v), err %v; want %d", tc.k, len(docs), ids(docs), err, tc.want)
			}
		}
	})

	t.Run("unicode", func(t *testing.T) {
		c := open(t, cl.Addr, sphinxtest.Distributed, 0)
		for _, q := range []string{"Москва", "Zürich", "Zu\u0308rich", "ÅNGSTRÖM"} {
			docs, err := c.Search(ctx, q, 5)
			if err != nil || len(docs) == 0 || docs[0].ID != "b3" {
				t.Errorf("%q: %v, %v; want b3 first", q, ids(docs), err)
				continue
			}
			if docs[0].Title != "Städte: Zürich, Москва" {
				t.Errorf("%q: title %q", q, docs[0].Title)
			}
		}
	})

	t.Run("documents are sanitised", func(t *testing.T) {
		c := open(t, cl.Addr, sphinxtest.Distributed, 0)
		docs, err := c.Search(ctx, "sanitizing", 5)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%v %v", ids(docs), err)
		}
		if strings.ContainsAny(docs[0].Title, "\u202e\n") {
			t.Errorf("title not sanitised: %q", docs[0].Title)
		}
	})

	t.Run("hostile questions", func(t *testing.T) {
		c := open(t, cl.Addr, sphinxtest.Distributed, 0)
		for _, tc := range []struct {
			q     string
			first string // "" = no result expected
		}{
			{`"louvre`, "a2"},
			{`louvre"/1 | @title rhine`, "a2"},
			{`louvre\`, "a2"},
			{`\'louvre\'`, "a2"},
			{`'); DROP TABLE dist; -- louvre`, "a2"},
			{`louvre' OR '1'='1`, "a2"},
			{`louvre'; SELECT * FROM dist; #`, "a2"},
			{`@title -louvre !rhine`, "a2"},
			{`@@relaxed @(field1,field2) louvre`, "a2"},
			{`MAYBE NEAR/3 NOTNEAR/2 SENTENCE PARAGRAPH ZONE:(h1) ZONESPAN:x louvre`, "a2"},
			{`^louvre$ =louvre louvre* *louvre ~louvre <louvre`, "a2"},
			{`(louvre) [louvre] {louvre} louvre/1 "louvre"~3`, "a2"},
			{"louvre\x00\x1b[31m\u202e", "a2"},
			{`back\slash 'single' "double"`, "a4"},
			{`"" '' \\ // () ;; -- || !! ^^ $$ @@`, ""},
			{"", ""},
			{"   ", ""},
		} {
			docs, err := c.Search(ctx, tc.q, 5)
			if err != nil {
				t.Errorf("%q: %v", tc.q, err)
				continue
			}
			switch {
			case tc.first == "" && len(docs) != 0:
				t.Errorf("%q: %v, want nothing", tc.q, ids(docs))
			case tc.first != "" && (len(docs) == 0 || docs[0].ID != tc.first):
				t.Errorf("%q: %v, want %s first", tc.q, ids(docs), tc.first)
			}
		}
		// The index is still there and whole.
		docs, err := c.Search(ctx, "paris berlin rhine louvre", 100)
		if err != nil || len(docs) != 5 {
			t.Errorf("after the hostile questions: %v %v", ids(docs), err)
		}
	})

	t.Run("unknown index", func(t *testing.T) {
		c := open(t, cl.Addr, "nosuchindex", 0)
		_, err := c.Search(ctx, "paris", 5)
		if !errors.Is(err, manticore.ErrUnknownIndex) || !errors.Is(err, sources.ErrUnavailable) {
			t.Errorf("Search: %v", err)
		}
		if _, err := c.Health(ctx); !errors.Is(err, manticore.ErrUnknownIndex) {
			t.Errorf("Health: %v", err)
		}
	})

	t.Run("unknown column", func(t *testing.T) {
		c, err := manticore.Open(ctx, manticore.Config{Corpus: "x", Addr: cl.Addr, Index: sphinxtest.Distributed, TextField: "body"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.Search(ctx, "paris", 5)
		if !errors.Is(err, manticore.ErrSyntax) || !strings.Contains(err.Error(), "body") {
			t.Errorf("Search: %v", err)
		}
		if _, err := c.Health(ctx); !errors.Is(err, manticore.ErrSyntax) || !strings.Contains(err.Error(), "body") {
			t.Errorf("Health: %v", err)
		}
	})

	t.Run("binary API port", func(t *testing.T) {
		// The agents' port (9312 by default) is not SphinxQL.
		c := open(t, cl.Node(0).APIAddr, sphinxtest.Distributed, 2*time.Second)
		_, err := c.Health(ctx)
		if !errors.Is(err, manticore.ErrNotSphinxQL) || !errors.Is(err, manticore.ErrUnreachable) {
			t.Errorf("Health: %v", err)
		}
		bounded(t, "search on the API port", 20*time.Second, func() {
			_, err = c.Search(ctx, "paris", 3)
			if !errors.Is(err, manticore.ErrNotSphinxQL) || !errors.Is(err, manticore.ErrUnreachable) || !strings.Contains(err.Error(), "9306") {
				t.Errorf("Search: %v", err)
			}
			t.Logf("search on the API port: %v", err)
		})
	})

	t.Run("health", func(t *testing.T) {
		h, err := open(t, cl.Addr, sphinxtest.Distributed, 0).Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.Version, "2.2.") || h.IndexType != "distributed" || h.Shards != 2 || h.Documents != -1 || h.Latency <= 0 {
			t.Errorf("distributed: %+v", h)
		}
		h, err = open(t, cl.Addr, sphinxtest.ShardName(0), 0).Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h.IndexType != "local" || h.Documents != int64(len(shards[0])) {
			t.Errorf("shard: %+v", h)
		}
		t.Logf("health: %+v", h)
	})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Hundreds of random questions made of operator characters, operator
// words, SQL and Unicode reach the real server: none is refused, and each
// one holding a word of a document finds documents.
func TestRandomHostileQuestions(t *testing.T) {
	cl := startCluster(t)
	c := open(t, cl.Addr, sphinxtest.Distributed, 0)
	pieces := []string{
		`"`, `'`, `\`, `\\`, `@`, `@title`, `@@relaxed`, `-`, `|`, `!`, `/`, `/1`, `^`, `$`, `(`, `)`, `[`, `]`, `{`, `}`,
		`<<`, `=`, `*`, `~`, `;`, `:`, `,`, `.`, `#`, `%`, `&`, `--`, `/*`, `*/`, "\x00", "\x1b", "\xff", "\u202e", "\t", "\n",
		"MAYBE", "NEAR/2", "NOTNEAR/1", "SENTENCE", "PARAGRAPH", "ZONE:(h1)", "ZONESPAN:(p)", "AND", "OR", "NOT",
		"DROP TABLE dist", "SELECT * FROM dist", "OPTION ranker=none", "LIMIT 0,1", "1=1", "' OR '1'='1",
		"louvre", "Москва", "zürich", "東京", "42", "½",
	}
	rng := rand.New(rand.NewPCG(12, 4))
	ctx := context.Background()
	found := 0
	for i := range 400 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) == 0 {
				b.WriteByte(' ')
			}
		}
		q := b.String()
		docs, err := c.Search(ctx, q, 3)
		if err != nil {
			t.Fatalf("question %d %q: %v", i, q, err)
		}
		if len(docs) > 0 {
			found++
		}
		words := manticore.Words(q)
		for _, w := range []string{"louvre", "москва", "zürich"} {
			if contains(words, w) && len(docs) == 0 {
				t.Errorf("question %q holds %q but found nothing", q, w)
			}
		}
	}
	t.Logf("%d of 400 questions found documents", found)
	if docs, err := c.Search(ctx, "paris berlin rhine louvre", 100); err != nil || len(docs) != 5 {
		t.Errorf("afterwards: %v %v", ids(docs), err)
	}
}

// One Corpus serves concurrent searches (the engine's reflection searches
// several sources at once) and its pool stays within its bound.
func TestConcurrentSearches(t *testing.T) {
	cl := startCluster(t)
	c := open(t, cl.Addr, sphinxtest.Distributed, 0)
	ctx := context.Background()
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 20 {
				q := []string{"paris", "Москва", "rhine germany", "louvre museum"}[(g+i)%4]
				docs, err := c.Search(ctx, q, 3)
				if err == nil && len(docs) == 0 {
					err = errors.New(q + ": nothing found")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// The password never appears in an error.
func TestPasswordNotInErrors(t *testing.T) {
	const secret = "hunter2-s3cret"
	cl := startCluster(t)
	ctx := context.Background()
	for _, tc := range []struct{ addr, index string }{
		{cl.Addr, "nosuchindex"},
		{"127.0.0.1:1", sphinxtest.Distributed},
	} {
		c, err := manticore.Open(ctx, manticore.Config{Corpus: "x", Addr: tc.addr, Index: tc.index, User: "analyst", Password: secret, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, serr := c.Search(ctx, "paris", 3)
		_, herr := c.Health(ctx)
		for _, err := range []error{serr, herr} {
			if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), secret) {
				t.Errorf("%s/%s: %v", tc.addr, tc.index, err)
			}
		}
		if strings.Contains(c.String(), secret) {
			t.Errorf("String: %s", c)
		}
		c.Close()
	}
}
