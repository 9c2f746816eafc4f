// Package engine runs the PrefRAG loop (DESIGN.md, "The PrefRAG loop") and
// its baselines. It knows nothing of terminals or databases: it calls an LLM
// and sources through the small interfaces below and reports every step as
// an Event.
package engine

import (
	"context"
	"errors"

	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

// LLM is what the engine needs from a backend (llm/ollama, llm/llamacpp).
type LLM interface {
	Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error)
}

// Source is what the engine needs from a retrieval source.
type Source interface {
	// Name is the source's sources.Name, printed ("local:<corpus>",
	// "mcp:<server>", "web:<engine>").
	Name() string
	Kind() sources.Kind
	Search(ctx context.Context, query string, k int) ([]sources.Document, error)
}

// EmbeddingSource is a Source that embeds its queries with an embedding
// model (a corpus searched by meaning): EmbedCounts are its embedding calls
// and tokens so far, counted in the run's counts.
type EmbeddingSource interface {
	Source
	EmbedCounts() (calls, tokens int64)
}

// CachingSource is a Source with a cache (the web engines): SearchCached is
// Search that also says whether the answer came from the cache, which the
// documents cannot say when there are none.
type CachingSource interface {
	Source
	SearchCached(ctx context.Context, query string, k int) (docs []sources.Document, cached bool, err error)
}

// ConsentRequest is put to the user before a query leaves the machine under
// web policy "ask".
type ConsentRequest struct {
	Step   int
	Query  string
	Source string // e.g. "web:duckduckgo"
	// Kind is the source's kind (a name cannot tell a remote index from a
	// local corpus, nor an http MCP server from a stdio one). An answer for
	// the whole run covers this kind of source only: its Spec().Queries
	// words it.
	Kind     sources.Kind
	Analysis string // the judge's reasoning for switching
	// Reflection marks the reflection supplement's query: the question
	// verbatim, sent after a weak self-evaluation with no judge decision.
	Reflection bool
	// Guarded names the never-leave corpus whose passages are in the
	// context, or whose distinctive string the query carries ("" for
	// none): the question must be put to the user even under web policy
	// "auto".
	Guarded string
	// Carries is the distinctive string of the Guarded corpus the query
	// carries ("" when the hold is the context's), and CarriesKind what it
	// is ("an identifier", "a rare name", "a run of words"): for the user
	// to see, on this machine only.
	Carries, CarriesKind string
	// Hold says in a sentence why a never-leave corpus holds the query
	// ("" when none does); it never quotes the string the query carries.
	Hold string
}

// Consent is the user's answer.
type Consent int

const (
	ConsentDeny Consent = iota
	ConsentOnce
	// ConsentSession allows this request and every further one of this
	// run to a source of the same kind (ConsentRequest.Kind).
	ConsentSession
	// ConsentDenyRun denies this request and every further one of this
	// run to a source of the same kind without asking again.
	ConsentDenyRun
)

// ConsentFunc asks the user. It must return when ctx is cancelled.
type ConsentFunc func(ctx context.Context, req ConsentRequest) (Consent, error)

// Emitter receives every event the moment it happens, in order.
type Emitter func(Event)

// ErrInvalidSettings is matched by settings validation failures.
var ErrInvalidSettings = errors.New("invalid settings")
