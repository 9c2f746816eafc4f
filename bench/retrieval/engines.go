package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prefrag/prefrag/sources/local"
)

// ErrFTS5NotBuilt is returned when the binary was built without the
// sqlite_fts5 tag, so the reference implementation cannot run.
var ErrFTS5NotBuilt = errors.New("FTS5 reference not built in: run with -tags sqlite_fts5")

// Engine names.
const (
	EngineBleve = "bleve"
	EngineFTS5  = "fts5"
	// EngineHybrid is the product's corpus embedded with the user's
	// embedding model (Config.Embedder), searched hybrid and dense.
	EngineHybrid = "bleve+vectors"
)

// buildHybrid indexes ds as buildBleve does, then embeds it with e (the
// build time covers both), and ranks it hybrid (the product's default for
// a corpus with vectors) and dense.
func buildHybrid(e local.Embedder) builder {
	return func(ctx context.Context, dir string, ds *Dataset, _ bool) (*built, error) {
		file, err := writeSource(dir, ds)
		if err != nil {
			return nil, err
		}
		corpora := filepath.Join(dir, "hybrid")
		start := time.Now()
		rep, err := local.Index(ctx, corpora, ds.Name, []string{file}, local.IndexOptions{Embed: e})
		if err != nil {
			return nil, fmt.Errorf("indexing and embedding %s: %w", ds.Name, err)
		}
		b := &built{engine: EngineHybrid, duration: time.Since(start), passages: int(rep.Passages), size: rep.Stats.SizeBytes}
		var opened []*local.Corpus
		b.close = func() error {
			var errs []error
			for _, c := range opened {
				errs = append(errs, c.Close())
			}
			return errors.Join(errs...)
		}
		for _, mode := range []string{"hybrid", "dense"} {
			opts := local.DefaultOptions()
			opts.IdleRelease, opts.Retrieval, opts.Embedder = -1, mode, e
			c, err := local.OpenWith(corpora, ds.Name, opts)
			if err != nil {
				b.close()
				return nil, err
			}
			opened = append(opened, c)
			b.rankers = append(b.rankers, ranker{system: EngineBleve + " " + mode, search: bleveSearch(c)})
		}
		return b, nil
	}
}

// ranker is one way of ranking an index: the engine's default, or a title
// variant.
type ranker struct {
	system string
	search func(ctx context.Context, query string, k int) ([]string, error)
}

// built is one dataset indexed by one engine.
type built struct {
	engine   string
	duration time.Duration
	passages int
	size     int64
	// rankers: the default first, then the title variants.
	rankers []ranker
	close   func() error
}

// builder indexes a dataset under dir. withVariants asks for the title
// variants too (quality runs on datasets with titles).
type builder func(ctx context.Context, dir string, ds *Dataset, withVariants bool) (*built, error)

// BleveTitleBoost is the title boost measured beside the default (0) ranking.
const BleveTitleBoost = 1.0

// buildBleve indexes ds with the product's local corpus code: the documents
// are written to a .jsonl file (id, title, text) and ingested exactly as
// `prefrag index` would; the timing covers the ingest only.
func buildBleve(ctx context.Context, dir string, ds *Dataset, withVariants bool) (*built, error) {
	file, err := writeSource(dir, ds)
	if err != nil {
		return nil, err
	}
	corpora := filepath.Join(dir, "bleve")
	start := time.Now()
	rep, err := local.Index(ctx, corpora, ds.Name, []string{file}, local.IndexOptions{})
	took := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("indexing %s with Bleve: %w", ds.Name, err)
	}
	if len(rep.Failed) > 0 {
		return nil, fmt.Errorf("indexing %s with Bleve: %d lines refused, first: %s", ds.Name, len(rep.Failed), rep.Failed[0])
	}
	b := &built{engine: EngineBleve, duration: took, passages: int(rep.Passages), size: rep.Stats.SizeBytes}
	var opened []*local.Corpus
	open := func(system string, opts local.Options) error {
		opts.IdleRelease = -1
		c, err := local.OpenWith(corpora, ds.Name, opts)
		if err != nil {
			return err
		}
		opened = append(opened, c)
		b.rankers = append(b.rankers, ranker{system: system, search: bleveSearch(c)})
		return nil
	}
	b.close = func() error {
		var errs []error
		for _, c := range opened {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
	if err := open(EngineBleve, local.Options{}); err != nil {
		return nil, err
	}
	if withVariants && ds.HasTitles() {
		if err := open(fmt.Sprintf("%s title boost %g", EngineBleve, BleveTitleBoost), local.Options{TitleBoost: BleveTitleBoost}); err != nil {
			b.close()
			return nil, err
		}
		if err := open(EngineBleve+" title heuristics", local.Options{TitleHeuristics: true}); err != nil {
			b.close()
			return nil, err
		}
	}
	return b, nil
}

// bleveSearch ranks with a corpus and maps passage ids back to document ids
// (a .jsonl line longer than local.JSONLSplitWords words is split into
// ID#1, ID#2, …; a document counts once, at its best passage).
func bleveSearch(c *local.Corpus) func(ctx context.Context, query string, k int) ([]string, error) {
	return func(ctx context.Context, query string, k int) ([]string, error) {
		docs, err := c.Search(ctx, query, k)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(docs))
		seen := make(map[string]bool, len(docs))
		for _, d := range docs {
			id := d.ID
			if i := strings.LastIndexByte(id, '#'); i > 0 {
				id = id[:i]
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
}

// writeSource writes ds's documents as the .jsonl file (id, title, text)
// a build ingests, under dir/src, and returns its path.
func writeSource(dir string, ds *Dataset) (string, error) {
	src := filepath.Join(dir, "src", ds.Name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(src, ds.Name+".jsonl")
	return file, writeJSONL(file, ds.Docs)
}

func writeJSONL(path string, docs []Doc) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// filesSize is the total size of the files that exist among paths.
//
//lint:ignore U1000 used by the sqlite_fts5 build (fts5.go)
func filesSize(paths ...string) (int64, error) {
	var n int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += st.Size()
	}
	return n, nil
}
