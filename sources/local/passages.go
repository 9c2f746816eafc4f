package local

import (
	"context"
)

// Passages calls fn with the title and text of every passage of the
// corpus, in no particular order, from one consistent view of the index
// (what a search would see now). It stops at the first error fn returns,
// and when ctx is done. It reads the stored fields only: what a never-leave
// corpus's distinctive strings are built from (package distinct).
func (c *Corpus) Passages(ctx context.Context, fn func(title, text string) error) (err error) {
	defer recoverDamaged(c.name, &err)
	h, err := c.acquire()
	if err != nil {
		return err
	}
	defer c.release(h)
	snap, err := h.snapshot()
	if err != nil {
		return err
	}
	defer snap.Close()
	for _, s := range snap.Segments() {
		deleted := s.Deleted()
		for num := uint64(0); num < uint64(s.FullSize()); num++ {
			if deleted != nil && deleted.Contains(uint32(num)) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			var title, text string
			err := s.VisitDocument(num, func(field string, _ byte, value []byte, _ []uint64) bool {
				switch field {
				case fieldTitle:
					title = string(value)
				case fieldText:
					text = string(value)
				}
				return true
			})
			if err != nil {
				return err
			}
			if title == "" && text == "" {
				continue
			}
			if err := fn(title, text); err != nil {
				return err
			}
		}
	}
	return nil
}
