// Package fakeelastic is an Elasticsearch/OpenSearch stand-in for tests: an
// HTTP server on 127.0.0.1 that answers the documented request and
// response shapes of `GET /` (cluster info), `GET /<index>/_count` and
// `POST /<index>/_search` (match and multi_match queries, size, _source
// filtering) over a few documents ranked with textbook BM25, and that can
// answer the documented error shapes on demand: 401 security_exception,
// 404 index_not_found_exception, 429 es_rejected_execution_exception (with
// Retry-After), 5xx, shard failures, slow replies and a dropped connection.
//
// Shapes follow the Elasticsearch 7.x/8.x and OpenSearch 1.x/2.x reference
// documentation; Flavor picks the version block of `GET /` and ES6Totals
// the pre-7 numeric hits.total.
package fakeelastic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// Doc is one document of the index.
type Doc struct {
	ID, Title, Text, URL string
}

// Flavors of GET / answers.
const (
	Elasticsearch8 = "elasticsearch8"
	Elasticsearch7 = "elasticsearch7"
	OpenSearch2    = "opensearch2"
)

// Options configure a server.
type Options struct {
	Index string
	Docs  []Doc
	// Flavor of the cluster info (default Elasticsearch8).
	Flavor string
	// ES6Totals answers hits.total as a number.
	ES6Totals bool
	// APIKey, or User and Password, when set, are required on every
	// request (401 security_exception otherwise).
	APIKey, User, Password string
	// Field names in _source (default title, text, url).
	TitleField, TextField, URLField string
	// VectorField, when set, is a vector field of every document (see
	// knn.go): Vector embeds a document's title and text into it.
	VectorField string
	Vector      func(text string) []float32
}

// Fault is what the server does to the next searches.
type Fault struct {
	// Status answers every request with this HTTP status and the
	// documented error body for it (401, 403, 404 index, 429, 500, 503).
	Status int
	// RetryAfter is sent with a 429 ("1"), and Times bounds how many
	// requests get the fault (0: all).
	RetryAfter string
	Times      int
	// ShardsFailed > 0 answers searches with that many failed shards
	// (of ShardsFailed+1) and the hits of the rest.
	ShardsFailed int
	// Delay holds every answer this long (or until the client gives up).
	Delay time.Duration
	// Drop closes the connection without an answer.
	Drop bool
	// Garbage answers 200 with a body that is not JSON; Huge answers
	// a valid but enormous body of this many bytes.
	Garbage bool
	Huge    int
	// DownAfter > 0 drops every request after that many searches.
	DownAfter int
}

// Server is a running stand-in.
type Server struct {
	opts Options
	srv  *httptest.Server

	mu       sync.Mutex
	fault    Fault
	faulted  int
	searches int
	bodies   []string
	auths    []string
}

// New starts a server that stops when the test ends.
func New(t testing.TB, o Options) *Server {
	s := Start(o)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server; Close stops it.
func Start(o Options) *Server {
	if o.Index == "" {
		o.Index = "docs"
	}
	if o.Flavor == "" {
		o.Flavor = Elasticsearch8
	}
	if o.TitleField == "" {
		o.TitleField = "title"
	}
	if o.TextField == "" {
		o.TextField = "text"
	}
	if o.URLField == "" {
		o.URLField = "url"
	}
	s := &Server{opts: o}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetFault changes what the next requests get.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	s.fault, s.faulted = f, 0
	s.mu.Unlock()
}

// Searches counts _search requests received.
func (s *Server) Searches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.searches
}

// Bodies are the _search request bodies received, in order.
func (s *Server) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// Authorizations are the Authorization headers received, in order.
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// errorBody is the documented error envelope.
func errorBody(status int, typ, reason string, extra map[string]any) map[string]any {
	cause := map[string]any{"type": typ, "reason": reason}
	for k, v := range extra {
		cause[k] = v
	}
	e := map[string]any{"root_cause": []any{cause}, "type": typ, "reason": reason}
	for k, v := range extra {
		e[k] = v
	}
	return map[string]any{"error": e, "status": status}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	path := strings.Trim(r.URL.Path, "/")
	isSearch := strings.HasSuffix(path, "/_search")
	s.mu.Lock()
	s.auths = append(s.auths, r.Header.Get("Authorization"))
	if isSearch {
		s.searches++
		s.bodies = append(s.bodies, string(body))
	}
	f := s.fault
	active := f.Times == 0 || s.faulted < f.Times
	if active && (f.Status != 0 || f.Drop || f.Delay > 0) {
		s.faulted++
	}
	down := f.DownAfter > 0 && s.searches > f.DownAfter
	s.mu.Unlock()

	if f.Delay > 0 && active {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if (f.Drop && active) || down {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="security" charset="UTF-8"`)
		writeJSON(w, 401, errorBody(401, "security_exception", "missing authentication credentials for REST request ["+r.URL.Path+"]", nil))
		return
	}
	if f.Status != 0 && active {
		s.writeFault(w, f)
		return
	}
	switch {
	case path == "" && r.Method == http.MethodGet:
		writeJSON(w, 200, s.info())
	case path == s.opts.Index+"/_mapping" && r.Method == http.MethodGet:
		writeJSON(w, 200, s.mapping())
	case path == s.opts.Index+"/_count":
		writeJSON(w, 200, map[string]any{"count": len(s.opts.Docs), "_shards": map[string]any{"total": 1, "successful": 1, "skipped": 0, "failed": 0}})
	case isSearch && strings.TrimSuffix(path, "/_search") == s.opts.Index:
		s.search(w, body, f)
	case isSearch || strings.HasSuffix(path, "/_count"):
		idx := strings.SplitN(path, "/", 2)[0]
		writeJSON(w, 404, errorBody(404, "index_not_found_exception", "no such index ["+idx+"]",
			map[string]any{"resource.type": "index_or_alias", "resource.id": idx, "index_uuid": "_na_", "index": idx}))
	default:
		writeJSON(w, 405, errorBody(405, "illegal_argument_exception", "unsupported request", nil))
	}
}

func (s *Server) authorized(r *http.Request) bool {
	switch {
	case s.opts.APIKey != "":
		return r.Header.Get("Authorization") == "ApiKey "+s.opts.APIKey
	case s.opts.User != "":
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(s.opts.User+":"+s.opts.Password))
		return r.Header.Get("Authorization") == want
	}
	return true
}

func (s *Server) writeFault(w http.ResponseWriter, f Fault) {
	switch f.Status {
	case 401:
		writeJSON(w, 401, errorBody(401, "security_exception", "unable to authenticate user for REST request", nil))
	case 403:
		writeJSON(w, 403, errorBody(403, "security_exception", "action [indices:data/read/search] is unauthorized", nil))
	case 404:
		writeJSON(w, 404, errorBody(404, "index_not_found_exception", "no such index ["+s.opts.Index+"]",
			map[string]any{"resource.type": "index_or_alias", "resource.id": s.opts.Index, "index_uuid": "_na_", "index": s.opts.Index}))
	case 429:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		writeJSON(w, 429, errorBody(429, "es_rejected_execution_exception",
			"rejected execution of coordinating operation [shard_detail=[fake][0][P], shard_coordinating_and_primary_bytes=0, shard_operation_bytes=0, shard_max_coordinating_and_primary_bytes=0]", nil))
	default:
		writeJSON(w, f.Status, errorBody(f.Status, "search_phase_execution_exception", "all shards failed", map[string]any{"phase": "query", "grouped": true}))
	}
}

func (s *Server) info() map[string]any {
	version := map[string]any{"number": "8.11.1", "build_flavor": "default", "build_type": "docker", "lucene_version": "9.8.0",
		"minimum_wire_compatibility_version": "7.17.0", "minimum_index_compatibility_version": "7.0.0"}
	tagline := "You Know, for Search"
	switch s.opts.Flavor {
	case Elasticsearch7:
		version["number"], version["lucene_version"] = "7.17.15", "8.11.1"
	case OpenSearch2:
		version = map[string]any{"distribution": "opensearch", "number": "2.11.0", "build_type": "tar", "lucene_version": "9.7.0",
			"minimum_wire_compatibility_version": "7.10.0", "minimum_index_compatibility_version": "7.0.0"}
		tagline = "The OpenSearch Project: https://opensearch.org/"
	}
	return map[string]any{"name": "node-1", "cluster_name": "kb-cluster", "cluster_uuid": "3Jm0ZQK9S3mH1c2b0gqB5A",
		"version": version, "tagline": tagline}
}

// searchRequest is the part of the _search body the stand-in reads.
type searchRequest struct {
	Size   *int            `json:"size"`
	Query  json.RawMessage `json:"query"`
	Source json.RawMessage `json:"_source"`
	Knn    json.RawMessage `json:"knn"`
}

func (s *Server) search(w http.ResponseWriter, body []byte, f Fault) {
	if f.Garbage {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		io.WriteString(w, `{"took": 3, "hits": {"hits": [{"_id": "x", "_source": `)
		return
	}
	if f.Huge > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		io.WriteString(w, `{"took":1,"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_index":"`+s.opts.Index+`","_id":"big","_score":1,"_source":{"text":"`)
		chunk := strings.Repeat("a", 64<<10)
		for n := 0; n < f.Huge; n += len(chunk) {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, `"}}]}}`)
		return
	}
	var req searchRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, errorBody(400, "parsing_exception", "request body is not JSON", nil))
		return
	}
	scored, isKnn, err := s.knn(req)
	if !isKnn && err == nil {
		var query string
		var fields []string
		if query, fields, err = parseQuery(req.Query, s.opts); err == nil {
			scored = s.rank(query, fields)
		}
	}
	if err != nil {
		writeJSON(w, 400, errorBody(400, "parsing_exception", err.Error(), nil))
		return
	}
	size := 10
	if req.Size != nil {
		size = *req.Size
	}
	var include []string
	if len(req.Source) > 0 {
		json.Unmarshal(req.Source, &include)
	}
	total := len(scored)
	shardsTotal, failed := 1, 0
	if f.ShardsFailed > 0 {
		failed, shardsTotal = f.ShardsFailed, f.ShardsFailed+1
		// The failed shards held every other document.
		var kept []scoredDoc
		for i, d := range scored {
			if i%2 == 0 {
				kept = append(kept, d)
			}
		}
		scored, total = kept, len(kept)
	}
	if len(scored) > size {
		scored = scored[:size]
	}
	hits := []any{}
	var maxScore any
	for i, d := range scored {
		if i == 0 {
			maxScore = d.score
		}
		src := map[string]any{s.opts.TitleField: d.doc.Title, s.opts.TextField: d.doc.Text}
		if d.doc.URL != "" {
			src[s.opts.URLField] = d.doc.URL
		}
		if include != nil {
			filtered := map[string]any{}
			for _, k := range include {
				if v, ok := src[k]; ok {
					filtered[k] = v
				}
			}
			src = filtered
		}
		hits = append(hits, map[string]any{"_index": s.opts.Index, "_id": d.doc.ID, "_score": d.score, "_source": src})
	}
	var totalField any = map[string]any{"value": total, "relation": "eq"}
	if s.opts.ES6Totals {
		totalField = total
	}
	shards := map[string]any{"total": shardsTotal, "successful": shardsTotal - failed, "skipped": 0, "failed": failed}
	if failed > 0 {
		var failures []any
		for i := 1; i <= failed; i++ {
			failures = append(failures, map[string]any{"shard": i, "index": s.opts.Index, "node": "n" + fmt.Sprint(i),
				"reason": map[string]any{"type": "node_not_connected_exception", "reason": "[node-2][127.0.0.1:9300] Node not connected"}})
		}
		shards["failures"] = failures
	}
	writeJSON(w, 200, map[string]any{"took": 2, "timed_out": false, "_shards": shards,
		"hits": map[string]any{"total": totalField, "max_score": maxScore, "hits": hits}})
}

// parseQuery reads {"multi_match": {"query", "fields"}} or
// {"match": {FIELD: {"query"}}} / {"match": {FIELD: "text"}}.
func parseQuery(raw json.RawMessage, o Options) (string, []string, error) {
	var q struct {
		MultiMatch *struct {
			Query  string   `json:"query"`
			Fields []string `json:"fields"`
		} `json:"multi_match"`
		Match map[string]json.RawMessage `json:"match"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		return "", nil, fmt.Errorf("unknown query: %v", err)
	}
	if q.MultiMatch != nil {
		return q.MultiMatch.Query, q.MultiMatch.Fields, nil
	}
	for field, v := range q.Match {
		var obj struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(v, &obj) == nil && obj.Query != "" {
			return obj.Query, []string{field}, nil
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s, []string{field}, nil
		}
	}
	return "", nil, fmt.Errorf("[match] or [multi_match] query expected")
}

type scoredDoc struct {
	doc   Doc
	score float64
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// rank scores documents with BM25 (k1 1.2, b 0.75) summed over the queried
// fields, as Elasticsearch's default similarity does.
func (s *Server) rank(query string, fields []string) []scoredDoc {
	fieldText := func(d Doc, f string) string {
		switch {
		case f == s.opts.TitleField || strings.HasPrefix(f, s.opts.TitleField+"^"):
			return d.Title
		case f == s.opts.TextField || strings.HasPrefix(f, s.opts.TextField+"^"):
			return d.Text
		}
		return ""
	}
	qt := tokens(query)
	n := float64(len(s.opts.Docs))
	scores := make([]float64, len(s.opts.Docs))
	for _, f := range fields {
		var avg float64
		toks := make([][]string, len(s.opts.Docs))
		for i, d := range s.opts.Docs {
			toks[i] = tokens(fieldText(d, f))
			avg += float64(len(toks[i]))
		}
		if n == 0 || avg == 0 {
			continue
		}
		avg /= n
		for _, t := range qt {
			df := 0
			for _, dt := range toks {
				for _, x := range dt {
					if x == t {
						df++
						break
					}
				}
			}
			if df == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			for i, dt := range toks {
				tf := 0.0
				for _, x := range dt {
					if x == t {
						tf++
					}
				}
				if tf > 0 {
					scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(len(dt))/avg))
				}
			}
		}
	}
	var out []scoredDoc
	for i, d := range s.opts.Docs {
		if scores[i] > 0 {
			out = append(out, scoredDoc{doc: d, score: math.Round(scores[i]*1e6) / 1e6})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
