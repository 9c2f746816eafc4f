package local

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Fields of a passage document. "body" (title and text, analysed with
// Bleve's en analyzer) is what BM25 ranks; "title" is indexed too for the
// optional title boost; the rest is stored for display and citation.
const (
	fieldBody  = "body"
	fieldTitle = "title"
	fieldText  = "text"
	fieldFile  = "file"
	fieldLoc   = "loc"
	fieldURL   = "url"
)

// Internal-storage keys. They are written in the same Bleve batch as the
// passages they describe, so counts and manifest never disagree with the
// index, even after a crash or a cancelled ingest.
const (
	keySchema     = "prefrag/schema"
	keyStats      = "prefrag/stats"
	keyFilePrefix = "prefrag/file/"
	schemaVersion = "1"
)

// collectionStats are the corpus-wide counters kept in internal storage.
type collectionStats struct {
	Documents   int64     `json:"documents"`
	BodyTokens  int64     `json:"body_tokens"`
	TitleTokens int64     `json:"title_tokens"`
	Updated     time.Time `json:"updated"`
}

// fileEntry is one manifest entry: what was indexed from a file.
type fileEntry struct {
	Size     int64  `json:"size"`
	ModTime  int64  `json:"mtime"` // Unix nanoseconds
	Hash     string `json:"sha256,omitempty"`
	Complete bool   `json:"complete"`
	// Titles is the titlesVersion the file's titles were extracted with
	// (0 before titles had versions).
	Titles int `json:"titles,omitempty"`
	// What the file contributed, to undo when it changes or disappears.
	Documents   int64 `json:"documents"`
	Passages    int64 `json:"passages"`
	BodyTokens  int64 `json:"body_tokens"`
	TitleTokens int64 `json:"title_tokens"`
	// Skipped are the .jsonl lines left out of the corpus (the first
	// maxSkippedKept of them; MoreSkipped counts the rest): every run that
	// finds the file unchanged reports them again, since their documents are
	// still missing.
	Skipped     []skippedLine `json:"skipped,omitempty"`
	MoreSkipped int           `json:"more_skipped,omitempty"`
}

// skippedLine is a .jsonl line left out, and why.
type skippedLine struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// maxSkippedKept bounds the skipped lines a manifest entry keeps.
const maxSkippedKept = 20

// titlesVersion numbers the title extraction. A file indexed with an older
// one is extracted again by the next index run even when it is unchanged,
// if its format's titles changed since (see retitled).
//
//	1: first line of a text file, PDF /Title or the first line of page 1,
//	   junk PDF and DOCX metadata titles ignored.
const titlesVersion = 1

// retitled says whether title extraction for this file's format changed
// after the entry's version: plain text, markdown, PDF and DOCX (junk
// titles ignored) got new titles in version 1; JSONL, HTML and EPUB titles
// did not change, so those
// files (a large JSONL corpus above all) are not read again for it.
func retitled(path string, e *fileEntry) bool {
	if e.Titles >= titlesVersion {
		return false
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".html", ".htm", ".epub":
		return false
	}
	return true
}

func fileKey(path string) []byte { return []byte(keyFilePrefix + path) }

func decodeStats(b []byte) (collectionStats, error) {
	var s collectionStats
	if len(b) == 0 {
		return s, nil
	}
	err := json.Unmarshal(b, &s)
	return s, err
}

func decodeEntry(b []byte) (*fileEntry, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var e fileEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// newMapping describes the passage fields. Documents are built by hand
// (buildDocument) so that each text is analysed once, but the mapping is kept
// in the index so tools and queries see the same analysers.
func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = en.AnalyzerName
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	body := bleve.NewTextFieldMapping()
	body.Analyzer = en.AnalyzerName
	body.Store = false
	body.IncludeTermVectors = false
	body.IncludeInAll = false
	body.DocValues = false

	title := bleve.NewTextFieldMapping()
	title.Analyzer = en.AnalyzerName
	title.IncludeTermVectors = false
	title.IncludeInAll = false
	title.DocValues = false

	stored := bleve.NewTextFieldMapping()
	stored.Index = false
	stored.IncludeTermVectors = false
	stored.IncludeInAll = false
	stored.DocValues = false

	file := bleve.NewKeywordFieldMapping()
	file.IncludeTermVectors = false
	file.IncludeInAll = false
	file.DocValues = false

	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldBody, body)
	dm.AddFieldMappingsAt(fieldTitle, title)
	dm.AddFieldMappingsAt(fieldText, stored)
	dm.AddFieldMappingsAt(fieldLoc, stored)
	dm.AddFieldMappingsAt(fieldURL, stored)
	dm.AddFieldMappingsAt(fieldFile, file)
	im.DefaultMapping = dm
	return im
}

// analyzers are the two analysers passages need.
type analyzers struct {
	en, keyword analysis.Analyzer
}

func lookupAnalyzers(m mapping.IndexMapping) analyzers {
	return analyzers{en: m.AnalyzerNamed(en.AnalyzerName), keyword: m.AnalyzerNamed(keyword.Name)}
}

// preAnalyzed is a text field whose term frequencies were computed when
// the passage was built (in a worker; the text is analysed once, by us, to
// know its exact length for BM25): Bleve's own Analyze, called again
// while a batch is written, has nothing left to do, and the tokens are
// garbage long before the batch is.
type preAnalyzed struct{ *document.TextField }

func (preAnalyzed) Analyze() {}

// tokenHolder hands Bleve tokens computed beforehand, once.
type tokenHolder struct{ ts analysis.TokenStream }

func (h *tokenHolder) Analyze([]byte) analysis.TokenStream { return h.ts }

// countedField is a text field analysed now: it keeps its length and term
// frequencies, not its tokens.
func countedField(name string, value []byte, opts index.FieldIndexingOptions, tokens analysis.TokenStream) document.Field {
	h := &tokenHolder{ts: tokens}
	f := document.NewTextFieldCustom(name, nil, value, opts, h)
	f.Analyze()
	h.ts = nil
	return preAnalyzed{f}
}

// passage is one unit to index.
type passage struct {
	ID, Title, Text, File, Loc, URL string
}

// built is a passage ready for a batch, with its token lengths.
type built struct {
	doc         *document.Document
	id, file    string
	bodyTokens  int64
	titleTokens int64
	size        int
}

func (a analyzers) build(p passage) built {
	// A title is one line wherever it comes from (a .jsonl field, a
	// heading, a file name): printed in a listing, a newline in it could
	// forge lines of the program's own output.
	p.Title = oneLine(p.Title)
	if f := fastOf(a.en); f != nil {
		if pa, ok := f.analyse(p.Title, p.Text); ok {
			return a.buildAnalysed(p, pa)
		}
	}
	body := p.Text
	if p.Title != "" {
		body = p.Title + "\n" + p.Text
	}
	// Analysers may rewrite token bytes in place (lowercasing), and tokens
	// point into the text: analyse copies, never the bytes that are stored.
	bodyBytes := []byte(body)
	bodyToks := a.en.Analyze([]byte(body))
	titleBytes := []byte(p.Title)
	var titleToks analysis.TokenStream
	if p.Title != "" {
		titleToks = a.en.Analyze([]byte(p.Title))
	}
	fileBytes := []byte(p.File)
	doc := document.NewDocument(p.ID)
	doc.AddField(countedField(fieldBody, bodyBytes, index.IndexField, bodyToks))
	doc.AddField(countedField(fieldTitle, titleBytes, index.IndexField|index.StoreField, titleToks))
	doc.AddField(document.NewTextFieldWithIndexingOptions(fieldText, nil, []byte(p.Text), index.StoreField))
	doc.AddField(document.NewTextFieldCustom(fieldFile, nil, fileBytes, index.IndexField|index.StoreField, a.keyword))
	if p.Loc != "" {
		doc.AddField(document.NewTextFieldWithIndexingOptions(fieldLoc, nil, []byte(p.Loc), index.StoreField))
	}
	if p.URL != "" {
		doc.AddField(document.NewTextFieldWithIndexingOptions(fieldURL, nil, []byte(p.URL), index.StoreField))
	}
	return built{
		doc:         doc,
		id:          p.ID,
		file:        p.File,
		bodyTokens:  int64(len(bodyToks)),
		titleTokens: int64(len(titleToks)),
		size:        len(bodyBytes) + len(p.Text) + len(p.Loc) + len(p.URL) + len(fileBytes) + len(p.ID),
	}
}
