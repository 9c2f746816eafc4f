package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/elastic"
	"github.com/prefrag/prefrag/sources/local/vector"
	"github.com/prefrag/prefrag/sources/manticore"
	"github.com/prefrag/prefrag/sources/remote"
)

// remoteOpenFunc opens one remote corpus client. It returns the client and
// a health check (nil when the client has none). It may contact the
// cluster; an error that is not about the registration or the credentials
// is retried at the next search.
type remoteOpenFunc func(ctx context.Context, name string, spec remote.Spec, cred remote.Credentials, rs remoteSearch) (remote.Searcher, remote.HealthFunc, error)

// remoteSearch is how a remote corpus is searched in a run: its retrieval
// mode, the embedder of queries (nil when it is searched by words) and the
// fusion's weights.
type remoteSearch struct {
	retrieval string
	embedder  *Embedder
	weights   sources.Weights
}

// remoteKinds is the one table of remote corpus kinds.
var remoteKinds = map[string]remoteOpenFunc{
	remote.KindElasticsearch: openElastic,
	remote.KindManticore:     openManticore,
}

func openElastic(ctx context.Context, name string, spec remote.Spec, cred remote.Credentials, rs remoteSearch) (remote.Searcher, remote.HealthFunc, error) {
	title, text, url := spec.Fields()
	cfg := elastic.Config{Corpus: name, URL: spec.URL, Index: spec.Index,
		Fields: elastic.Fields{Title: title, Text: text, URL: url, ID: spec.IDField},
		APIKey: cred.APIKey, User: cred.User, Password: cred.Password, AuthHint: spec.AuthHint(),
		Timeout: spec.RequestTimeout(), VectorField: spec.VectorField, Retrieval: rs.retrieval, Weights: rs.weights}
	if rs.embedder != nil {
		cfg.Embedder = rs.embedder
	}
	c, err := elastic.Open(cfg)
	if err != nil {
		return nil, nil, err
	}
	return c, c.Health, nil
}

// openManticore opens a Manticore Search or Sphinx corpus over SphinxQL
// (sources/manticore). manticore.Open does not contact the server: a
// cluster down at start shows as failed searches (notices), and the health
// check is the call that connects.
func openManticore(ctx context.Context, name string, spec remote.Spec, cred remote.Credentials, _ remoteSearch) (remote.Searcher, remote.HealthFunc, error) {
	title, text, url := spec.Fields()
	c, err := manticore.Open(ctx, manticore.Config{Corpus: name, Addr: spec.Addr(), Index: spec.Index,
		TitleField: title, TextField: text, URLField: url, IDField: spec.IDField,
		User: cred.User, Password: cred.Password, Timeout: spec.RequestTimeout()})
	if err != nil {
		return nil, nil, err
	}
	return c, func(ctx context.Context) (remote.Health, error) {
		h, err := c.Health(ctx)
		if err != nil {
			return remote.Health{Documents: -1}, err
		}
		return remote.Health{OK: true, Status: "ok", Version: h.Version, Documents: h.Documents, Latency: h.Latency}, nil
	}, nil
}

// OpenRemote opens remote corpus name: its registration, its credentials
// from the environment, the client of its kind, wrapped in the guard
// (per-request timeout, circuit breaker, redaction of the credentials).
// A registration that cannot be read, an unset credential variable or an
// address the client refuses fail here; a cluster that cannot be reached does not
// (its searches fail, as notices, until it answers).
func (a *App) OpenRemote(ctx context.Context, name string) (*remote.Guarded, error) {
	return a.openRemoteFor(ctx, a.Cfg.Settings, name, map[string]*Embedder{})
}

// openRemoteFor is OpenRemote with a run's retrieval mode and embedding
// model: an index registered with a vector field is searched by meaning
// too, its queries embedded with the model its registration names (another
// --embed-model is refused).
func (a *App) openRemoteFor(ctx context.Context, s engine.RunConfig, name string, embedders map[string]*Embedder) (*remote.Guarded, error) {
	rs := remoteSearch{retrieval: s.Retrieval, weights: sources.Weights{BM25: a.Cfg.BM25Weight, Vector: a.Cfg.VectorWeight}}
	spec, err := remote.Load(a.Cfg.CorporaDir(), name)
	if err == nil && spec.VectorField != "" && s.Retrieval != sources.RetrievalBM25 {
		if spec.EmbedModel != "" && s.EmbedModel != "" && spec.EmbedModel != s.EmbedModel {
			return nil, fmt.Errorf("corpus %q's vectors were made with %s (its registration says), not %s: search it with --embed-model %s, or register it again with `prefrag corpora add` and --embed-model %s",
				name, spec.EmbedModel, s.EmbedModel, spec.EmbedModel, s.EmbedModel)
		}
		var meta *vector.Meta
		if spec.EmbedModel != "" {
			meta = &vector.Meta{Model: spec.EmbedModel}
		}
		if rs.embedder, err = a.EmbedderFor(s, meta); err != nil {
			return nil, err
		}
		rs.embedder = shared(embedders, rs.embedder)
	}
	return openRemote(ctx, a.Cfg.CorporaDir(), name, os.Getenv, rs)
}

func openRemote(ctx context.Context, dir, name string, getenv func(string) string, rs remoteSearch) (*remote.Guarded, error) {
	spec, err := remote.Load(dir, name)
	if err != nil {
		return nil, err
	}
	open, ok := remoteKinds[spec.Kind]
	if !ok {
		return nil, &remote.SpecError{Corpus: name, Reason: fmt.Sprintf("unknown kind %q", spec.Kind)}
	}
	cred, err := spec.Credentials(name, getenv)
	if err != nil {
		return nil, err
	}
	lz := &lazyRemote{name: name, open: func(ctx context.Context) (remote.Searcher, remote.HealthFunc, error) {
		return open(ctx, name, spec, cred, rs)
	}}
	if err := lz.connect(ctx); err != nil && (errors.Is(err, manticore.ErrConfig) || errors.Is(err, remote.ErrInvalidSpec) || errors.Is(err, remote.ErrCredentials)) {
		return nil, remote.RedactError(err, cred.Secrets()...)
	}
	return remote.Guard(lz, remote.GuardOptions{
		Timeout:  spec.RequestTimeout(),
		Secrets:  cred.Secrets(),
		Health:   lz.health,
		Identity: remote.Identity{Kind: spec.Kind, URL: spec.URL, Index: spec.Index},
	}), nil
}

// lazyRemote opens its client at the first use and again after an open
// failed, so a cluster down when the run starts is a notice per search
// (bounded by the guard's breaker), not a failed run.
type lazyRemote struct {
	name string
	open func(ctx context.Context) (remote.Searcher, remote.HealthFunc, error)

	mu  sync.Mutex
	src remote.Searcher
	hf  remote.HealthFunc
}

func (l *lazyRemote) connect(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.src != nil {
		return nil
	}
	src, hf, err := l.open(ctx)
	if err != nil {
		return err
	}
	l.src, l.hf = src, hf
	return nil
}

func (l *lazyRemote) Name() string       { return sources.CorpusName(l.name).String() }
func (l *lazyRemote) Kind() sources.Kind { return sources.KindRemote }

func (l *lazyRemote) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	if err := l.connect(ctx); err != nil {
		if errors.Is(err, sources.ErrUnavailable) {
			return nil, err
		}
		return nil, &sources.UnavailableError{Source: l.Name(), Err: err}
	}
	return l.src.Search(ctx, query, k)
}

func (l *lazyRemote) health(ctx context.Context) (remote.Health, error) {
	if err := l.connect(ctx); err != nil {
		return remote.Health{Status: "unreachable", Documents: -1}, err
	}
	if l.hf == nil {
		return remote.Health{OK: true, Status: "ok", Documents: -1}, nil
	}
	return l.hf(ctx)
}

func (l *lazyRemote) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.src == nil {
		return nil
	}
	return l.src.Close()
}

// RemoteHealth checks remote corpus name for `prefrag corpora`; every
// failure is in the Health, never an error.
func (a *App) RemoteHealth(ctx context.Context, name string) remote.Health {
	g, err := a.OpenRemote(ctx, name)
	if err != nil {
		status := "error"
		switch {
		case errors.Is(err, remote.ErrCredentials):
			status = "no credentials"
		case errors.Is(err, remote.ErrInvalidSpec), errors.Is(err, manticore.ErrConfig):
			status = "invalid"
		}
		return remote.Health{Status: status, Documents: -1, Problem: err.Error()}
	}
	defer g.Close()
	return g.Health(ctx)
}
