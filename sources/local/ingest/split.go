// Package ingest turns files of outside text into passages: it detects binary
// files, cleans control characters, splits long text on paragraph and
// sentence boundaries, and extracts the main text of .jsonl, .html, .docx and
// .pdf files. It knows nothing of the index the passages go to.
package ingest

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Passage is one piece of a split text.
type Passage struct {
	Text string
	// Offset is the byte offset in the input stream of the passage's first
	// byte (its first word: leading whitespace is dropped).
	Offset int64
	// Words is the number of whitespace-separated words in Text.
	Words int
}

// Default passage sizes, in words.
const (
	DefaultMinWords = 100
	DefaultMaxWords = 200
	// DefaultMaxBytes bounds one passage even when the text has no spaces
	// (a giant token, text without word separators).
	DefaultMaxBytes = 16 << 10
)

// Splitter cuts a stream of UTF-8 text into passages of about MinWords to
// MaxWords words. It prefers to cut at a blank line (paragraph end), then at
// a sentence end, and cuts inside a sentence only when nothing better lies
// within the size limits. It holds at most one passage in memory, so a text of
// any length streams through it. Write it the text (it is an io.Writer), then
// Close it to get the last passage.
type Splitter struct {
	min, max, maxBytes int
	emit               func(Passage) error

	buf         []byte // the passage in progress, from its first word
	start       int64  // stream offset of buf[0]
	pos         int64  // stream offset of the next byte written
	words       int    // words begun in buf
	inWord      bool
	lastWordEnd int // len(buf) when the last word ended
	newlines    int // newlines in the current whitespace run
	bounds      []bound
	err         error
}

// bound is a place where a passage may end: after the word that makes it
// hold `words` words, at buf[:at].
type bound struct {
	at, words int
	para      bool
}

// NewSplitter returns a splitter that calls emit for every passage, in order.
// Sizes of zero or less take the defaults; maxWords is raised to minWords.
func NewSplitter(minWords, maxWords int, emit func(Passage) error) *Splitter {
	if minWords <= 0 {
		minWords = DefaultMinWords
	}
	if maxWords <= 0 {
		maxWords = DefaultMaxWords
	}
	if maxWords < minWords {
		maxWords = minWords
	}
	return &Splitter{min: minWords, max: maxWords, maxBytes: DefaultMaxBytes, emit: emit}
}

// Offset returns the number of bytes written so far.
func (s *Splitter) Offset() int64 { return s.pos }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Write feeds text to the splitter. It fails only when emit failed.
func (s *Splitter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	for i, c := range p {
		if isSpace(c) {
			s.space(c)
		} else {
			s.nonSpace(c)
		}
		s.pos++
		if s.err != nil {
			return i + 1, s.err
		}
	}
	return len(p), nil
}

func (s *Splitter) space(c byte) {
	if s.inWord {
		s.endWord()
	}
	if c == '\n' {
		s.newlines++
		if s.newlines == 2 && s.words > 0 {
			s.paragraphEnd()
		}
	}
	if len(s.buf) > 0 {
		s.buf = append(s.buf, c)
	}
}

func (s *Splitter) nonSpace(c byte) {
	if !s.inWord {
		if s.words >= s.max || len(s.buf) >= s.maxBytes {
			s.cut()
			if s.err != nil {
				return
			}
		}
		if len(s.buf) == 0 {
			s.start = s.pos
		}
		s.inWord = true
		s.words++
		s.newlines = 0
	} else if len(s.buf) >= s.maxBytes && c&0xC0 != 0x80 {
		// A run of text without spaces that fills a whole passage: cut it
		// at this rune boundary and keep going with the rest of the word.
		s.flushAll()
		if s.err != nil {
			return
		}
		s.start = s.pos
		s.words = 1
	}
	s.buf = append(s.buf, c)
}

func (s *Splitter) endWord() {
	s.inWord = false
	s.lastWordEnd = len(s.buf)
	if endsSentence(s.buf) {
		s.bounds = append(s.bounds, bound{at: len(s.buf), words: s.words})
	}
}

// endsSentence reports whether the word at the end of b closes a sentence:
// its last character, closing quotes and brackets aside, is . ! ? or an
// ellipsis.
func endsSentence(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeLastRune(b)
		switch r {
		case '"', '\'', ')', ']', '}', '\u2019', '\u201d', '\u00bb', '*', '_':
			b = b[:len(b)-size]
			continue
		case '.', '!', '?', '\u2026', '\u3002':
			return true
		}
		return false
	}
	return false
}

func (s *Splitter) paragraphEnd() {
	if n := len(s.bounds); n > 0 && s.bounds[n-1].at == s.lastWordEnd {
		s.bounds[n-1].para = true
	} else {
		s.bounds = append(s.bounds, bound{at: s.lastWordEnd, words: s.words, para: true})
	}
	if s.words >= s.min {
		s.emitUpTo(s.bounds[len(s.bounds)-1])
	}
}

// cut ends the passage in progress because it is full: at the last paragraph
// end that leaves at least min words, else the last sentence end that does,
// else any boundary with at least min/2 words, else right here.
func (s *Splitter) cut() {
	choice := bound{at: s.lastWordEnd, words: s.words}
	found := false
	for i := len(s.bounds) - 1; i >= 0 && !found; i-- {
		if b := s.bounds[i]; b.para && b.words >= s.min {
			choice, found = b, true
		}
	}
	for i := len(s.bounds) - 1; i >= 0 && !found; i-- {
		if b := s.bounds[i]; b.words >= s.min {
			choice, found = b, true
		}
	}
	for i := len(s.bounds) - 1; i >= 0 && !found; i-- {
		if b := s.bounds[i]; b.words >= s.min/2 {
			choice, found = b, true
		}
	}
	s.emitUpTo(choice)
}

// emitUpTo emits buf[:b.at] and keeps the rest as the start of the next
// passage.
func (s *Splitter) emitUpTo(b bound) {
	text := bytes.TrimRight(s.buf[:b.at], " \t\n\r\f\v")
	if len(text) > 0 {
		s.send(Passage{Text: Clean(text), Offset: s.start, Words: b.words})
	}
	rest := s.buf[b.at:]
	skip := 0
	for skip < len(rest) && isSpace(rest[skip]) {
		skip++
	}
	shift := b.at + skip
	n := copy(s.buf, rest[skip:])
	s.buf = s.buf[:n]
	s.start += int64(shift)
	s.words -= b.words
	s.lastWordEnd -= shift
	if s.lastWordEnd < 0 {
		s.lastWordEnd = 0
	}
	kept := s.bounds[:0]
	for _, o := range s.bounds {
		if o.at > b.at {
			o.at -= shift
			o.words -= b.words
			kept = append(kept, o)
		}
	}
	s.bounds = kept
}

// flushAll emits everything held and empties the splitter.
func (s *Splitter) flushAll() {
	text := bytes.TrimRight(s.buf, " \t\n\r\f\v")
	if len(text) > 0 {
		s.send(Passage{Text: Clean(text), Offset: s.start, Words: s.words})
	}
	s.buf = s.buf[:0]
	s.words = 0
	s.lastWordEnd = 0
	s.bounds = s.bounds[:0]
}

func (s *Splitter) send(p Passage) {
	// A "word" made only of control characters cleans away to nothing.
	p.Text = strings.TrimSpace(p.Text)
	if p.Text == "" {
		return
	}
	p.Words = CountWords(p.Text)
	if s.err == nil {
		s.err = s.emit(p)
	}
}

// Close emits the last passage. The splitter can be used again afterwards;
// offsets keep counting from where they were.
func (s *Splitter) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.inWord {
		s.endWord()
	}
	if s.words > 0 {
		s.flushAll()
	}
	s.buf = s.buf[:0]
	s.newlines = 0
	return s.err
}

// Split splits a whole string with the given sizes.
func Split(text string, minWords, maxWords int) []Passage {
	var out []Passage
	sp := NewSplitter(minWords, maxWords, func(p Passage) error {
		out = append(out, p)
		return nil
	})
	_, _ = sp.Write([]byte(text))
	_ = sp.Close()
	return out
}

// CountWords counts whitespace-separated words.
func CountWords(text string) int {
	n := 0
	in := false
	for i := 0; i < len(text); i++ {
		if isSpace(text[i]) {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}
