//go:build !sqlite_fts5

package retrieval

import "context"

// fts5Available is false: this binary was built without the sqlite_fts5 tag.
const fts5Available = false

func buildFTS5(context.Context, string, *Dataset, bool) (*built, error) {
	return nil, ErrFTS5NotBuilt
}
