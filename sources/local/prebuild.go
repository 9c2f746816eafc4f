package local

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zapv17 "github.com/blevesearch/zapx/v17"
)

// Building a batch's segment is most of the cost of writing it, and Bleve
// does it inside Batch, one batch after another, on one core. A writer
// builds the segment of each batch itself, in the background and on as
// many cores as it has, while earlier batches are still being written;
// Batch is then handed the finished segment by the segment plugin below, so
// that what Batch does in turn (introducing the segment, making it durable)
// is short. Batches are still written one at a time and in order, so what
// is durable after a crash is what it was: every batch up to some point.
//
// The plugin is Bleve's own zap v17 in every other respect: segments are
// opened, merged and stored exactly as zap v17 does, and a corpus written
// with it is an ordinary Bleve index.

// segmentType and segmentVersion are the zap format corpora are written in.
const (
	segmentType    = "zap"
	segmentVersion = 17
)

func init() {
	// Registered as zap v17 but not as the default: Bleve indexes that do
	// not ask for it (see writerConfig) keep using zap v17 itself, and
	// segments recorded as zap v17 open through it, which delegates.
	scorch.RegisterSegmentPlugin(&prebuiltPlugin{&zapv17.ZapPlugin{}}, false)
}

// prebuiltPlugin is zap v17 that returns a segment built beforehand when
// the documents it is asked to turn into a segment carry one.
type prebuiltPlugin struct{ *zapv17.ZapPlugin }

func (p *prebuiltPlugin) New(results []index.Document) (segment.Segment, uint64, error) {
	return p.NewUsing(results, nil)
}

func (p *prebuiltPlugin) NewUsing(results []index.Document, config map[string]interface{}) (segment.Segment, uint64, error) {
	if len(results) > 0 {
		if d, ok := results[0].(*batchDoc); ok {
			if seg, n, err, ok := d.pre.take(len(results)); ok {
				return seg, n, err
			}
			// Its documents show Bleve no fields any more (see batchDoc):
			// a segment built from them now would be empty.
			return nil, 0, fmt.Errorf("internal error: a batch of %d passages without the segment built for it", len(results))
		}
	}
	return p.ZapPlugin.NewUsing(results, config)
}

// batchDoc is a passage document of a batch whose segment is built
// beforehand. Once it is, the document has nothing left to do in Bleve's
// Batch, which visits every document again (analysing its id and file
// fields once more, sizing its term frequencies for statistics) before it
// asks for the segment: a built batchDoc shows it no fields and its size
// as counted when it was queued.
type batchDoc struct {
	*document.Document
	pre  *prebuilt
	size int
}

func (d *batchDoc) built() bool { return d.pre != nil && d.pre.finished.Load() }

func (d *batchDoc) VisitFields(visitor index.FieldVisitor) {
	if d.built() {
		return
	}
	d.Document.VisitFields(visitor)
}

func (d *batchDoc) AddIDField() {
	if d.built() {
		return
	}
	d.Document.AddIDField()
}

func (d *batchDoc) Size() int {
	if d.built() {
		return d.size
	}
	return d.Document.Size()
}

// prebuilt is the segment of one batch, built in the background.
type prebuilt struct {
	done     chan struct{}
	finished atomic.Bool // set just before done is closed
	mu       sync.Mutex
	seg      segment.Segment
	bytes    uint64
	err      error
	docs     int
	taken    bool
}

// prebuiltSegments counts the segments Bleve was handed ready-built.
var prebuiltSegments atomic.Int64

// prebuildSlots bounds the segments built at the same time: each holds a
// batch's worth of memory.
var prebuildSlots = make(chan struct{}, 2)

// prebuild starts building the segment of docs in the background. The
// documents get their _id field now (Bleve adds one more when the batch is
// written; the segment built here already has it).
func prebuild(docs []*batchDoc) *prebuilt {
	pre := &prebuilt{done: make(chan struct{}), docs: len(docs)}
	results := make([]index.Document, len(docs))
	for i, d := range docs {
		d.pre = pre
		results[i] = d.Document
	}
	go func() {
		defer close(pre.done)
		defer pre.finished.Store(true)
		prebuildSlots <- struct{}{}
		defer func() { <-prebuildSlots }()
		defer func() {
			if r := recover(); r != nil {
				pre.err = fmt.Errorf("building a segment: %v", r)
			}
		}()
		for _, d := range docs {
			d.Document.AddIDField()
			// What Bleve's Batch does before building a segment: analyse
			// the indexed fields (passage text is analysed already, see
			// preAnalyzed; the id and file fields are not).
			d.VisitFields(func(f index.Field) {
				if f.Options().IsIndexed() {
					f.Analyze()
				}
			})
		}
		pre.seg, pre.bytes, pre.err = (&zapv17.ZapPlugin{}).NewUsing(results, nil)
		// The segment holds what the batch needs now: the documents'
		// fields (term frequencies above all) are garbage, though the
		// batch keeps the documents until it is written.
		for _, d := range docs {
			d.Document.Fields = nil
		}
	}()
	return pre
}

// take hands the segment over once, when it was built for n documents.
func (p *prebuilt) take(n int) (segment.Segment, uint64, error, bool) {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taken || n != p.docs {
		return nil, 0, nil, false
	}
	p.taken = true
	if p.err == nil {
		prebuiltSegments.Add(1)
	}
	return p.seg, p.bytes, p.err, true
}

// discard releases a segment that was never handed to Bleve.
func (p *prebuilt) discard() {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.taken && p.seg != nil {
		_ = p.seg.Close()
	}
	p.taken = true
}
