//go:build sqlite_fts5

package retrieval

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	// The sqlite3 driver; the sqlite_fts5 build tag compiles FTS5 into it.
	_ "github.com/mattn/go-sqlite3"
)

// fts5Available is true: this binary has FTS5 compiled in.
const fts5Available = true

// FTS5TitleWeight is the title column weight measured beside the default
// (1, the same weight as the text).
const FTS5TitleWeight = 2.0

// buildFTS5 indexes ds into an FTS5 table (id unindexed, title, text; the
// text is stored, as Bleve stores it) in a fresh SQLite file, in one
// transaction followed by an 'optimize' merge; the timing covers both.
func buildFTS5(ctx context.Context, dir string, ds *Dataset, withVariants bool) (*built, error) {
	base := filepath.Join(dir, "fts5")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(base, ds.Name+".db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	b := &built{engine: EngineFTS5, close: db.Close}
	fail := func(err error) (*built, error) {
		db.Close()
		return nil, fmt.Errorf("indexing %s with FTS5: %w", ds.Name, err)
	}
	start := time.Now()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = '`+FTS5Tokenizer+`')`); err != nil {
		return fail(err)
	}
	if err := insertDocs(ctx, db, ds.Docs); err != nil {
		return fail(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO docs(docs) VALUES('optimize')`); err != nil {
		return fail(err)
	}
	b.duration = time.Since(start)
	b.passages = len(ds.Docs)
	if b.size, err = filesSize(path, path+"-wal"); err != nil {
		return fail(err)
	}
	weights := []struct {
		system string
		title  float64
	}{{EngineFTS5, 1}}
	if withVariants && ds.HasTitles() {
		weights = append(weights, struct {
			system string
			title  float64
		}{fmt.Sprintf("%s title weight %g", EngineFTS5, FTS5TitleWeight), FTS5TitleWeight})
	}
	for _, w := range weights {
		// bm25() takes one weight per column: id (unindexed), title, text.
		stmt, err := db.PrepareContext(ctx, fmt.Sprintf(
			`SELECT id, title, text FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 1.0, %g, 1.0) LIMIT ?`, w.title))
		if err != nil {
			return fail(err)
		}
		b.rankers = append(b.rankers, ranker{system: w.system, search: fts5Search(stmt)})
	}
	return b, nil
}

func insertDocs(ctx context.Context, db *sql.DB, docs []Doc) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO docs(id, title, text) VALUES(?, ?, ?)`)
	if err != nil {
		tx.Rollback()
		return err
	}
	for _, d := range docs {
		if _, err := stmt.ExecContext(ctx, d.ID, d.Title, d.Text); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := stmt.Close(); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// fts5Search runs a prepared ranking statement; it reads the stored title
// and text of every hit, as a Bleve search does.
func fts5Search(stmt *sql.Stmt) func(ctx context.Context, query string, k int) ([]string, error) {
	return func(ctx context.Context, query string, k int) ([]string, error) {
		match := FTS5MatchQuery(query)
		if match == "" || k <= 0 {
			return nil, nil
		}
		rows, err := stmt.QueryContext(ctx, match, k)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id, title, text string
			if err := rows.Scan(&id, &title, &text); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, errors.Join(rows.Err(), rows.Close())
	}
}
