package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// SessionIDLength is the length of the ids prefrag makes (app.NewSessionID):
// 32 lowercase hexadecimal digits, the same shape as the UUIDv7s without
// dashes that earlier versions made.
const SessionIDLength = 32

// ErrBadID is matched when a session id is not one prefrag makes.
var ErrBadID = errors.New("not a prefrag session id")

// BadIDError says why an id from outside (an import) was refused. Its text
// quotes the id with Go escapes and cut short, so printing it never prints
// the id's control characters.
type BadIDError struct {
	ID  string
	Why string
}

func (e *BadIDError) Error() string {
	return fmt.Sprintf("the session id %s is not one prefrag makes (%d lowercase hexadecimal digits): %s",
		strconv.Quote(textsafe.Truncate(e.ID, 40)), SessionIDLength, e.Why)
}

func (e *BadIDError) Is(target error) bool { return target == ErrBadID || target == ErrInvalid }

// QuoteID is id for a message about an id that may be hostile: at most 40
// characters, Go-quoted (an escape character shows as \x1b), with its length
// when it was cut.
func QuoteID(id string) string {
	q := strconv.Quote(textsafe.Truncate(id, 40))
	if n := utf8.RuneCountInString(id); n > 40 {
		q += fmt.Sprintf(" (%d characters)", n)
	}
	return q
}

// CheckSessionID returns a *BadIDError unless id has the form of the ids
// prefrag makes. Ids travel into terminals, file names and command lines,
// so an imported session must not bring any other.
func CheckSessionID(id string) error {
	switch n := utf8.RuneCountInString(id); {
	case id == "":
		return &BadIDError{ID: id, Why: "it is empty"}
	case n != SessionIDLength:
		return &BadIDError{ID: id, Why: fmt.Sprintf("it has %d characters", n)}
	}
	n := 0
	for _, r := range id {
		n++
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return &BadIDError{ID: id, Why: fmt.Sprintf("character %d is %q", n, r)}
		}
	}
	return nil
}

// ErrTakesOver is matched when an import would take over the id, or a
// printed short id, of a stored session.
var ErrTakesOver = errors.New("the id would take over another session's")

// checkNoTakeover refuses an imported id that begins another stored
// session's id: typed, that prefix opens the stored session today (a full
// id wins over a prefix), and would open the import instead.
func checkNoTakeover(ctx context.Context, tx *sql.Tx, id string) error {
	var other string
	err := tx.QueryRowContext(ctx, "SELECT id FROM sessions WHERE id GLOB ? AND id <> ? ORDER BY id LIMIT 1", globPrefix(id), id).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: it is the start of the stored session %s, which %s opens today", ErrTakesOver, QuoteID(other), QuoteID(id))
}
