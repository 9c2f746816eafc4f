package app

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/sources/local/vector"
)

// Embeddings come from the user's own server: --embed-model on --embed-url
// (a server of backend --embed-llm), by default the LLM server. A corpus
// embedded before keeps its model: with no --embed-model, its recorded
// model (and server kind) is used, so indexing keeps its vectors current
// and a search embeds its query with the model that embedded it.

// Embedder is an embedding client as corpora use it: an llm.EmbedPool of
// the configured server, with its backend named and its query vectors
// kept for the run (a question searched in several corpora, or twice, is
// embedded once).
type Embedder struct {
	pool        *llm.EmbedPool
	server, url string

	mu      sync.Mutex
	queries map[string][]float32
}

// Embed embeds texts; a single text (a query) is answered from the run's
// memory when it was embedded before.
func (e *Embedder) Embed(ctx context.Context, texts []string, done func(int)) ([][]float32, error) {
	if len(texts) != 1 {
		return e.pool.Embed(ctx, texts, done)
	}
	e.mu.Lock()
	v, ok := e.queries[texts[0]]
	e.mu.Unlock()
	if ok {
		return [][]float32{v}, nil
	}
	vecs, err := e.pool.Embed(ctx, texts, done)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.queries[texts[0]] = vecs[0]
	e.mu.Unlock()
	return vecs, nil
}

// Model is the embedding model's name.
func (e *Embedder) Model() string { return e.pool.Model() }

// Server is the backend name of the embedding server.
func (e *Embedder) Server() string { return e.server }

// Counts are the embedding calls and tokens so far.
func (e *Embedder) Counts() (calls, tokens int64) {
	c := e.pool.Counts()
	return c.Calls, c.Tokens
}

// EmbedderFor builds the embedder of a corpus: the configured embedding
// model, else the one the corpus was embedded with (meta, nil for a corpus
// without vectors). It returns nil when neither names one.
func (a *App) EmbedderFor(s engine.RunConfig, meta *vector.Meta) (*Embedder, error) {
	backend, model := s.EmbedLLM, s.EmbedModel
	if meta != nil {
		if backend == "" {
			backend = meta.Server
		}
		if model == "" {
			model = meta.Model
		}
	}
	if backend == "" {
		backend = s.LLM
	}
	if model == "" && s.EmbedURL == "" {
		return nil, nil
	}
	url := s.EmbedURL
	if url == "" {
		url = llm.BackendOf(backend).DefaultURL
		if backend == s.LLM {
			url = s.LLMURL
		}
	}
	t, check := a.Cfg.LLMTimeout, 10*time.Second
	if t > 0 && t < check {
		check = t
	}
	e, err := llm.NewEmbedder(backend, url, model, llm.WithFirstByteTimeout(t), llm.WithCheckTimeout(check))
	if err != nil {
		return nil, err
	}
	return &Embedder{pool: &llm.EmbedPool{E: e}, server: backend, url: url, queries: map[string][]float32{}}, nil
}

// Resolve learns the model's name from the server when none was given (a
// llama-server names the one it serves) with one embedding call.
func (e *Embedder) Resolve(ctx context.Context) error {
	if e.Model() != "" {
		return nil
	}
	_, err := e.pool.Embed(ctx, []string{"prefrag"}, nil)
	return err
}

// corpusVectors is the meta of a local corpus's vectors, nil when it has
// none.
func (a *App) corpusVectors(name string) *vector.Meta {
	m, err := vector.ReadMeta(vector.Dir(filepath.Join(a.Cfg.CorporaDir(), name)))
	if err != nil {
		return nil
	}
	return &m
}

// IndexEmbedder is the embedder an ingest into corpus name uses: the
// configured model, else the corpus's own (to keep its vectors current);
// nil when neither.
func (a *App) IndexEmbedder(ctx context.Context, s engine.RunConfig, name string) (*Embedder, error) {
	e, err := a.EmbedderFor(s, a.corpusVectors(name))
	if e == nil || err != nil {
		return e, err
	}
	return e, e.Resolve(ctx)
}

// SearchOptions are the options a local corpus is opened with for a run:
// the retrieval mode, the fusion weights, and the embedder of queries when
// the corpus is searched by meaning.
func (a *App) SearchOptions(s engine.RunConfig, name string, embedders map[string]*Embedder) (local.Options, error) {
	opts := local.DefaultOptions()
	opts.Retrieval = s.Retrieval
	opts.Weights = sources.Weights{BM25: a.Cfg.BM25Weight, Vector: a.Cfg.VectorWeight}
	if s.Retrieval == sources.RetrievalBM25 {
		return opts, nil
	}
	meta := a.corpusVectors(name)
	if meta == nil && s.Retrieval == "" {
		return opts, nil
	}
	e, err := a.EmbedderFor(s, meta)
	if err != nil || e == nil {
		return opts, err
	}
	opts.Embedder = shared(embedders, e)
	return opts, nil
}

// shared is the run's embedder of the same server and model as e (a query
// searched in two corpora embedded by one model is embedded once), else e,
// kept for the next.
func shared(embedders map[string]*Embedder, e *Embedder) *Embedder {
	if e == nil {
		return nil
	}
	key := e.server + "\x00" + e.url + "\x00" + e.Model()
	if have, ok := embedders[key]; ok {
		return have
	}
	embedders[key] = e
	return e
}

// OpenLocal opens a local corpus for a run's searches, refusing at once
// an embedding model other than the one its vectors were made with.
func (a *App) OpenLocal(s engine.RunConfig, name string, embedders map[string]*Embedder) (*local.Corpus, error) {
	opts, err := a.SearchOptions(s, name, embedders)
	if err != nil {
		return nil, err
	}
	c, err := local.OpenWith(a.Cfg.CorporaDir(), name, opts)
	if err != nil {
		return nil, err
	}
	if err := c.CheckEmbedModel(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// IsEmbedFailure reports whether err is the embedding server's trouble
// (for the message after an ingest whose text index is written).
func IsEmbedFailure(err error) bool {
	return errors.Is(err, llm.ErrCannotEmbed) || errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound) ||
		errors.Is(err, llm.ErrTimeout) || errors.Is(err, llm.ErrLoading) || errors.As(err, new(*llm.ServerError))
}
