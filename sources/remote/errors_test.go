package remote

import (
	"errors"
	"fmt"
	"testing"

	"github.com/prefrag/prefrag/sources"
)

func TestFailureCategories(t *testing.T) {
	kind, other := errors.New("kind"), errors.New("other")
	for _, tc := range []struct {
		c      Category
		target error
		want   bool
	}{
		{Unavailable, kind, true},
		{Unavailable, sources.ErrUnavailable, true},
		{Unavailable, other, false},
		{Unavailable, sources.ErrTruncated, false},
		{Misconfigured, kind, true},
		{Misconfigured, sources.ErrUnavailable, false},
	} {
		if got := tc.c.Is(kind, tc.target); got != tc.want {
			t.Errorf("category %d, target %v: %v, want %v", tc.c, tc.target, got, tc.want)
		}
	}
	partial := errors.New("partial")
	err := fmt.Errorf("search: %w", &PartialError{Source: "local:wiki", Kind: partial, Missing: "answered from 1 of 2 shards", Results: 3})
	if !errors.Is(err, partial) || !errors.Is(err, sources.ErrTruncated) || errors.Is(err, sources.ErrUnavailable) {
		t.Errorf("%v matches the wrong sentinels", err)
	}
	if want := "search: local:wiki answered from 1 of 2 shards; 3 result(s) were read, documents on the missing shards are lost"; err.Error() != want {
		t.Errorf("%q, want %q", err.Error(), want)
	}
}
