package store

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound is matched (errors.Is) when a session, or a session's event,
// does not exist.
var ErrNotFound = errors.New("not found")

// ErrAmbiguous is matched when an id prefix names more than one session.
var ErrAmbiguous = errors.New("ambiguous session id")

// ErrNewerSchema is matched when the database was written by a newer prefrag.
var ErrNewerSchema = errors.New("database schema is newer than this prefrag")

// ErrExists is matched when an imported session id is already in the
// database.
var ErrExists = errors.New("already exists")

// ErrInvalid is matched by arguments the store refuses (an unknown status,
// counts that are not JSON, an event without a session).
var ErrInvalid = errors.New("invalid argument")

// NewerSchemaError says which schema the file has and which this binary knows.
// The database is left untouched.
type NewerSchemaError struct {
	Path  string
	Found int // PRAGMA user_version of the file
	Known int // the newest schema this binary can migrate to
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("database %s was written by a newer prefrag (schema %d, this prefrag knows up to %d); upgrade prefrag", e.Path, e.Found, e.Known)
}

func (e *NewerSchemaError) Is(target error) bool { return target == ErrNewerSchema }

// NotFoundError names what was looked for.
type NotFoundError struct {
	What string // "session", "event"
	ID   string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s %q in the session store; run `prefrag sessions list` to see what is there", e.What, e.ID)
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// AmbiguousError lists the sessions an id prefix could mean.
type AmbiguousError struct {
	Prefix  string
	Matches []string // at most a handful
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session id %q is ambiguous (matches %s); give more characters", e.Prefix, strings.Join(e.Matches, ", "))
}

func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }
