package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/prefrag/prefrag/sources/local"
)

// Stock Bleve, as a user of the library would set it up for the same
// passages: one "body" field (title and text, en analyzer, BM25 scoring)
// that queries match, title and text stored for display, batches of
// stockBatch documents, Bleve's default configuration otherwise.
const (
	stockBatch = 2000
	stockName  = "stock"
)

type stockDoc struct {
	Body  string `json:"body"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

func stockMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = en.AnalyzerName
	body := bleve.NewTextFieldMapping()
	body.Analyzer = en.AnalyzerName
	body.Store = false
	body.IncludeTermVectors = false
	body.IncludeInAll = false
	body.DocValues = false
	stored := bleve.NewTextFieldMapping()
	stored.Index = false
	stored.IncludeTermVectors = false
	stored.IncludeInAll = false
	stored.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("body", body)
	dm.AddFieldMappingsAt("title", stored)
	dm.AddFieldMappingsAt("text", stored)
	im.DefaultMapping = dm
	return im
}

// stockBuild indexes the .jsonl file src into a new stock Bleve index at
// path, streaming it.
func stockBuild(ctx context.Context, src, path string) (int, error) {
	idx, err := bleve.New(path, stockMapping())
	if err != nil {
		return 0, err
	}
	n, err := stockFeed(ctx, idx, src)
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func stockFeed(ctx context.Context, idx bleve.Index, src string) (int, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	batch := idx.NewBatch()
	n := 0
	for {
		var d Doc
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return n, err
		}
		body := d.Text
		if d.Title != "" {
			body = d.Title + "\n" + d.Text
		}
		if err := batch.Index(d.ID, stockDoc{Body: body, Title: d.Title, Text: d.Text}); err != nil {
			return n, err
		}
		n++
		if batch.Size() >= stockBatch {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := idx.Batch(batch); err != nil {
				return n, err
			}
			batch.Reset()
		}
	}
	if batch.Size() > 0 {
		if err := idx.Batch(batch); err != nil {
			return n, err
		}
	}
	return n, nil
}

// stockSearch returns top-k search with stored title and text, as a
// product would display them.
func stockSearch(idx bleve.Index) func(ctx context.Context, q string, k int) (int, error) {
	return func(ctx context.Context, q string, k int) (int, error) {
		mq := bleve.NewMatchQuery(q)
		mq.SetField("body")
		req := bleve.NewSearchRequestOptions(mq, k, 0, false)
		req.Fields = []string{"title", "text"}
		res, err := idx.SearchInContext(ctx, req)
		if err != nil {
			return 0, err
		}
		return len(res.Hits), nil
	}
}

// bleveSegments counts the non-empty segments of an open Bleve index.
func bleveSegments(idx bleve.Index) (int, error) { return local.SegmentCount(idx) }
