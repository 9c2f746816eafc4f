package local

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/local/bm25"
)

// Options tune a Corpus opened for searching.
type Options struct {
	// TitleBoost, when positive, adds TitleBoost times a BM25 score computed
	// over titles alone to the body score. 0 (the default) ranks title and
	// text together as one field, which measured best.
	TitleBoost float64
	// TitleHeuristics re-ranks the top TitleCandidates hits so that
	// passages whose title equals the query (exactly, then ignoring case)
	// or appears in it come first, as the PrefRAG reference code does.
	// Open turns it on (see DefaultOptions); the zero Options leave it off.
	TitleHeuristics bool
	// BM25 parameters; zero means bm25.Default (k1 1.2, b 0.75).
	BM25 bm25.Params
	// IdleRelease overrides the package IdleRelease: how long the index
	// stays open after a search. Negative keeps it open until Close.
	IdleRelease time.Duration
	// Exhaustive scores every posting: no MaxScore pruning and no block
	// bounds. The ranking is the same (search_equiv_test.go); it is for
	// checking that, and slower.
	Exhaustive bool
	// tuning are the search's thresholds; tests lower them.
	tuning searchTuning
	// Search by meaning (hybrid.go): the retrieval mode
	// (sources.Retrieval*; "" is hybrid for a corpus with vectors when an
	// Embedder is set, else BM25), the embedder of queries, the weights of
	// the legs in the fusion, how many passages each leg ranks (Depth,
	// default max(k, TitleCandidates)) and how many candidates by code are
	// rescored (Rerank, default vector.DefaultRerank).
	Retrieval string
	Embedder  Embedder
	Weights   sources.Weights
	Depth     int
	Rerank    int
}

// Corpus is a local corpus opened for searching. It implements the engine's
// Source interface and is safe for concurrent use. The underlying index is
// opened read-only on demand and released after IdleRelease without use, so
// that other processes can search it at the same time and `prefrag index`
// can update it while a long-running process keeps the Corpus.
type Corpus struct {
	name, path string
	opts       Options

	mu     sync.Mutex
	h      *handle
	timer  *time.Timer
	closed bool
}

// handle is one read-only open of the index.
type handle struct {
	idx   bleve.Index
	stats collectionStats
	en    analysis.Analyzer
	refs  int
	// bounds keeps the block bounds of long lists (blockmax.go).
	bounds boundsCache
	// stored reads passages from the segment files (stored.go).
	stored storedFiles
	// vec is the vector index, opened at the first search by meaning
	// (hybrid.go).
	vec vectorHandle
}

// Open opens corpus name under dir for searching.
func Open(dir, name string) (*Corpus, error) {
	return OpenWith(dir, name, DefaultOptions())
}

// DefaultOptions are the product's ranking: textbook BM25 over title and
// text, then the title heuristics, which raised supporting-paragraph
// recall@5 and @10 on all four multi-hop pools of `prefrag bench retrieval`
// (HotpotQA: 0.780 → 0.851 and 0.925 → 0.934) and left Vaswani and
// Cranfield unchanged.
func DefaultOptions() Options { return Options{TitleHeuristics: true} }

// OpenWith is Open with options. It fails with ErrNotFound for a missing
// corpus; a corpus that another process is indexing right now opens, and
// its searches fail with ErrBusy until the indexing ends.
func OpenWith(dir, name string, opts Options) (*Corpus, error) {
	path, err := corpusPath(dir, name)
	if err != nil {
		return nil, err
	}
	if !exists(path) {
		return nil, &NotFoundError{Name: name}
	}
	if opts.BM25 == (bm25.Params{}) {
		opts.BM25 = bm25.Default
	}
	if opts.IdleRelease == 0 {
		opts.IdleRelease = IdleRelease
	}
	c := &Corpus{name: name, path: path, opts: opts}
	h, err := c.acquire()
	if err != nil {
		if isBusy(err) {
			return c, nil
		}
		return nil, err
	}
	c.release(h)
	return c, nil
}

func isBusy(err error) bool {
	_, ok := err.(*BusyError)
	return ok
}

// Name is "local:<corpus>".
func (c *Corpus) Name() string { return sourceName(c.name) }

// CorpusName is the bare corpus name.
func (c *Corpus) CorpusName() string { return c.name }

// Kind is sources.KindLocal.
func (c *Corpus) Kind() sources.Kind { return sources.KindLocal }

// acquire returns an open handle, opening the index if needed.
func (c *Corpus) acquire() (*handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.h == nil {
		h, err := openHandle(c.path, c.name)
		if err != nil {
			return nil, err
		}
		c.h = h
	}
	c.h.refs++
	return c.h, nil
}

func (c *Corpus) release(h *handle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h.refs--
	if h != c.h || h.refs > 0 || c.closed || c.opts.IdleRelease < 0 {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(c.opts.IdleRelease, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.timer != t || c.h == nil || c.h.refs > 0 {
			return
		}
		_ = c.h.close()
		c.h = nil
		c.timer = nil
	})
	c.timer = t
}

// openHandle opens the index read-only. A damaged index, including one
// that makes the index library panic, is a DamagedError.
func openHandle(path, name string) (_ *handle, err error) {
	defer recoverDamaged(name, &err)
	if err := checkSegments(name, path, ReadLockTimeout, false); err != nil {
		return nil, err
	}
	idx, err := bleve.OpenUsing(path, map[string]interface{}{
		"read_only":    true,
		"bolt_timeout": ReadLockTimeout.String(),
	})
	if err != nil {
		return nil, damagedOpen(name, path, err, false)
	}
	h := &handle{idx: idx, en: lookupAnalyzers(idx.Mapping()).en}
	raw, err := idx.GetInternal([]byte(keyStats))
	if err == nil {
		h.stats, err = decodeStats(raw)
	}
	if err != nil {
		_ = idx.Close()
		return nil, &DamagedError{Name: name, Reason: "its statistics cannot be read: " + oneLineValue(err)}
	}
	if h.en == nil {
		_ = idx.Close()
		return nil, &DamagedError{Name: name, Reason: "its text analyzer is missing"}
	}
	return h, nil
}

// close closes the index, the files its passages are read from and its
// vectors (hybrid.go).
func (h *handle) close() error {
	return errors.Join(h.idx.Close(), h.stored.close(), h.vec.close())
}

// Stats reads the corpus statistics.
func (c *Corpus) Stats() (_ Stats, err error) {
	defer recoverDamaged(c.name, &err)
	h, err := c.acquire()
	if err != nil {
		return Stats{}, err
	}
	defer c.release(h)
	return handleStats(h, c.path)
}

func handleStats(h *handle, path string) (Stats, error) {
	n, err := h.idx.DocCount()
	if err != nil {
		return Stats{}, err
	}
	return Stats{
		Documents: h.stats.Documents,
		Passages:  int64(n),
		SizeBytes: DirSize(path),
		Updated:   h.stats.Updated,
	}, nil
}

// statsAt opens a corpus briefly to read its statistics.
func statsAt(path, name string) (_ Stats, err error) {
	defer recoverDamaged(name, &err)
	h, err := openHandle(path, name)
	if err != nil {
		return Stats{}, err
	}
	defer h.close()
	return handleStats(h, path)
}

// DirSize is the total size of the files below path (what a corpus takes
// on disk); unreadable entries count as 0.
func DirSize(path string) int64 {
	var total int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, ierr := d.Info(); ierr == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// Close releases the index. Searches after Close fail with ErrClosed.
func (c *Corpus) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.h == nil {
		return nil
	}
	err := c.h.close()
	c.h = nil
	return err
}

// Search returns the k best passages for query, best first: by BM25, or
// with vectors by meaning too (Options.Retrieval, hybrid.go). The query is
// plain text: it is analysed like the passages and never parsed as query
// syntax, so '?', '+', '-', ':' and quotes mean nothing special.
func (c *Corpus) Search(ctx context.Context, query string, k int) (_ []sources.Document, err error) {
	defer recoverDamaged(c.name, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, err := c.acquire()
	if err != nil {
		return nil, err
	}
	defer c.release(h)
	if c.opts.Retrieval != sources.RetrievalBM25 && (c.opts.Retrieval != "" || c.opts.Embedder != nil) {
		return c.searchMeaning(ctx, h, query, k)
	}
	return c.searchWords(ctx, h, query, k)
}

// searchWords is the BM25 search of an open handle.
func (c *Corpus) searchWords(ctx context.Context, h *handle, query string, k int) ([]sources.Document, error) {
	heuristics := c.opts.TitleHeuristics && k > 0
	n := k
	if heuristics {
		n = max(k, TitleCandidates)
	}
	hits, err := search(ctx, h, query, n, c.opts)
	if err != nil {
		return nil, err
	}
	if heuristics {
		hits = rerankByTitle(query, hits, k)
	}
	for i := range hits {
		hits[i].Source = c.Name()
	}
	return hits, nil
}

// String is for logs.
func (c *Corpus) String() string { return c.Name() }

var _ interface {
	Name() string
	Kind() sources.Kind
	Search(context.Context, string, int) ([]sources.Document, error)
} = (*Corpus)(nil)
