// Package elastic is a remote corpus on Elasticsearch (7, 8) or OpenSearch
// (1, 2): BM25 search through the `_search` API with a `multi_match` query
// over the title and text fields, and a health check from the cluster's
// root and `_count` endpoints. It speaks plain HTTP+JSON (no client
// library), reads at most MaxBody bytes of an answer, and turns every
// failure into a typed error (errors.go).
package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/remote"
)

// DefaultMaxBody caps the bytes read from one answer.
const DefaultMaxBody = 8 << 20

// Config says where the corpus is and how to read it.
type Config struct {
	// Corpus is the prefrag corpus name; the source is "local:<Corpus>".
	Corpus string
	// URL is the cluster's base URL without credentials.
	URL   string
	Index string
	// Fields; empty title means a match on the text field alone.
	Fields Fields
	// Credentials: an API key (sent as "Authorization: ApiKey …") or a
	// user and password (basic auth). AuthHint names where they come from
	// for error messages ("$ES_API_KEY"); the values never appear in one.
	APIKey, User, Password string
	AuthHint               string
	// Timeout bounds a request (429 retries included) when the caller's
	// context has no earlier deadline; default remote.DefaultTimeout.
	Timeout time.Duration
	MaxBody int64
	Client  *http.Client
	// Search by meaning (knn.go): the index's vector field (a
	// dense_vector on Elasticsearch 8, a knn_vector on OpenSearch), the
	// retrieval mode (sources.Retrieval*; "" is hybrid when the index has
	// the vector field and an Embedder is set), the embedder of queries
	// and the weights of the fusion.
	VectorField string
	Retrieval   string
	Embedder    Embedder
	Weights     sources.Weights
}

// Corpus is an Elasticsearch/OpenSearch index searched as a corpus. It is
// safe for concurrent use.
type Corpus struct {
	cfg    Config
	client *http.Client
	vec    vectorField
}

// Open checks the configuration; it does not contact the cluster (Health
// does).
func Open(cfg Config) (*Corpus, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: corpus %q needs an http(s) URL", remote.ErrInvalidSpec, cfg.Corpus)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: corpus %q: the URL must not carry credentials", remote.ErrInvalidSpec, cfg.Corpus)
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.Fields.Text == "" {
		cfg.Fields.Text = remote.DefaultTextField
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = remote.DefaultTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	c := cfg.Client
	if c == nil {
		c = &http.Client{Transport: http.DefaultTransport}
	}
	return &Corpus{cfg: cfg, client: c}, nil
}

// Name is "local:<corpus>": a remote corpus is cited like a local one.
func (c *Corpus) Name() string { return sources.CorpusName(c.cfg.Corpus).String() }

// Kind is sources.KindRemote.
func (c *Corpus) Kind() sources.Kind { return sources.KindRemote }

// Close releases idle connections.
func (c *Corpus) Close() error {
	c.client.CloseIdleConnections()
	return nil
}

// query builds the _search body.
func (c *Corpus) query(q string, k int) []byte {
	var match map[string]any
	if c.cfg.Fields.Title != "" && c.cfg.Fields.Title != c.cfg.Fields.Text {
		match = map[string]any{"multi_match": map[string]any{
			"query": q, "fields": []string{c.cfg.Fields.Title, c.cfg.Fields.Text}, "operator": "or"}}
	} else {
		match = map[string]any{"match": map[string]any{
			c.cfg.Fields.Text: map[string]any{"query": q, "operator": "or"}}}
	}
	var fields []string
	for _, f := range []string{c.cfg.Fields.Title, c.cfg.Fields.Text, c.cfg.Fields.URL, c.cfg.Fields.ID} {
		if f != "" {
			fields = append(fields, f)
		}
	}
	body, _ := json.Marshal(map[string]any{"size": k, "query": match, "_source": fields})
	return body
}

// Search returns the top k hits for query: by BM25, or with a vector
// field by meaning too (knn.go). Hits from a search with failed shards
// come with a *remote.PartialError (sources.ErrTruncated).
func (c *Corpus) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	if k <= 0 {
		return nil, nil
	}
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	if c.cfg.Retrieval != sources.RetrievalBM25 && (c.cfg.Retrieval != "" || c.cfg.Embedder != nil && c.cfg.VectorField != "") {
		return c.searchMeaning(ctx, query, k)
	}
	return c.searchBody(ctx, c.query(query, k), k)
}

// searchBody runs one _search request.
func (c *Corpus) searchBody(ctx context.Context, request []byte, k int) ([]sources.Document, error) {
	path := "/" + url.PathEscape(c.cfg.Index) + "/_search"
	body, status, err := c.do(ctx, http.MethodPost, path, request)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, c.statusError(status, body)
	}
	res, err := ParseSearch(body, c.cfg.Fields)
	if err != nil {
		return nil, &Error{Source: c.Name(), Status: status, Kind: ErrBadResponse, Detail: c.redact(err.Error())}
	}
	docs := res.Docs
	for i := range docs {
		docs[i].Source = c.Name()
	}
	if len(docs) > k {
		docs = docs[:k]
	}
	if res.ShardsFailed > 0 || res.TimedOut {
		reason := ""
		if len(res.Failures) > 0 {
			reason = c.redact(res.Failures[0])
		}
		return docs, &remote.PartialError{Source: c.Name(), Kind: ErrShards, Missing: shardsMissing(res.ShardsFailed, res.ShardsTotal, reason), Results: len(docs)}
	}
	return docs, nil
}

func (c *Corpus) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.cfg.Timeout)
}

// maxRetries bounds 429 retries of one request.
const maxRetries = 3

// do sends one request, retrying a 429 while its Retry-After fits before
// the deadline, and returns the body (at most MaxBody bytes).
func (c *Corpus) do(ctx context.Context, method, path string, body []byte) ([]byte, int, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, c.cfg.URL+path, bytes.NewReader(body))
		if err != nil {
			return nil, 0, &sources.UnavailableError{Source: c.Name(), Err: errors.New("bad request URL")}
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		switch {
		case c.cfg.APIKey != "":
			req.Header.Set("Authorization", "ApiKey "+c.cfg.APIKey)
		case c.cfg.User != "":
			req.SetBasicAuth(c.cfg.User, c.cfg.Password)
		}
		resp, err := c.client.Do(req)
		if err != nil {
			return nil, 0, c.transportError(ctx, err)
		}
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBody+1))
		resp.Body.Close()
		if rerr != nil {
			return nil, 0, c.transportError(ctx, rerr)
		}
		if int64(len(data)) > c.cfg.MaxBody {
			return nil, 0, &sources.TruncatedError{Engine: c.Name(), Limit: c.cfg.MaxBody}
		}
		if resp.StatusCode == http.StatusTooManyRequests && attempt < maxRetries {
			wait := retryAfter(resp.Header.Get("Retry-After"), attempt)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) > wait {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return nil, resp.StatusCode, c.statusError(resp.StatusCode, data)
				case <-t.C:
				}
				continue
			}
		}
		return data, resp.StatusCode, nil
	}
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); without
// one it backs off 200 ms, 400 ms, 800 ms.
func retryAfter(h string, attempt int) time.Duration {
	if h != "" {
		if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
			return time.Duration(s) * time.Second
		}
		if t, err := http.ParseTime(h); err == nil {
			if d := time.Until(t); d > 0 {
				return d
			}
			return 0
		}
	}
	return time.Duration(200<<attempt) * time.Millisecond
}

func (c *Corpus) transportError(ctx context.Context, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		return &remote.TimeoutError{Source: c.Name(), Timeout: c.cfg.Timeout}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// url.Error quotes the URL, which holds no credentials; the message
	// is redacted anyway.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the connection was closed without an answer (the cluster or a proxy dropped it)")
	}
	return &sources.UnavailableError{Source: c.Name(), Err: errors.New(c.redact(err.Error()))}
}

// statusError turns a non-200 answer into a typed error.
func (c *Corpus) statusError(status int, body []byte) error {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	var e esError
	detail := ""
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		if json.Unmarshal(env.Error, &e) != nil {
			e = esError{}
		}
		detail = errorSummary(env.Error)
	}
	out := &Error{Source: c.Name(), Status: status, Detail: c.redact(detail), AuthHint: c.cfg.AuthHint, Index: c.cfg.Index}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		out.Kind = ErrAuth
	case status == http.StatusNotFound && (e.Type == "index_not_found_exception" || hasRoot(e, "index_not_found_exception")):
		out.Kind = ErrIndexNotFound
	case status == http.StatusTooManyRequests:
		out.Kind = ErrBusy
	case status >= 500:
		out.Kind = ErrServer
	default:
		out.Kind = ErrBadResponse
	}
	return out
}

func hasRoot(e esError, typ string) bool {
	for _, r := range e.RootCause {
		if r.Type == typ {
			return true
		}
	}
	return false
}

func (c *Corpus) redact(s string) string {
	return remote.Redact(s, c.cfg.APIKey, c.cfg.User, c.cfg.Password)
}

// Health reads the cluster's identity (GET /) and the index's document
// count (GET /<index>/_count). A cluster whose root is forbidden to the
// credentials but whose index answers is still healthy.
func (c *Corpus) Health(ctx context.Context) (remote.Health, error) {
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	h := remote.Health{Documents: -1}
	t0 := time.Now()
	body, status, err := c.do(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return h, err
	}
	if status == http.StatusOK {
		var info struct {
			Name        string `json:"name"`
			ClusterName string `json:"cluster_name"`
			ClusterUUID string `json:"cluster_uuid"`
			Version     struct {
				Number       string `json:"number"`
				Distribution string `json:"distribution"`
			} `json:"version"`
		}
		if json.Unmarshal(body, &info) == nil {
			h.Cluster, h.ClusterUUID = oneLine(info.ClusterName), oneLine(info.ClusterUUID)
			h.Version, h.Distribution = oneLine(info.Version.Number), oneLine(info.Version.Distribution)
		}
	} else if status == http.StatusUnauthorized {
		h.Status = "auth"
		return h, c.statusError(status, body)
	}
	body, status, err = c.do(ctx, http.MethodGet, "/"+url.PathEscape(c.cfg.Index)+"/_count", nil)
	if err != nil {
		return h, err
	}
	h.Latency = time.Since(t0)
	if status != http.StatusOK {
		err := c.statusError(status, body)
		switch {
		case errors.Is(err, ErrAuth):
			h.Status = "auth"
		case errors.Is(err, ErrIndexNotFound):
			h.Status = "no index"
		case errors.Is(err, ErrBusy):
			h.Status = "busy"
		default:
			h.Status = "error"
		}
		return h, err
	}
	var cnt struct {
		Count int64 `json:"count"`
	}
	if err := json.Unmarshal(body, &cnt); err != nil {
		h.Status = "error"
		return h, &Error{Source: c.Name(), Status: status, Kind: ErrBadResponse, Detail: "the _count answer is not JSON"}
	}
	h.OK, h.Status, h.Documents = true, "ok", cnt.Count
	return h, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120]
	}
	return sources.Document{Title: s}.Sanitized().Title
}
