//go:build !sqlite_fts5

package retrieval

import (
	"context"
	"errors"
	"testing"
)

func TestFTS5NotBuiltIn(t *testing.T) {
	_, err := buildFTS5(context.Background(), t.TempDir(), &Dataset{Name: "x"}, false)
	if !errors.Is(err, ErrFTS5NotBuilt) || err.Error() != "FTS5 reference not built in: run with -tags sqlite_fts5" {
		t.Errorf("err = %v", err)
	}
}
