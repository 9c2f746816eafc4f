package remote

import (
	"fmt"

	"github.com/prefrag/prefrag/sources"
)

// A remote corpus client's errors say what went wrong in the client's own
// words (elastic.Error, manticore.Error). What the engine makes of them is
// defined here once: the Category of a failure, and PartialError for an
// answer some of whose shards did not answer.

// Category is what the engine makes of a remote corpus's failure.
type Category int

const (
	// Unavailable: the corpus could not be searched. To the engine that is
	// an unavailable source (sources.ErrUnavailable): its trouble becomes a
	// notice, never a crash.
	Unavailable Category = iota
	// Misconfigured: the corpus's registration is at fault, not the
	// server; the error matches no category of the engine's.
	Misconfigured
)

// Is is errors.Is for a client's error of the given kind (one of the
// client's sentinel errors) in category c: target matches when it is the
// kind or the category's sentinel.
func (c Category) Is(kind, target error) bool {
	if target == kind {
		return true
	}
	return c == Unavailable && target == sources.ErrUnavailable
}

// PartialError comes with the documents of an answer some of whose shards
// did not answer (they failed, timed out, or a time limit cut the search):
// the documents are real, some may be missing. It matches its Kind and
// sources.ErrTruncated, which the engine reports as a truncated retrieval
// with the documents it got.
type PartialError struct {
	// Source says who answered: "local:wiki", `corpus "wiki" (index docs)`.
	Source string
	// Kind is the client's sentinel (elastic.ErrShards, manticore.ErrPartial).
	Kind error
	// Missing is what went missing, in the client's words: "answered from
	// 2 of 3 shards (1 failed: …)".
	Missing string
	// Results is how many documents came with the error.
	Results int
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%s %s; %d result(s) were read, documents on the missing shards are lost", e.Source, e.Missing, e.Results)
}

func (e *PartialError) Is(target error) bool {
	return target == e.Kind || target == sources.ErrTruncated
}
