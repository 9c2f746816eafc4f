package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// SearchInput are the search tool's arguments.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"what to look for, in plain words (no query syntax)"`
	Corpus string `json:"corpus,omitempty" jsonschema:"the corpus to search (default: the user's pinned corpus)"`
	K      int    `json:"k,omitempty" jsonschema:"how many passages to return, 1 to 50 (default 5)"`
}

// SearchOutput is the search tool's result: the search/fetch convention's
// {results: [{id, title, url}]} with each passage's text, score and place.
type SearchOutput struct {
	Corpus  string    `json:"corpus" jsonschema:"the corpus searched"`
	Results []Passage `json:"results" jsonschema:"the best passages, best first: in a search by words alone, passages with a title_match come ahead of the others whatever their score"`
	Note    string    `json:"note,omitempty" jsonschema:"something about this search the caller should know (results cut short)"`
}

// Passage is one passage of a corpus.
type Passage struct {
	ID    string  `json:"id" jsonschema:"the passage's id, for fetch (CORPUS:PASSAGE)"`
	Title string  `json:"title"`
	URL   string  `json:"url" jsonschema:"where the passage comes from: its web address, or a file:// URL of its file; empty when unknown"`
	Text  string  `json:"text" jsonschema:"the passage's text (in search results at most about 1,000 characters: fetch gives it whole)"`
	Score float64 `json:"score,omitempty" jsonschema:"the search score: BM25 for a search by words, the fused reciprocal-rank score for a search by meaning too"`
	// The ranks of a search by meaning (the corpus has vectors and the
	// user's retrieval is hybrid or dense): where each leg put the passage.
	BM25Rank   *int   `json:"bm25_rank,omitempty" jsonschema:"in a search by meaning too, the passage's rank by words (BM25), 1 for first; absent when that leg did not find it"`
	VectorRank *int   `json:"vector_rank,omitempty" jsonschema:"in a search by meaning, the passage's rank by meaning (embeddings), 1 for first; absent when that leg did not find it"`
	TitleMatch string `json:"title_match,omitempty" jsonschema:"set when the passage was ranked ahead of higher scores because its title matches the query: is_query, is_query_ignoring_case or in_query (ranked in that order, then by score)"`
	Locator    string `json:"locator,omitempty" jsonschema:"where in its file the passage starts (path#byte offset, path#pPAGE)"`
	Source     string `json:"source" jsonschema:"local:CORPUS"`
	Cut        bool   `json:"truncated,omitempty" jsonschema:"true when text is only the passage's beginning"`
}

// FetchInput is the fetch tool's argument.
type FetchInput struct {
	ID string `json:"id" jsonschema:"a passage id from search (CORPUS:PASSAGE)"`
}

// searchTextRunes bounds a passage's text in search results, so that a
// search does not flood the agent's context; fetch returns it whole.
const searchTextRunes = 1000

const (
	defaultK = 5
	maxK     = 50
)

// search is the search tool: the corpus's best passages, no model.
func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, SearchOutput{}, errors.New("search needs a query: what to look for, in plain words")
	}
	k := in.K
	if k == 0 {
		k = defaultK
	}
	if k < 1 || k > maxK {
		return nil, SearchOutput{}, fmt.Errorf("k must be between 1 and %d, not %d", maxK, k)
	}
	name, err := s.corpusFor(in.Corpus)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	c, err := s.corpora.open(ctx, name)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	out := SearchOutput{Corpus: name, Results: []Passage{}}
	docs, err := c.Search(ctx, query, k)
	if err != nil && errors.Is(err, sources.ErrTruncated) && len(docs) > 0 {
		out.Note = oneLine(err)
	} else if err != nil {
		return nil, SearchOutput{}, fmt.Errorf("searching corpus %s failed: %w", name, err)
	}
	for _, d := range docs {
		out.Results = append(out.Results, passageOf(name, d.Sanitized(), searchTextRunes))
	}
	return nil, out, nil
}

// fetch is the fetch tool: one passage, whole.
func (s *Server) fetch(ctx context.Context, _ *mcp.CallToolRequest, in FetchInput) (*mcp.CallToolResult, Passage, error) {
	name, id, ok := parsePassageID(in.ID)
	if !ok {
		return nil, Passage{}, fmt.Errorf("%q is not a passage id: fetch takes an id from search's results (CORPUS:PASSAGE)", in.ID)
	}
	if _, err := s.knownCorpus(name); err != nil {
		return nil, Passage{}, err
	}
	c, err := s.corpora.open(ctx, name)
	if err != nil {
		return nil, Passage{}, err
	}
	lc, ok := c.(*local.Corpus)
	if !ok {
		return nil, Passage{}, fmt.Errorf("corpus %s is a remote index: fetch reads local corpora only, and search's result already holds the passage's text", name)
	}
	d, err := lc.Passage(ctx, id)
	if err != nil {
		return nil, Passage{}, err
	}
	return nil, passageOf(name, d.Sanitized(), 0), nil
}

// corpusFor is the corpus a search goes to: the one named, else the first
// of the user's corpora (the pinned one).
func (s *Server) corpusFor(named string) (string, error) {
	if named = strings.TrimSpace(named); named != "" {
		return s.knownCorpus(named)
	}
	names, err := s.app.CorpusOrder(s.opts.Settings)
	if err != nil {
		return "", err
	}
	if len(names) > 0 {
		return names[0], nil
	}
	if infos, _ := catalog.List(s.app.Cfg.CorporaDir()); len(infos) > 0 {
		return "", errors.New("no corpus is pinned: name one in the corpus argument, or let the user pin one with `prefrag corpora pin NAME`")
	}
	return "", errors.New("the user has no corpus yet: one is created with `prefrag index --corpus NAME FOLDER`")
}

// passageOf is a document as the tools show it, its text cut to at most
// maxRunes (0: whole).
func passageOf(corpus string, d sources.Document, maxRunes int) Passage {
	p := Passage{ID: passageID(corpus, d.ID), Title: d.Title, URL: d.URL, Text: d.Text, Score: d.Score, TitleMatch: d.TitleMatch, Locator: d.Locator, Source: d.Source}
	if d.Ranks != nil {
		p.BM25Rank, p.VectorRank = rank(d.Ranks.BM25), rank(d.Ranks.Vector)
	}
	if p.URL == "" {
		p.URL = fileURL(d.Locator)
	}
	if r := []rune(p.Text); maxRunes > 0 && len(r) > maxRunes {
		p.Text, p.Cut = string(r[:maxRunes])+"…", true
	}
	return p
}

// rank is a leg's rank as the tools give it: nil when the leg did not
// find the passage (0).
func rank(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

// passageID is the id search gives a passage and fetch takes:
// CORPUS:PASSAGE ("wiki:notes/a.md#2"). A corpus name holds no colon.
func passageID(corpus, id string) string { return corpus + ":" + id }

// parsePassageID reads an id passageID wrote.
func parsePassageID(s string) (corpus, id string, ok bool) {
	corpus, id, ok = strings.Cut(strings.TrimSpace(s), ":")
	return corpus, id, ok && corpus != "" && id != ""
}

// fileURL is a file:// URL of a locator's file ("/notes/a.md#120" →
// "file:///notes/a.md"); "" when the locator names no absolute path.
func fileURL(locator string) string {
	path := locator
	if i := strings.LastIndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if path == "" || !filepath.IsAbs(path) {
		return ""
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// corpusCache keeps the corpora the tools opened, so that a search does
// not open its index each time (a local corpus still releases its index
// when idle, so `prefrag index` can update it).
type corpusCache struct {
	app    *app.App
	mu     sync.Mutex
	opened map[string]app.Corpus
}

func newCorpusCache(a *app.App) *corpusCache {
	return &corpusCache{app: a, opened: map[string]app.Corpus{}}
}

func (c *corpusCache) open(ctx context.Context, name string) (app.Corpus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.opened[name]; ok {
		return got, nil
	}
	got, err := c.app.OpenCorpus(ctx, name)
	if err != nil {
		return nil, err
	}
	c.opened[name] = got
	return got, nil
}

func (c *corpusCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, got := range c.opened {
		got.Close()
		delete(c.opened, name)
	}
}
