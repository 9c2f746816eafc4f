package local

import (
	"context"
	"errors"
	"fmt"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/prefrag/prefrag/sources"
)

// ErrNoPassage is matched when a corpus holds no passage with the id asked
// for.
var ErrNoPassage = errors.New("no such passage")

// NoPassageError names the passage a corpus does not hold.
type NoPassageError struct{ Corpus, ID string }

func (e *NoPassageError) Error() string {
	return fmt.Sprintf("corpus %s holds no passage %q (it may have been re-indexed since: search again for its current id)", e.Corpus, e.ID)
}

func (e *NoPassageError) Is(target error) bool { return target == ErrNoPassage }

// Passage reads one stored passage by its id, whole, as a search would
// return it (without a score). A passage the corpus does not hold is a
// NoPassageError.
func (c *Corpus) Passage(ctx context.Context, id string) (_ sources.Document, err error) {
	defer recoverDamaged(c.name, &err)
	if err := ctx.Err(); err != nil {
		return sources.Document{}, err
	}
	h, err := c.acquire()
	if err != nil {
		return sources.Document{}, err
	}
	defer c.release(h)
	doc, err := h.idx.Document(id)
	if err != nil {
		return sources.Document{}, err
	}
	if doc == nil {
		return sources.Document{}, &NoPassageError{Corpus: c.name, ID: id}
	}
	d := sources.Document{ID: id, Source: c.Name()}
	doc.VisitFields(func(f index.Field) {
		switch f.Name() {
		case fieldTitle:
			d.Title = string(f.Value())
		case fieldText:
			d.Text = string(f.Value())
		case fieldLoc:
			d.Locator = string(f.Value())
		case fieldURL:
			d.URL = string(f.Value())
		}
	})
	return d, nil
}
