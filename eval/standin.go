package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prefrag/prefrag/eval/memindex"
	"github.com/prefrag/prefrag/internal/searxwire"
)

// StandIn is the evaluation's local search-engine stand-in: a server on
// 127.0.0.1 that answers SearXNG's JSON API (GET /search?q=…&format=json)
// with BM25 over the paragraphs it was given. With held-out supporting
// paragraphs it plays the web, so "local first, web when needed" can be
// measured offline.
type StandIn struct {
	ix       *memindex.Index
	srv      *http.Server
	url      string
	searches atomic.Int64
	done     chan struct{}
}

// standInPageSize is how many results one page holds, as SearXNG's default.
const standInPageSize = 10

// StartStandIn indexes paragraphs and starts serving them on a free port of
// 127.0.0.1. It stops on Close or when ctx ends.
func StartStandIn(ctx context.Context, paragraphs []Paragraph) (*StandIn, error) {
	docs := make([]memindex.Doc, 0, len(paragraphs))
	seen := map[string]bool{}
	for _, p := range paragraphs {
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		docs = append(docs, memindex.Doc{ID: p.ID, Title: p.Title, Text: p.Text, URL: StandInURL(p)})
	}
	ix, err := memindex.New(docs)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the search-engine stand-in: %w", err)
	}
	s := &StandIn{ix: ix, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /{$}", s.home)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// URL is the instance address to give as --searxng-url.
func (s *StandIn) URL() string { return s.url }

// Len is the number of paragraphs served.
func (s *StandIn) Len() int { return s.ix.Len() }

// Close stops the server.
func (s *StandIn) Close() error {
	select {
	case <-s.done:
		return nil
	default:
		close(s.done)
	}
	return s.srv.Close()
}

// StandInURL is the address a stand-in result carries: the paragraph's
// Wikipedia article (the multi-hop datasets are drawn from Wikipedia) with
// the paragraph id as fragment, so results of one article stay distinct and
// map back to their paragraph.
func StandInURL(p Paragraph) string {
	title := strings.ReplaceAll(strings.TrimSpace(p.Title), " ", "_")
	if title == "" {
		title = p.ID
	}
	return "https://en.wikipedia.org/wiki/" + url.PathEscape(title) + "#" + p.ID
}

// ParagraphIDOf returns the paragraph id of a document id: a pooled local
// passage id ("p…", or "p…#2" for a split paragraph) or a stand-in URL.
func ParagraphIDOf(docID string) (string, bool) {
	if i := strings.LastIndexByte(docID, '#'); i >= 0 && strings.HasPrefix(docID, "http") {
		docID = docID[i+1:]
	} else if i >= 0 {
		docID = docID[:i]
	}
	if len(docID) != 17 || docID[0] != 'p' {
		return "", false
	}
	for _, c := range docID[1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return "", false
		}
	}
	return docID, true
}

func (s *StandIn) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := q.Get("q")
	page := 1
	if p, err := strconv.Atoi(q.Get("pageno")); err == nil && p > 1 {
		page = p
	}
	switch q.Get("format") {
	case "json":
	case "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>%s — prefrag eval stand-in</title><p>Ask with format=json.</p>", html.EscapeString(query))
		return
	default:
		http.Error(w, "format not allowed", http.StatusForbidden)
		return
	}
	s.searches.Add(1)
	hits := s.ix.Search(query, page*standInPageSize)
	if from := (page - 1) * standInPageSize; from < len(hits) {
		hits = hits[from:]
	} else {
		hits = nil
	}
	results := []searxwire.Result{}
	for i, h := range hits {
		results = append(results, searxwire.Result{URL: h.Doc.URL, Title: h.Doc.Title, Content: h.Doc.Text,
			Engine: "prefrag-eval", Engines: []string{"prefrag-eval"}, Positions: []int{i + 1}, Score: h.Score, Category: "general"})
	}
	ans := searxwire.NewAnswer(query, results, nil)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ans)
}

func (s *StandIn) home(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>prefrag eval stand-in</title><p>A SearXNG-compatible stand-in serving %d paragraphs: GET /search?q=…&amp;format=json</p>", s.ix.Len())
}
