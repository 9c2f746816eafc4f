package local

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/prefrag/prefrag/sources/local/vector"
)

// Embedding a corpus: after the text index is written, the passages of
// every file that has no vectors of its current version are embedded with
// the user's model and stored beside the corpus (package vector). A text
// embedded before by the same model is never sent again (vectors are kept
// by model, dimensions and text hash), so indexing twice embeds nothing the
// second time and a changed file costs only its changed passages.

// Embedder turns passages into vectors with the user's embedding model: the
// app gives an llm.EmbedPool of the configured server.
type Embedder interface {
	// Embed returns one unit vector per text, in order; done (may be nil)
	// is called with the number of texts of each finished call.
	Embed(ctx context.Context, texts []string, done func(n int)) ([][]float32, error)
	// Model is the embedding model's name, recorded with the vectors.
	Model() string
	// Server is the kind of server (the backend name), recorded too.
	Server() string
}

// VectorReport says what the embedding part of an ingest did.
type VectorReport struct {
	Model string `json:"model"`
	Dims  int    `json:"dims"`
	// Files whose passages were (re)embedded, and files whose vectors were
	// dropped (gone from the corpus).
	Files   int `json:"files"`
	Removed int `json:"removed_files,omitempty"`
	// Embedded passages were sent to the server; Reused ones had a vector
	// of the same text already.
	Embedded int64 `json:"embedded"`
	Reused   int64 `json:"reused"`
	// Vectors is the number of passages with a vector afterwards.
	Vectors int `json:"vectors"`
	// Calls and Tokens count the server's embedding calls.
	Calls  int64 `json:"calls"`
	Tokens int64 `json:"tokens"`
	// Reembed is set when every passage was embedded again into new
	// vectors; Complete when every passage has one.
	Reembed  bool          `json:"reembed,omitempty"`
	Complete bool          `json:"complete"`
	Duration time.Duration `json:"duration_ns"`
	// Stale counts files whose vectors could not be updated (no
	// embedding server configured).
	Stale int `json:"stale_files,omitempty"`
}

// counted is an Embedder that counts its calls and tokens.
type counted interface {
	Counts() (calls, tokens int64)
}

// EmbedModelError refuses to mix vectors of two embedding models in one
// corpus.
type EmbedModelError struct {
	Corpus     string
	Have, Want string
	HaveDims   int
	// WantDims is the dimensions the model gives now, when known.
	WantDims int
	// Searching is true for a search, false for an ingest.
	Searching bool
}

func (e *EmbedModelError) Error() string {
	if sameModel(e.Have, e.Want) {
		return fmt.Sprintf("corpus %q has vectors of %d dimensions from %s, which now gives %d: embed it again with `prefrag index --reembed --corpus %s`",
			e.Corpus, e.HaveDims, e.Have, e.WantDims, e.Corpus)
	}
	keep := fmt.Sprintf("use --embed-model %s to keep them", e.Have)
	if e.Searching {
		keep = fmt.Sprintf("search it with --embed-model %s", e.Have)
	}
	return fmt.Sprintf("corpus %q was embedded with %s (%d dimensions), not %s: %s, or embed it again with `prefrag index --reembed --corpus %s --embed-model %s`",
		e.Corpus, e.Have, e.HaveDims, e.Want, keep, e.Corpus, e.Want)
}

// ErrEmbedModel is matched by an EmbedModelError.
var ErrEmbedModel = errors.New("another embedding model")

func (e *EmbedModelError) Is(target error) bool { return target == ErrEmbedModel }

// sameModel compares embedding model names, Ollama's implied ":latest"
// aside.
func sameModel(a, b string) bool {
	return strings.TrimSuffix(a, ":latest") == strings.TrimSuffix(b, ":latest")
}

// checkEmbedModel refuses an ingest with another embedding model than the
// corpus's vectors, before anything is written.
func checkEmbedModel(path, name string, opts IndexOptions) error {
	if opts.Embed == nil || opts.Reembed {
		return nil
	}
	meta, err := vector.ReadMeta(vector.Dir(path))
	if err != nil || sameModel(meta.Model, opts.Embed.Model()) {
		return nil
	}
	return &EmbedModelError{Corpus: name, Have: meta.Model, Want: opts.Embed.Model(), HaveDims: meta.Dims}
}

// embedText is what is embedded of a passage: its title, then its text.
func embedText(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n\n" + text
}

func textHash(s string) vector.Hash {
	sum := sha256.Sum256([]byte(s))
	var h vector.Hash
	copy(h[:], sum[:])
	return h
}

// syncVectors brings the corpus's vectors up to date with its passages:
// vectors of files gone from the corpus are dropped (no server needed),
// and, with an embedder, the passages of every file whose current version
// has no vectors are embedded. Without an embedder and without vectors it
// does nothing.
func (w *Writer) syncVectors(ctx context.Context, opts IndexOptions, prog *progressReporter) (_ *VectorReport, err error) {
	defer recoverWrite(w.name, w.path, &err)
	start := time.Now()
	dir := vector.Dir(w.path)
	meta := vector.Meta{}
	if opts.Embed != nil {
		meta = vector.Meta{Model: opts.Embed.Model(), Server: opts.Embed.Server()}
	} else if m, err := vector.ReadMeta(dir); err == nil {
		meta = m
	} else if errors.Is(err, vector.ErrNone) {
		return nil, nil
	} else {
		return nil, err
	}
	vw, err := vector.OpenWriter(dir, meta, vector.WriterOptions{Reembed: opts.Reembed})
	var mm *vector.MismatchError
	if errors.As(err, &mm) {
		return nil, &EmbedModelError{Corpus: w.name, Have: mm.Have.Model, Want: meta.Model, HaveDims: mm.Have.Dims, WantDims: mm.Want.Dims}
	}
	if err != nil {
		return nil, fmt.Errorf("corpus %q: %w", w.name, err)
	}
	defer vw.Close()
	rep := &VectorReport{Model: meta.Model, Reembed: opts.Reembed}
	todo, err := w.vectorWork(vw, rep)
	if err != nil {
		return rep, err
	}
	if opts.Embed == nil {
		rep.Stale = len(todo)
		return w.endVectors(vw, rep, start, len(todo) == 0, nil)
	}
	e := &embedRun{w: w, vw: vw, emb: opts.Embed, todo: todo, rep: rep, prog: prog}
	err = e.run(ctx)
	if errors.As(err, &mm) {
		err = &EmbedModelError{Corpus: w.name, Have: mm.Have.Model, Want: meta.Model, HaveDims: mm.Have.Dims, WantDims: mm.Want.Dims}
	}
	if c, ok := opts.Embed.(counted); ok {
		rep.Calls, rep.Tokens = c.Counts()
	}
	return w.endVectors(vw, rep, start, err == nil, err)
}

// endVectors writes what the run did: Finish when complete, else what was
// embedded so far (a later run resumes after it).
func (w *Writer) endVectors(vw *vector.Writer, rep *VectorReport, start time.Time, complete bool, cause error) (*VectorReport, error) {
	var err error
	if complete {
		err = vw.Finish()
	} else {
		err = vw.Flush()
	}
	rep.Complete = complete && err == nil
	rep.Dims = vw.Meta().Dims
	for _, f := range vw.Files() {
		rep.Vectors += f.Records()
	}
	rep.Duration = time.Since(start)
	if cause != nil {
		return rep, cause
	}
	return rep, err
}

// vectorWork drops the vectors of files gone from the corpus and returns
// the files whose current version has none, with their passage counts.
func (w *Writer) vectorWork(vw *vector.Writer, rep *VectorReport) (map[string]*fileEntry, error) {
	files, err := w.indexedFiles()
	if err != nil {
		return nil, err
	}
	todo := map[string]*fileEntry{}
	for _, f := range files {
		e, err := w.entry(f)
		if err != nil {
			return nil, err
		}
		if e == nil || !e.Complete || e.Passages == 0 {
			continue
		}
		if st, ok := vw.Files()[f]; !ok || st.Hash != e.Hash {
			todo[f] = e
			// A changed file has no vectors until its new version is
			// embedded, never the vectors of an older one.
			vw.RemoveFile(f)
		}
	}
	for f := range vw.Files() {
		if e, _ := w.entry(f); e == nil || !e.Complete {
			vw.RemoveFile(f)
			rep.Removed++
		}
	}
	return todo, nil
}

// snapshot is the writer's reader as a scorch snapshot.
func (w *Writer) snapshot() (*scorch.IndexSnapshot, error) {
	snap, ok := w.reader.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("internal error: index reader is a %T", w.reader)
	}
	return snap, nil
}
