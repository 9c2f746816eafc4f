// Package local is the analyst's local corpus source: one Bleve index per
// corpus under a corpora directory (<dir>/<name>/), ingestion of folders of
// .txt, .md, .jsonl, .html, .docx and .pdf files, and textbook BM25 ranking
// computed from Bleve's own postings (see package bm25).
//
// Several processes may search one corpus at once (search handles are opened
// read-only and released when idle); one process at a time may write it, and
// a second writer gets ErrBusy after a short wait instead of hanging.
package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/prefrag/prefrag/sources"
)

// ErrNotFound is matched by errors about a corpus that does not exist.
var ErrNotFound = errors.New("corpus not found")

// ErrBusy is matched when another process holds the corpus: it is being
// indexed (for searches and other writers) or searched (for a writer).
var ErrBusy = errors.New("corpus busy")

// ErrInvalidName is matched by errors about a corpus name that is not
// allowed.
var ErrInvalidName = errors.New("invalid corpus name")

// ErrClosed is returned by a Corpus used after Close.
var ErrClosed = errors.New("corpus closed")

// NotFoundError names the missing corpus.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no corpus named %q; create it with: prefrag index --corpus %s PATH...", e.Name, e.Name)
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// BusyError says which corpus is held by another process and for what.
type BusyError struct {
	Name string
	// Writing is true when this process wanted to write (index) the corpus.
	Writing bool
}

func (e *BusyError) Error() string {
	if e.Writing {
		return fmt.Sprintf("corpus %q is in use by another prefrag process (indexing or searching it); try again when it has finished", e.Name)
	}
	return fmt.Sprintf("corpus %q is being indexed by another prefrag process; search it again when indexing has finished", e.Name)
}

func (e *BusyError) Is(target error) bool {
	if target == ErrBusy {
		return true
	}
	// A busy corpus cannot be searched: to the engine that is an
	// unavailable source.
	return !e.Writing && target == sources.ErrUnavailable
}

// InvalidNameError says why a name was refused.
type InvalidNameError struct {
	Name   string
	Reason string
}

func (e *InvalidNameError) Error() string {
	return fmt.Sprintf("invalid corpus name %q: %s", e.Name, e.Reason)
}

func (e *InvalidNameError) Is(target error) bool { return target == ErrInvalidName }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// MaxNameLength bounds corpus names.
const MaxNameLength = 64

// ValidateName checks a corpus name: 1–64 characters, letters, digits, '.',
// '_' and '-', starting with a letter or digit, no "..".
func ValidateName(name string) error {
	switch {
	case name == "":
		return &InvalidNameError{Name: name, Reason: "it is empty"}
	case len(name) > MaxNameLength:
		return &InvalidNameError{Name: name, Reason: fmt.Sprintf("it is longer than %d characters", MaxNameLength)}
	case strings.ContainsAny(name, `/\`):
		return &InvalidNameError{Name: name, Reason: "it contains a path separator"}
	case strings.Contains(name, ".."):
		return &InvalidNameError{Name: name, Reason: `it contains ".."`}
	case !nameRE.MatchString(name):
		return &InvalidNameError{Name: name, Reason: "use letters, digits, '.', '_' and '-', starting with a letter or digit"}
	}
	return nil
}

// corpusPath returns <dir>/<name> after validating name.
func corpusPath(dir, name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// exists reports whether <path> holds a Bleve index.
func exists(path string) bool {
	_, err := os.Stat(filepath.Join(path, "index_meta.json"))
	return err == nil
}

// Stats describes a corpus.
type Stats struct {
	// Documents counts source documents: files, and .jsonl lines.
	Documents int64 `json:"documents"`
	// Passages counts the indexed, searchable passages.
	Passages int64 `json:"passages"`
	// SizeBytes is the size of the index on disk.
	SizeBytes int64 `json:"size_bytes"`
	// Updated is when the corpus was last written.
	Updated time.Time `json:"updated"`
}

// Lock timeouts: how long a searcher waits for a writer to finish a batch,
// and how long a writer waits for idle search handles to be released.
var (
	ReadLockTimeout  = time.Second
	WriteLockTimeout = 3 * time.Second
	// IdleRelease is how long an unused search handle stays open. It must be
	// shorter than WriteLockTimeout so that a writer waiting for an idle
	// searcher gets the corpus.
	IdleRelease = time.Second
)

func sourceName(name string) string { return sources.CorpusName(name).String() }
