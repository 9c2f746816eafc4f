package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of an EmbedPool.
const (
	DefaultEmbedBatch    = 32
	DefaultEmbedParallel = 2
	DefaultEmbedRetries  = 3
)

// EmbedPool embeds many texts with one Embedder: Batch texts per call, up
// to Parallel calls at once (the server's slots), each call retried with a
// growing pause when it fails for a reason that may pass (a 5xx answer, a
// dropped connection, a server still loading or restarting). Every vector
// is scaled to unit length. It counts calls, tokens and texts; it is safe
// for concurrent use.
type EmbedPool struct {
	E Embedder
	// Batch is the number of texts per call (DefaultEmbedBatch when 0).
	Batch int
	// Parallel is the number of calls at once; 0 asks the embedder for
	// its slots (llama-server's total_slots), else DefaultEmbedParallel.
	Parallel int
	// Retries of one call (DefaultEmbedRetries when 0; negative: none).
	Retries int
	// Backoff is the first pause before a retry (500 ms when 0), doubled
	// at each.
	Backoff time.Duration

	calls, tokens, texts atomic.Int64
	mu                   sync.Mutex
	model                string
}

// EmbedCounts are an EmbedPool's counters.
type EmbedCounts struct {
	Calls  int64 `json:"calls"`
	Tokens int64 `json:"tokens"`
	Texts  int64 `json:"texts"`
}

// Counts returns the counters so far.
func (p *EmbedPool) Counts() EmbedCounts {
	return EmbedCounts{Calls: p.calls.Load(), Tokens: p.tokens.Load(), Texts: p.texts.Load()}
}

// Model is the model as the server named it in its last answer, else the
// embedder's.
func (p *EmbedPool) Model() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.model != "" {
		return p.model
	}
	return p.E.Model()
}

// slotter is an embedder that knows its server's parallel slots.
type slotter interface{ Slots() int }

func (p *EmbedPool) parallel() int {
	if p.Parallel > 0 {
		return p.Parallel
	}
	if s, ok := p.E.(slotter); ok && s.Slots() > 0 {
		return min(s.Slots(), 8)
	}
	return DefaultEmbedParallel
}

// Embed embeds texts and returns their unit vectors in order. done, when
// set, is called with the number of texts of each finished call (from the
// calling goroutines, one at a time). The first error stops the rest.
func (p *EmbedPool) Embed(ctx context.Context, texts []string, done func(n int)) ([][]float32, error) {
	batch := p.Batch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	next := make(chan int)
	for range min(p.parallel(), (len(texts)+batch-1)/batch) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				hi := min(lo+batch, len(texts))
				vecs, err := p.call(ctx, texts[lo:hi])
				if err != nil {
					cancel(err)
					return
				}
				copy(out[lo:hi], vecs)
				if done != nil {
					doneMu.Lock()
					done(hi - lo)
					doneMu.Unlock()
				}
			}
		}()
	}
feed:
	for lo := 0; lo < len(texts); lo += batch {
		select {
		case next <- lo:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// call is one embedding call with its retries.
func (p *EmbedPool) call(ctx context.Context, texts []string) ([][]float32, error) {
	retries := p.Retries
	if retries == 0 {
		retries = DefaultEmbedRetries
	}
	wait := p.Backoff
	if wait <= 0 {
		wait = 500 * time.Millisecond
	}
	for attempt := 0; ; attempt++ {
		p.calls.Add(1)
		res, err := p.E.Embed(ctx, texts)
		if err == nil {
			err = CheckVectors(p.backendName(), len(texts), res.Vectors)
		}
		if err == nil {
			return p.accept(texts, res)
		}
		if attempt >= retries || !Transient(err) || ctx.Err() != nil {
			return nil, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, err
		}
		wait *= 2
	}
}

func (p *EmbedPool) accept(texts []string, res Embedding) ([][]float32, error) {
	for i, v := range res.Vectors {
		if !Normalize(v) {
			return nil, &ServerError{Backend: p.backendName(), Status: 200, Message: fmt.Sprintf("embedding %d of %d is all zeros", i+1, len(texts))}
		}
	}
	p.tokens.Add(int64(res.PromptTokens))
	p.texts.Add(int64(len(texts)))
	if res.Model != "" {
		p.mu.Lock()
		p.model = res.Model
		p.mu.Unlock()
	}
	return res.Vectors, nil
}

func (p *EmbedPool) backendName() string {
	if b, ok := p.E.(interface{ Backend() string }); ok {
		return b.Backend()
	}
	return "embedding server"
}

// Transient reports whether an error of a model call may pass when the
// call is made again: a connection that failed or dropped, a 5xx answer, a
// server still loading its model. A server that cannot embed is not.
func Transient(err error) bool {
	var se *ServerError
	switch {
	case errors.Is(err, ErrCannotEmbed), errors.Is(err, ErrModelNotFound), errors.Is(err, ErrWrongServer),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.Is(err, ErrLoading), errors.Is(err, ErrUnreachable), errors.Is(err, ErrTimeout):
		return true
	case errors.As(err, &se):
		return se.Retryable()
	}
	return false
}
