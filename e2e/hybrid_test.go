package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakeelastic"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// hybridWorld is a home with a corpus "garage" of three notes, none of
// which says "mend" or "automobile", and a fake server whose embedding
// model puts synonyms close.
func hybridWorld(t *testing.T, r fakellm.Responder, opts ...fakellm.Option) *world {
	t.Helper()
	w := &world{t: t, home: t.TempDir()}
	w.llm = fakellm.New(t, r, append([]fakellm.Option{fakellm.EmbedModels("nomic-embed-text", "bge-m3")}, opts...)...)
	w.docs = filepath.Join(w.home, "docs")
	os.MkdirAll(w.docs, 0o755)
	w.write("garage.md", "# Car repair\n\nReplacing worn brake pads and changing the oil keep a car safe on the road.\n")
	w.write("bakery.md", "# Bread\n\nA sourdough loaf needs flour, water, salt and a starter fed the day before.\n")
	w.write("harbour.md", "# Harbour\n\nFishing boats unload their catch at dawn beside the lighthouse.\n")
	w.addConfig(chosenWeb + fmt.Sprintf("embed_url = %q\nllm_url = %q\n", w.llm.URL(), w.llm.URL()))
	return w
}

func (w *world) mustRun(args ...string) string {
	w.t.Helper()
	out, errOut, code := w.run(args...)
	if code != 0 {
		w.t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return out
}

type searchHit struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	BM25Rank   *int   `json:"bm25_rank"`
	VectorRank *int   `json:"vector_rank"`
	HasRanks   bool
}

func searchJSON(t *testing.T, w *world, args ...string) []searchHit {
	t.Helper()
	out := w.mustRun(append([]string{"search", "--corpus", "garage", "--json"}, args...)...)
	var hits []searchHit
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var h searchHit
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		h.HasRanks = strings.Contains(l, `"bm25_rank":`) && strings.Contains(l, `"vector_rank":`)
		hits = append(hits, h)
	}
	return hits
}

// A paraphrase that shares no word with the passage is found by meaning
// (hybrid, dense), not by words (bm25); --json gives each leg's rank.
func TestHybridFindsParaphrase(t *testing.T) {
	w := hybridWorld(t, nil)
	out := w.mustRun("index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	if !strings.Contains(out, "vectors: 3 passages embedded with nomic-embed-text (64 dimensions)") ||
		!strings.Contains(out, "corpus garage has vectors for 3 passages (all of them)") {
		t.Fatalf("index output:\n%s", out)
	}
	if list := w.mustRun("corpora"); !strings.Contains(list, "garage: vectors of 3 passages by nomic-embed-text (64 dimensions)") {
		t.Errorf("corpora:\n%s", list)
	}
	const q = "how do I mend an automobile?"
	if hits := searchJSON(t, w, "--retrieval", "bm25", q); len(hits) != 0 {
		t.Errorf("bm25 found %+v", hits)
	}
	for _, mode := range []string{"hybrid", "dense"} {
		hits := searchJSON(t, w, "--retrieval", mode, q)
		if len(hits) == 0 || hits[0].Title != "Car repair" || !hits[0].HasRanks || hits[0].BM25Rank != nil || hits[0].VectorRank == nil || *hits[0].VectorRank != 1 {
			t.Fatalf("%s: %+v", mode, hits)
		}
	}
	// Hybrid is the default for a corpus with vectors.
	if hits := searchJSON(t, w, q); len(hits) == 0 || hits[0].Title != "Car repair" {
		t.Errorf("default retrieval: %+v", hits)
	}
	text := w.mustRun("search", "--corpus", "garage", q)
	if !strings.Contains(text, "Car repair") || !strings.Contains(text, "meaning #1") {
		t.Errorf("text output:\n%s", text)
	}
}

// Indexing twice embeds nothing the second time; a changed file embeds
// only its passages; another model is refused with the command that
// re-embeds; --reembed re-embeds.
func TestHybridIncrementalAndModels(t *testing.T) {
	w := hybridWorld(t, nil)
	w.mustRun("index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	_, texts := w.llm.EmbedCalls()
	out := w.mustRun("index", "--corpus", "garage", w.docs)
	if _, now := w.llm.EmbedCalls(); now != texts || !strings.Contains(out, "vectors: 0 passages embedded") {
		t.Fatalf("second index embedded %d texts:\n%s", now-texts, out)
	}
	w.write("bakery.md", "# Bread\n\nRye bread keeps for a week wrapped in a cloth.\n")
	out = w.mustRun("index", "--corpus", "garage", w.docs)
	if _, now := w.llm.EmbedCalls(); now != texts+1 || !strings.Contains(out, "vectors: 1 passage embedded") {
		t.Fatalf("after one change, %d texts embedded:\n%s", now-texts, out)
	}
	_, errOut, code := w.run("index", "--corpus", "garage", "--embed-model", "bge-m3", w.docs)
	if code != 1 || !strings.Contains(errOut, "prefrag index --reembed --corpus garage --embed-model bge-m3") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("another model: exit %d, %q", code, errOut)
	}
	_, errOut, code = w.run("search", "--corpus", "garage", "--embed-model", "bge-m3", "car")
	if code != 1 || !strings.Contains(errOut, "search it with --embed-model nomic-embed-text") {
		t.Fatalf("search with another model: exit %d, %q", code, errOut)
	}
	out = w.mustRun("index", "--reembed", "--corpus", "garage", "--embed-model", "bge-m3")
	if !strings.Contains(out, "vectors: 3 passages embedded again with bge-m3") {
		t.Fatalf("reembed:\n%s", out)
	}
	if hits := searchJSON(t, w, "--embed-model", "bge-m3", "--retrieval", "dense", "mend an automobile"); len(hits) == 0 || hits[0].Title != "Car repair" {
		t.Errorf("after reembed: %+v", hits)
	}
	// The recorded model is used when none is named.
	if hits := searchJSON(t, w, "--retrieval", "dense", "mend an automobile"); len(hits) == 0 || hits[0].Title != "Car repair" {
		t.Errorf("with the recorded model: %+v", hits)
	}
}

// The retrieval event of an ask carries each leg's rank.
func TestHybridAskEvents(t *testing.T) {
	script := &fakellm.Script{
		Steps: []string{
			"Thought: I need a how-to.\nAction: Search_Engine\nAction Input: mend an automobile",
			"Thought: I know.\nFinal Answer: Replace the brake pads [1].\nSelf-Evaluation: CORRECT\nExplanation: found.\nImprovement Suggestions: None",
		},
		Judges: []string{`{"analysis": "a car repair note", "status": true}`},
	}
	w := hybridWorld(t, script)
	w.mustRun("index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	out := w.mustRun("ask", "--llm-url", w.llm.URL(), "--model", "fake-model", "--corpus", "garage", "--web", "never", "--json", "How do I mend an automobile?")
	var found bool
	for _, ev := range parseEvents(t, out) {
		if r, ok := ev.Payload.(engine.Retrieval); ok && r.Source == "local:garage" {
			if len(r.Docs) == 0 || r.Docs[0].Title != "Car repair" || r.Docs[0].Ranks == nil || r.Docs[0].Ranks.Vector != 1 {
				t.Fatalf("retrieval docs %+v", r.Docs)
			}
			found = true
		}
	}
	if !strings.Contains(out, `"embed_calls":1,`) {
		t.Errorf("the query's embedding is not counted:\n%s", out)
	}
	if !found || !strings.Contains(out, `"vector_rank":1`) || !strings.Contains(out, `"bm25_rank":null`) {
		t.Fatalf("no hybrid retrieval event:\n%s", out)
	}
}

// SIGKILL in the middle of embedding leaves a corpus that searches (by
// words, and by meaning for what was embedded); the same command again
// finishes it without embedding again what was written.
func TestHybridSIGKILLMidEmbedding(t *testing.T) {
	w := hybridWorld(t, nil, fakellm.EmbedDelay(40*time.Millisecond))
	var b strings.Builder
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, "{\"id\":\"n%d\",\"title\":\"Note %d\",\"text\":\"word%d about car repair and bread number %d\"}\n", i, i, i, i)
	}
	w.write("notes.jsonl", b.String())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := w.command(ctx, "index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first part is in use once CURRENT names the manifest naming it.
	parts := filepath.Join(w.home, "data", "corpora", "garage", "vectors", "CURRENT")
	for {
		if m, _ := filepath.Glob(parts); len(m) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no vectors were written")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if hits := searchJSON(t, w, "--retrieval", "bm25", "word17"); len(hits) == 0 || hits[0].ID != "n17" {
		t.Fatalf("by words after the kill: %+v", hits)
	}
	if hits := searchJSON(t, w, "car repair"); len(hits) == 0 {
		t.Fatal("nothing found by a hybrid search after the kill")
	}
	_, before := w.llm.EmbedCalls()
	out := w.mustRun("index", "--corpus", "garage", "--embed-model", "nomic-embed-text", w.docs)
	_, after := w.llm.EmbedCalls()
	if !strings.Contains(out, fmt.Sprintf("corpus garage has vectors for %d passages (all of them)", n+3)) {
		t.Fatalf("the re-run:\n%s", out)
	}
	if again := after - before; again >= n || before+again > n+3+256 {
		t.Errorf("the re-run embedded %d texts after %d before the kill", again, before)
	}
}

// An Elasticsearch or OpenSearch index with a vector field is searched by
// meaning too, its query embedded by the user's server; without the field
// it is searched by words, with a note.
func TestHybridRemoteIndex(t *testing.T) {
	for _, flavor := range []string{fakeelastic.Elasticsearch8, fakeelastic.OpenSearch2} {
		t.Run(flavor, func(t *testing.T) {
			w := hybridWorld(t, nil)
			es := fakeelastic.New(t, fakeelastic.Options{Flavor: flavor, Index: "garage", VectorField: "embedding",
				Vector: func(text string) []float32 { return fakellm.Embed(text, fakellm.DefaultEmbedDims) },
				Docs: []fakeelastic.Doc{
					{ID: "car", Title: "Car repair", Text: "Replacing worn brake pads keeps a car safe."},
					{ID: "bread", Title: "Bread", Text: "A sourdough loaf needs flour, water and salt."},
				}})
			w.mustRun("corpora", "add", "garage", "--elasticsearch", es.URL(), "--index", "garage", "--vector-field", "embedding", "--embed-model", "nomic-embed-text")
			hits := searchJSON(t, w, "--retrieval", "hybrid", "mend an automobile")
			if len(hits) == 0 || hits[0].ID != "car" || !hits[0].HasRanks || hits[0].VectorRank == nil || *hits[0].VectorRank != 1 {
				t.Fatalf("hybrid: %+v", hits)
			}
			if hits := searchJSON(t, w, "--retrieval", "bm25", "mend an automobile"); len(hits) != 0 {
				t.Errorf("bm25: %+v", hits)
			}
			_, errOut, code := w.run("search", "--corpus", "garage", "--embed-model", "bge-m3", "car")
			if code != 1 || !strings.Contains(errOut, "search it with --embed-model nomic-embed-text") {
				t.Errorf("another model: exit %d %q", code, errOut)
			}
		})
	}
	w := hybridWorld(t, nil)
	es := fakeelastic.New(t, fakeelastic.Options{Index: "plain", Docs: []fakeelastic.Doc{{ID: "car", Title: "Car repair", Text: "brake pads"}}})
	w.mustRun("corpora", "add", "plain", "--elasticsearch", es.URL(), "--index", "plain", "--vector-field", "embedding", "--embed-model", "nomic-embed-text")
	out, errOut, code := w.run("search", "--corpus", "plain", "--retrieval", "hybrid", "car brake")
	if code != 0 || !strings.Contains(out, "Car repair") || !strings.Contains(errOut, "by words only") || !strings.Contains(errOut, "no dense_vector or knn_vector field embedding") {
		t.Errorf("no vector field: exit %d\n%s\n%s", code, out, errOut)
	}
}
