package local

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
)

// fastEN computes what Bleve's en analyser (unicode tokenizer, then the
// possessive, lowercase, stop and Porter filters) gives a passage, as term
// frequencies and a field length, without a token stream:
//
//   - ASCII whitespace always ends a word for the unicode tokenizer (a
//     word never contains it; the segments that start with it are not
//     words), so a text is cut at it into chunks;
//   - a chunk of ASCII bytes is cut into words here, by the ASCII part of
//     the word-break grammar of github.com/blevesearch/segment (asciiWords);
//   - a chunk with another byte is cut by the segment package Bleve's
//     tokenizer uses, from the whitespace before it;
//   - each word goes through Bleve's own filters once per worker, on one
//     reused token (the four filters look at one token at a time), and
//     the result, stop word or term, is remembered for the word as it is
//     written.
//
// Text that is not valid UTF-8 (where the tokenizer can stop early) is
// left to Bleve whole. TestFastAnalysisMatchesBleve* and
// FuzzFastAnalysisMatchesBleve check the output against Bleve's analyser.
//
// A fastEN belongs to one goroutine.
type fastEN struct {
	filters []analysis.TokenFilter

	// words maps a word as written to its term, nil for a stop word.
	words map[string]*fastTerm
	// terms holds one entry per term, its counts for the passage being
	// analysed.
	terms   map[string]*fastTerm
	touched []*fastTerm
	length  [2]int // tokens of the title and of the text

	tok     analysis.Token
	one     [1]*analysis.Token
	scratch []byte
	chunk   []byte
	segs    [][]byte
	types   []int
}

// fastTerm is one analysed term; n counts it in the title and the text of
// the passage being analysed.
type fastTerm struct {
	term string
	b    []byte // term's bytes, shared read-only by every field that has it
	n    [2]int32
}

// Which part of a passage a word is in.
const (
	partTitle = 0
	partText  = 1
)

// newFastEN returns a fast analyser doing what a does, or nil when a is not
// the analyser it knows (the en chain, cached stemmer or not).
func newFastEN(a analysis.Analyzer) *fastEN {
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(d.CharFilters) > 0 {
		return nil
	}
	if _, ok := d.Tokenizer.(*unicode.UnicodeTokenizer); !ok {
		return nil
	}
	if len(d.TokenFilters) != 4 {
		return nil
	}
	filters := make([]analysis.TokenFilter, 0, 4)
	for i, f := range d.TokenFilters {
		ok := false
		switch cf := f.(type) {
		case *en.PossessiveFilter:
			ok = i == 0
		case *lowercase.LowerCaseFilter:
			ok = i == 1
		case *stop.StopTokensFilter:
			ok = i == 2
		case *porter.PorterStemmer:
			ok = i == 3
		case *cachedPorter:
			ok = i == 3
			f = cf.stem
		}
		if !ok {
			return nil
		}
		filters = append(filters, f)
	}
	return &fastEN{
		filters: filters,
		words:   make(map[string]*fastTerm),
		terms:   make(map[string]*fastTerm),
	}
}

// analysis of one passage: the term frequencies and lengths of its body
// (title and text) and of its title.
type passageAnalysis struct {
	body, title       index.TokenFrequencies
	bodyLen, titleLen int
}

// analyse returns the analysis of a passage whose body is title, "\n",
// text (text alone when the title is empty), and ok false when it cannot
// (text that is not UTF-8): the caller then asks Bleve.
//
// The newline is a hard word boundary, so the body's frequencies are the
// title's plus the text's and the title is analysed once.
func (f *fastEN) analyse(title, text string) (passageAnalysis, bool) {
	if !utf8.ValidString(title) || !utf8.ValidString(text) {
		return passageAnalysis{}, false
	}
	if len(f.words) >= stemCacheSize {
		clear(f.words)
		clear(f.terms)
	}
	f.length = [2]int{}
	f.part(title, partTitle)
	f.part(text, partText)

	nTitle := 0
	for _, e := range f.touched {
		if e.n[partTitle] > 0 {
			nTitle++
		}
	}
	freqs := make([]index.TokenFreq, len(f.touched)+nTitle)
	a := passageAnalysis{
		body:     make(index.TokenFrequencies, len(f.touched)),
		title:    make(index.TokenFrequencies, nTitle),
		bodyLen:  f.length[partTitle] + f.length[partText],
		titleLen: f.length[partTitle],
	}
	k := 0
	for _, e := range f.touched {
		tf := &freqs[k]
		k++
		tf.Term = e.b
		tf.SetFrequency(int(e.n[partTitle] + e.n[partText]))
		a.body[e.term] = tf
		if e.n[partTitle] > 0 {
			tf := &freqs[k]
			k++
			tf.Term = e.b
			tf.SetFrequency(int(e.n[partTitle]))
			a.title[e.term] = tf
		}
		e.n = [2]int32{}
	}
	clear(f.touched)
	f.touched = f.touched[:0]
	return a, true
}

// Byte classes of the ASCII word-break grammar.
const (
	cSpace  = 1 << iota // ASCII whitespace: always a boundary
	cLetter             // ALetter
	cDigit              // Numeric
	cUnder              // ExtendNumLet ('_')
	cMidLet             // MidLetter, MidNumLet, Single_Quote: ':' '.' '\''
	cMidNum             // MidNum, MidNumLet, Single_Quote: ',' ';' '.' '\''
	cWord   = cLetter | cDigit | cUnder
)

var asciiClass = func() (t [256]uint8) {
	for _, b := range []byte(" \t\n\v\f\r") {
		t[b] = cSpace
	}
	for b := 'a'; b <= 'z'; b++ {
		t[b] = cLetter
		t[b-'a'+'A'] = cLetter
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = cDigit
	}
	t['_'] = cUnder
	t[':'] = cMidLet
	t['.'] = cMidLet | cMidNum
	t['\''] = cMidLet | cMidNum
	t[','] = cMidNum
	t[';'] = cMidNum
	return t
}()

// part adds the words of s, the title or the text.
func (f *fastEN) part(s string, part int) {
	for i := 0; i < len(s); {
		if asciiClass[s[i]] == cSpace {
			i++
			continue
		}
		start := i
		var high byte
		for i < len(s) && asciiClass[s[i]] != cSpace {
			high |= s[i]
			i++
		}
		if high < utf8.RuneSelf {
			f.asciiWords(s[start:i], part)
			continue
		}
		if start > 0 {
			// From the whitespace before, as the tokenizer sees the chunk
			// in the whole text (the marks after a space belong to it).
			start--
		}
		// What Bleve's unicode tokenizer does, without its allocations:
		// the segments of the chunk, words kept, the others dropped.
		f.chunk = append(f.chunk[:0], s[start:i]...)
		f.segs, f.types, _, _ = segment.SegmentWordsDirect(f.chunk, f.segs[:0], f.types[:0])
		for k, w := range f.segs {
			if f.types[k] != segment.None {
				f.wordBytes(w, part)
			}
		}
	}
}

// asciiWords adds the words of c, ASCII without whitespace, as the
// segment package's word grammar cuts them: letters, digits and '_' stick
// together; ':' '.' '\” join two letters, ',' ';' '.' '\” two digits;
// any other byte is a boundary.
func (f *fastEN) asciiWords(c string, part int) {
	for i := 0; i < len(c); {
		if asciiClass[c[i]]&cWord == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(c) {
			k := asciiClass[c[j]]
			if k&cWord != 0 {
				j++
				continue
			}
			if j+1 < len(c) && k&(cMidLet|cMidNum) != 0 {
				x, y := asciiClass[c[j-1]], asciiClass[c[j+1]]
				if (k&cMidLet != 0 && x == cLetter && y == cLetter) ||
					(k&cMidNum != 0 && x == cDigit && y == cDigit) {
					j += 2
					continue
				}
			}
			break
		}
		f.word(c[i:j], part)
		i = j
	}
}

// word counts a word as written.
func (f *fastEN) word(w string, part int) {
	e, ok := f.words[w]
	if !ok {
		e = f.learn(w)
	}
	f.count(e, part)
}

// wordBytes is word for a segment of a chunk.
func (f *fastEN) wordBytes(w []byte, part int) {
	e, ok := f.words[string(w)]
	if !ok {
		e = f.learn(string(w))
	}
	f.count(e, part)
}

func (f *fastEN) count(e *fastTerm, part int) {
	if e == nil {
		return // a stop word
	}
	f.length[part]++
	if e.n[partTitle] == 0 && e.n[partText] == 0 {
		f.touched = append(f.touched, e)
	}
	e.n[part]++
}

// learn runs Bleve's filters on word w, remembers and returns its term (nil
// for a stop word).
func (f *fastEN) learn(w string) *fastTerm {
	// The filters rewrite token bytes in place: they get a copy.
	f.scratch = append(f.scratch[:0], w...)
	f.tok = analysis.Token{Term: f.scratch, Start: 0, End: len(w), Position: 1, Type: analysis.AlphaNumeric}
	f.one[0] = &f.tok
	ts := analysis.TokenStream(f.one[:])
	for _, flt := range f.filters {
		ts = flt.Filter(ts)
	}
	var e *fastTerm
	if len(ts) == 1 {
		t := ts[0].Term
		if e = f.terms[string(t)]; e == nil {
			s := string(t)
			e = &fastTerm{term: s, b: []byte(s)}
			f.terms[s] = e
		}
	}
	// A key of its own: w may point into a passage.
	f.words[strings.Clone(w)] = e
	return e
}

// oneLine is strings.Join(strings.Fields(s), " "), without allocating when
// s is ASCII and already so.
func oneLine(s string) string {
	ok := len(s) == 0 || (s[0] != ' ' && s[len(s)-1] != ' ')
	for i := 0; ok && i < len(s); i++ {
		switch b := s[i]; {
		case b >= utf8.RuneSelf, b == '\t', b == '\n', b == '\v', b == '\f', b == '\r':
			ok = false
		case b == ' ' && s[i+1] == ' ': // s does not end with a space
			ok = false
		}
	}
	if ok {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
