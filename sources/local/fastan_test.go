package local

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// fieldAnalysis is a field's length and term frequencies.
type fieldAnalysis struct {
	length int
	freqs  map[string]int
}

func (a fieldAnalysis) String() string {
	keys := slices.Sorted(maps.Keys(a.freqs))
	var sb strings.Builder
	fmt.Fprintf(&sb, "len %d:", a.length)
	for _, k := range keys {
		fmt.Fprintf(&sb, " %q×%d", k, a.freqs[k])
	}
	return sb.String()
}

func freqsOf(t testing.TB, tfs index.TokenFrequencies) map[string]int {
	t.Helper()
	m := make(map[string]int, len(tfs))
	for k, tf := range tfs {
		if string(tf.Term) != k {
			t.Fatalf("term %q filed under %q", tf.Term, k)
		}
		if len(tf.Locations) != 0 {
			t.Fatalf("term %q has locations", k)
		}
		m[k] = tf.Frequency()
	}
	return m
}

// bleveAnalysis is what Bleve's en analyser gives the body (title, newline,
// text) and the title of a passage, as build did before fastEN.
func bleveAnalysis(t testing.TB, en analysis.Analyzer, title, text string) (body, ttl fieldAnalysis) {
	t.Helper()
	one := func(s string) fieldAnalysis {
		if s == "" {
			return fieldAnalysis{freqs: map[string]int{}}
		}
		ts := en.Analyze([]byte(s))
		return fieldAnalysis{length: len(ts), freqs: freqsOf(t, analysis.TokenFrequency(ts, nil, index.IndexField))}
	}
	return one(bodyOf(title, text)), one(title)
}

// fastAnalysis is the same from fastEN; ok false when it leaves the passage
// to Bleve.
func fastAnalysis(t testing.TB, f *fastEN, title, text string) (body, ttl fieldAnalysis, ok bool) {
	t.Helper()
	pa, ok := f.analyse(title, text)
	if !ok {
		return body, ttl, false
	}
	return fieldAnalysis{pa.bodyLen, freqsOf(t, pa.body)}, fieldAnalysis{pa.titleLen, freqsOf(t, pa.title)}, true
}

// checkFast compares fastEN with Bleve on one passage.
func checkFast(t testing.TB, en analysis.Analyzer, f *fastEN, title, text string) {
	t.Helper()
	wantBody, wantTitle := bleveAnalysis(t, en, title, text)
	gotBody, gotTitle, ok := fastAnalysis(t, f, title, text)
	if !ok {
		if utf8.ValidString(title) && utf8.ValidString(text) {
			t.Fatalf("fast path refused valid UTF-8 title %q text %q", title, text)
		}
		return
	}
	if gotBody.String() != wantBody.String() {
		t.Fatalf("title %q text %q: body\nbleve %s\nfast  %s", title, text, wantBody, gotBody)
	}
	if gotTitle.String() != wantTitle.String() {
		t.Fatalf("title %q text %q: title\nbleve %s\nfast  %s", title, text, wantTitle, gotTitle)
	}
}

// workerAnalyzers are the en analyser and a worker's copy with its fast
// path, as the writer's workers have them.
func workerAnalyzers(t testing.TB) (analysis.Analyzer, *fastEN) {
	t.Helper()
	en := lookupAnalyzers(newMapping()).en
	f := fastOf(withStemCache(en))
	if f == nil {
		t.Fatal("a worker's en analyser has no fast path")
	}
	return en, f
}

// TestFastAnalysisMatchesBleveOnSharedData: for every paragraph of the
// multi-hop pools, the fast path gives the body and the title the terms,
// frequencies and lengths of Bleve's en analyser, with a stem memory that
// holds everything and with one that starts over every few words.
func TestFastAnalysisMatchesBleveOnSharedData(t *testing.T) {
	ps := sharedPassages(t)
	for _, size := range []int{1 << 17, 5} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			defer func(n int) { stemCacheSize = n }(stemCacheSize)
			stemCacheSize = size
			en, f := workerAnalyzers(t)
			step := 1
			if size < 100 {
				step = 7 // a cold memory is slow: every 7th paragraph
			}
			n := 0
			for i := 0; i < len(ps); i += step {
				p := ps[i]
				title := strings.Join(strings.Fields(p.Title), " ")
				checkFast(t, en, f, title, p.Text)
				checkFast(t, en, f, "", p.Text)
				checkFast(t, en, f, title, "")
				n++
			}
			t.Logf("%d paragraphs", n)
		})
	}
}

// fastTricky are texts where a word cutter can go wrong.
var fastTricky = []string{
	"",
	" ",
	"\t\r\n\v\f ",
	"a",
	"The runner's running; RUNNING Runners' generalizations.",
	"the THE The tHe a A an AN And",
	"it's It's IT'S it’s It’S it＇s dogs' dogs’ 's 'S ’s ’S s' 'x",
	"can't won't don't Can’t shouldn’t've rock'n'roll O'Neill d’Artagnan",
	"U.S. U.S.A. e.g. i.e. etc. a.b.c. x.y.z .a. ..a.. a..b a.1 1.a",
	"3.14 1,000 1,000,000.50 12:30 1;2 1'2 1.2.3 .5 5. 1,,2 1..2 ,1 1,",
	"a:b a::b :a a: http://example.com/a_b?c=d&e=f#g mailto:x@y.z",
	"foo_bar _foo foo_ __ _ _1 1_ a_1 1_a a_:b a:_b a_'b _._ 1_.2",
	"abc123 123abc a1b2c3 1a.b a1.2 a.b1.2c:d 2nd 3rd 1980s 1990's",
	"(leading) [brackets] {braces} \"quoted\" 'single' -dash- --double-- ...ellipsis...",
	"trailing, punctuation; everywhere! really? yes: no. #tag @user $5 50% a&b a+b a=b a/b a\\b a|b a~b a^b a*b a<b>c",
	"tabs\tand\ttabs\r\nCRLF\rCR\nLF\vVT\fFF",
	"naïve café résumé façade Ångström Æsir Øresund œuvre Straße ΣΊΣΥΦΟΣ Ⱥⱥ Ⱦ İstanbul",
	"e\u0301cole cafe\u0301 \u0301leading \u0301 mark \u200dzwj a\u200db \u00adsoft a\u00adb \u200b zero",
	"x \u0301y x\t\u0301y x\n\u0301y x\r\n\u0301y \u200d\U0001F44D \u200d",
	"emoji 👍 👍🏽 👨‍👩‍👧 🇫🇷🇩🇪 flag a👍b",
	"東京 日本語テキスト カタカナ ひらがな 한국어 中文。句子 abc東京 東京abc",
	"em—dash en–dash 1990–1995 a—b a–b a‐b a‑b minus−sign",
	"NBSP\u00a0here a\u00a0b thin\u2009space ideographic\u3000space line\u2028sep para\u2029sep nel\u0085x",
	"‘quoted’ “double” «guillemets» ‹single› „low“ a’b a‘b a＇b a．b 1．2 １２３ ＡＢＣ",
	"Hebrew: שלום ש'לום ש\"ל א\"ב Arabic: مرحبا ١٢٣ ٣٫١٤ Greek: Σίσυφος ΟΔΟΣ Cyrillic: Москва",
	"THE AND OF TO IN IS WAS FOR WITH AS BY ON AT BE THIS THAT",
	"Running RUNS ran easily EASILY fairly Generalization caresses ponies ties",
	"x-ray e-mail co-operate well-known state-of-the-art",
	"\x00null\x01ctl\x7fdel",
}

// TestFastAnalysisMatchesBleveTricky: the fast path gives Bleve's en
// analysis on apostrophes, possessives, abbreviations, numbers, '_',
// punctuation, control characters, letters outside ASCII, combining marks
// and joiners after whitespace, emoji, CJK, dashes and odd spaces, as a
// title, as a text and as both.
func TestFastAnalysisMatchesBleveTricky(t *testing.T) {
	en, f := workerAnalyzers(t)
	for _, a := range fastTricky {
		for _, b := range fastTricky {
			checkFast(t, en, f, a, b)
		}
		// Every cut of a into a title and a text.
		for i := range len(a) + 1 {
			if i == len(a) || utf8.RuneStart(a[i]) {
				checkFast(t, en, f, a[:i], a[i:])
			}
		}
	}
}

// TestFastAnalysisLeavesInvalidUTF8ToBleve: Bleve's tokenizer stops at a
// byte that is not UTF-8 after some segments, so such text is not cut into
// chunks; build then gives Bleve's analysis.
func TestFastAnalysisLeavesInvalidUTF8ToBleve(t *testing.T) {
	en, f := workerAnalyzers(t)
	for _, p := range []passage{
		{ID: "a", Title: "ok", Text: "words before - \xff words after"},
		{ID: "b", Title: "bad \xc3", Text: "fine text"},
	} {
		if _, ok := f.analyse(p.Title, p.Text); ok {
			t.Fatalf("%q: the fast path took invalid UTF-8", p.Text)
		}
		checkBuild(t, en, p)
	}
}

// FuzzFastAnalysisMatchesBleve: on any title and text, the fast path gives
// Bleve's en analysis (or leaves the passage to Bleve, for text that is not
// UTF-8), and a title is made one line as before.
func FuzzFastAnalysisMatchesBleve(f *testing.F) {
	for i, s := range fastTricky {
		f.Add(s, fastTricky[(i+7)%len(fastTricky)])
	}
	en, fast := workerAnalyzers(f)
	f.Fuzz(func(t *testing.T, title, text string) {
		checkFast(t, en, fast, title, text)
		if got, want := oneLine(title), strings.Join(strings.Fields(title), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", title, got, want)
		}
	})
}

// checkBuild compares the document build makes in a worker (fast path)
// with the one it makes from Bleve's token streams, field by field, as the
// index sees them after analysing the indexed fields.
func checkBuild(t testing.TB, en analysis.Analyzer, p passage) {
	t.Helper()
	base := lookupAnalyzers(newMapping())
	base.en = en
	worker := base
	worker.en = withStemCache(en)
	want, got := base.build(p), worker.build(p)
	if want.id != got.id || want.file != got.file || want.bodyTokens != got.bodyTokens ||
		want.titleTokens != got.titleTokens || want.size != got.size {
		t.Fatalf("%q: built %+v, want %+v", p.Text, got, want)
	}
	if want.doc.ID() != got.doc.ID() || len(want.doc.Fields) != len(got.doc.Fields) || len(got.doc.CompositeFields) != 0 {
		t.Fatalf("%q: document %#v, want %#v", p.Text, got.doc, want.doc)
	}
	for i, w := range want.doc.Fields {
		g := got.doc.Fields[i]
		if w.Options().IsIndexed() {
			w.Analyze()
			g.Analyze()
		}
		if g.Name() != w.Name() || g.Options() != w.Options() || string(g.Value()) != string(w.Value()) ||
			g.EncodedFieldType() != w.EncodedFieldType() || len(g.ArrayPositions()) != len(w.ArrayPositions()) ||
			g.NumPlainTextBytes() != w.NumPlainTextBytes() || g.Size() != w.Size() ||
			g.AnalyzedLength() != w.AnalyzedLength() {
			t.Fatalf("%q: field %d is %s %v %q len %d size %d, want %s %v %q len %d size %d", p.Text, i,
				g.Name(), g.Options(), g.Value(), g.AnalyzedLength(), g.Size(),
				w.Name(), w.Options(), w.Value(), w.AnalyzedLength(), w.Size())
		}
		gf, wf := fieldAnalysis{g.AnalyzedLength(), freqsOf(t, g.AnalyzedTokenFrequencies())}, fieldAnalysis{w.AnalyzedLength(), freqsOf(t, w.AnalyzedTokenFrequencies())}
		if gf.String() != wf.String() {
			t.Fatalf("%q: field %s\nfast  %s\nbleve %s", p.Text, g.Name(), gf, wf)
		}
		if _, ok := g.(interface{ Text() string }); !ok {
			t.Fatalf("field %s has no Text", g.Name())
		}
	}
}

// TestOneLine: oneLine is strings.Join(strings.Fields(s), " ").
func TestOneLine(t *testing.T) {
	for _, s := range append([]string{" a", "a ", "a  b", "a b", "a\tb", "a\u00a0b", "a\u3000 b", "\u0085", "  ", " "}, fastTricky...) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestBuildFastMatchesBleve: a worker builds the document it built from
// Bleve's token streams: same fields, options, values, lengths, term
// frequencies, sizes and token counts.
func TestBuildFastMatchesBleve(t *testing.T) {
	en, _ := workerAnalyzers(t)
	ps := []passage{
		{ID: "t1", Title: "  Runner's \n World  ", Text: "The runner's running runs.", File: "a.txt", Loc: "p. 1", URL: "http://x"},
		{ID: "t2", Text: "no title at all", File: "b.md"},
		{ID: "t3", Title: "title only", File: "c.jsonl"},
		{ID: "t4", Title: "Café", Text: "naïve \u0301mark 東京 — 1,000", File: "d.html", Loc: "§2"},
		{ID: "t5"},
	}
	for i, s := range fastTricky {
		ps = append(ps, passage{ID: fmt.Sprint("k", i), Title: s, Text: fastTricky[(i+3)%len(fastTricky)], File: "k"})
	}
	if shared := sharedPassagesOrNil(t); len(shared) > 0 {
		for i := 0; i < len(shared); i += 11 {
			ps = append(ps, shared[i])
		}
	}
	for _, p := range ps {
		checkBuild(t, en, p)
	}
}

// sharedPassagesOrNil is sharedPassages without skipping.
func sharedPassagesOrNil(t *testing.T) (ps []passage) {
	t.Run("shared-data", func(t *testing.T) { ps = sharedPassages(t) })
	return ps
}

// TestFastAnalysisMatchesBleveRandom: random strings over the characters
// where the word grammar has cases (letters, digits, '_', the mid
// punctuation, whitespace, letters and marks outside ASCII) give Bleve's
// en analysis.
func TestFastAnalysisMatchesBleveRandom(t *testing.T) {
	en, f := workerAnalyzers(t)
	alphabet := []string{"a", "B", "s", "S", "z", "0", "7", "_", ":", ".", "'", ",", ";", "-", "\"", " ", "\t", "\n", "\r",
		"é", "’", "\u0301", "\u200d", "\u00ad", "東", "カ", "ש", "٣", "\u00a0", "—", "👍", "the", "The", "'s"}
	rng := rand.New(rand.NewSource(12))
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for n := rng.Intn(12); n >= 0; n-- {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		s := sb.String()
		cut := rng.Intn(len(s) + 1)
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		checkFast(t, en, f, s[:cut], s[cut:])
		checkFast(t, en, f, "", s)
	}
}

// TestBuildAllocations: a worker builds a passage of a hundred words in a
// few allocations (the document, its fields, their bytes, the term
// frequency maps), not one token each: 12 here; Bleve's token streams
// took 123.
func TestBuildAllocations(t *testing.T) {
	an := lookupAnalyzers(newMapping())
	an.en = withStemCache(an.en)
	p := passage{ID: "r0000001", Title: "Jeff Porcaro", File: "corpus.jsonl",
		Text: "Jeffrey Thomas Porcaro (April 1, 1954 – August 5, 1992) was an American drummer, songwriter, and record producer. " +
			"In a career that spanned more than 20 years, Porcaro was best known for his work with the rock band Toto. " +
			"Porcaro is one of the most recorded session musicians in history, working on hundreds of albums and thousands of sessions. " +
			"He was posthumously inducted into the Modern Drummer Hall of Fame in 1993, and the band's members called him its heart."}
	an.build(p) // the worker learns the words
	n := testing.AllocsPerRun(200, func() { an.build(p) })
	t.Logf("%.0f allocations per passage", n)
	if n > 24 {
		t.Fatalf("build allocates %.0f objects per passage, want at most 24", n)
	}
}

// TestFastENOnlyForTheEnChain: the fast path stands in only for the en
// chain in its order (possessive, lower case, stop words, stemmer, the
// stemmer cached or not); any other order has none. A misplaced cached
// stemmer used to slip through (its position was not checked).
func TestFastENOnlyForTheEnChain(t *testing.T) {
	en := lookupAnalyzers(newMapping()).en.(*analysis.DefaultAnalyzer)
	cached := withStemCache(en).(*analysis.DefaultAnalyzer)
	possessive, lower, stop, stem, cachedStem := en.TokenFilters[0], en.TokenFilters[1], en.TokenFilters[2], en.TokenFilters[3], cached.TokenFilters[3]
	chain := func(filters ...analysis.TokenFilter) analysis.Analyzer {
		c := *en
		c.TokenFilters = filters
		return &c
	}
	for _, tc := range []struct {
		name string
		a    analysis.Analyzer
		fast bool
	}{
		{"en", en, true},
		{"en, cached stemmer", chain(possessive, lower, stop, cachedStem), true},
		{"cached stemmer first", chain(cachedStem, lower, stop, stem), false},
		{"cached stemmer before the stop words", chain(possessive, lower, cachedStem, stop), false},
		{"stemmer first", chain(stem, lower, stop, stem), false},
		{"three filters", chain(possessive, lower, stop), false},
	} {
		if got := newFastEN(tc.a) != nil; got != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.name, got, tc.fast)
		}
	}
}
