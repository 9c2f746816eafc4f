package local

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
)

// stemCacheSize bounds the words one worker remembers the stem of; the
// cache starts over when it is full.
var stemCacheSize = 1 << 17

// cachedPorter is Bleve's Porter stemmer filter with a memory: the stem of
// a word is a function of the word alone, and a corpus repeats the same
// few thousand words, so each worker stems a word once. Its output is the
// stemmer's, byte for byte (see TestStemCacheMatchesAnalyzer).
type cachedPorter struct {
	stem  *porter.PorterStemmer
	cache map[string][]byte
	one   [1]*analysis.Token
	// fast is the goroutine's fast path for the whole en chain (see
	// fastEN), nil when the chain is another one.
	fast *fastEN
}

func (c *cachedPorter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if t.KeyWord {
			continue
		}
		if s, ok := c.cache[string(t.Term)]; ok {
			// Shared and read-only: an append must copy it.
			t.Term = s[:len(s):len(s)]
			continue
		}
		word := string(t.Term)
		c.one[0] = t
		c.stem.Filter(c.one[:])
		if len(c.cache) >= stemCacheSize {
			clear(c.cache)
		}
		c.cache[word] = t.Term
		t.Term = t.Term[:len(t.Term):len(t.Term)]
	}
	return input
}

// withStemCache returns a copy of analyzer a for one goroutine, its Porter
// stemmer remembering stems; a itself when it has no such stemmer. When a
// is Bleve's en analyser, the copy carries a fastEN that build uses instead
// of the token streams.
func withStemCache(a analysis.Analyzer) analysis.Analyzer {
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok {
		return a
	}
	c := *d
	c.TokenFilters = append([]analysis.TokenFilter(nil), d.TokenFilters...)
	var cp *cachedPorter
	for i, f := range c.TokenFilters {
		if p, ok := f.(*porter.PorterStemmer); ok {
			cp = &cachedPorter{stem: p, cache: make(map[string][]byte)}
			c.TokenFilters[i] = cp
		}
	}
	if cp == nil {
		return a
	}
	cp.fast = newFastEN(&c)
	return &c
}
