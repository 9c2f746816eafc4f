package local

import (
	"reflect"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// analysedField is an indexed text field whose length and term frequencies
// were computed when the passage was built (fastEN.analyse): what a
// document.TextField holds after Analyze, without the tokens. The body's
// value (title, newline, text) is only made if asked for: it is indexed,
// not stored, and the index never asks.
type analysedField struct {
	name        string
	value       []byte
	title, text string // the body's value, when value is nil
	opts        index.FieldIndexingOptions
	length      int
	freqs       index.TokenFrequencies
}

var sizeOfTextField = int(reflect.TypeOf(document.TextField{}).Size())

func (f *analysedField) Name() string                                     { return f.name }
func (f *analysedField) ArrayPositions() []uint64                         { return nil }
func (f *analysedField) Options() index.FieldIndexingOptions              { return f.opts }
func (f *analysedField) Analyze()                                         {}
func (f *analysedField) EncodedFieldType() byte                           { return 't' }
func (f *analysedField) AnalyzedLength() int                              { return f.length }
func (f *analysedField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
func (f *analysedField) Text() string                                     { return string(f.Value()) }

func (f *analysedField) Value() []byte {
	if f.value != nil {
		return f.value
	}
	return []byte(bodyOf(f.title, f.text))
}

func (f *analysedField) NumPlainTextBytes() uint64 { return uint64(f.valueLen()) }

func (f *analysedField) valueLen() int {
	if f.value != nil {
		return len(f.value)
	}
	return len(bodyOf(f.title, "")) + len(f.text) // without building it
}

// Size is what document.TextField.Size says for the same field.
func (f *analysedField) Size() int {
	n := sizeOfTextField + 8 + len(f.name) + f.valueLen()
	if f.freqs != nil {
		n += f.freqs.Size()
	}
	return n
}

// bodyOf is the body of a passage: its title and text on lines of their
// own, the text alone without a title.
func bodyOf(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n" + text
}

// passageFields are the fields of a passage, allocated together.
type passageFields struct {
	body, title, text, file, loc, url analysedField
	fileFreq                          index.TokenFreq
	fields                            [6]document.Field
}

// buildAnalysed is build for a passage analysed by fastEN: the same
// document, field for field (TestBuildFastMatchesBleve), in a few
// allocations: one for the fields, one for their bytes, the document and
// the term frequencies.
func (a analyzers) buildAnalysed(p passage, pa passageAnalysis) built {
	buf := make([]byte, 0, len(p.Title)+len(p.Text)+len(p.File)+len(p.Loc)+len(p.URL))
	bytesOf := func(s string) []byte {
		start := len(buf)
		buf = append(buf, s...)
		return buf[start:len(buf):len(buf)] // an append copies
	}
	pf := &passageFields{
		body: analysedField{name: fieldBody, title: p.Title, text: p.Text, opts: index.IndexField,
			length: pa.bodyLen, freqs: pa.body},
		title: analysedField{name: fieldTitle, value: bytesOf(p.Title), opts: index.IndexField | index.StoreField,
			length: pa.titleLen, freqs: pa.title},
		text: analysedField{name: fieldText, value: bytesOf(p.Text), opts: index.StoreField},
		file: analysedField{name: fieldFile, value: bytesOf(p.File), opts: index.IndexField | index.StoreField},
	}
	doc := document.NewDocument(p.ID)
	doc.Fields = pf.fields[:0]
	doc.AddField(&pf.body)
	doc.AddField(&pf.title)
	doc.AddField(&pf.text)
	if isKeyword(a.keyword) {
		// The keyword analyser's one token: the whole value.
		pf.fileFreq.Term = pf.file.value
		pf.fileFreq.SetFrequency(1)
		pf.file.length = 1
		pf.file.freqs = index.TokenFrequencies{p.File: &pf.fileFreq}
		doc.AddField(&pf.file)
	} else {
		doc.AddField(document.NewTextFieldCustom(fieldFile, nil, pf.file.value, index.IndexField|index.StoreField, a.keyword))
	}
	if p.Loc != "" {
		pf.loc = analysedField{name: fieldLoc, value: bytesOf(p.Loc), opts: index.StoreField}
		doc.AddField(&pf.loc)
	}
	if p.URL != "" {
		pf.url = analysedField{name: fieldURL, value: bytesOf(p.URL), opts: index.StoreField}
		doc.AddField(&pf.url)
	}
	return built{
		doc:         doc,
		id:          p.ID,
		file:        p.File,
		bodyTokens:  int64(pa.bodyLen),
		titleTokens: int64(pa.titleLen),
		size:        pf.body.valueLen() + len(p.Text) + len(p.Loc) + len(p.URL) + len(p.File) + len(p.ID),
	}
}

// isKeyword says whether a is Bleve's keyword analyser: one token, the
// whole value, as it is.
func isKeyword(a analysis.Analyzer) bool {
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(d.CharFilters) > 0 || len(d.TokenFilters) > 0 {
		return false
	}
	_, ok = d.Tokenizer.(*single.SingleTokenTokenizer)
	return ok
}

// fastOf is the fast analyser of a worker's analyser (see withStemCache),
// nil if it has none.
func fastOf(a analysis.Analyzer) *fastEN {
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok {
		return nil
	}
	for _, f := range d.TokenFilters {
		if c, ok := f.(*cachedPorter); ok {
			return c.fast
		}
	}
	return nil
}
