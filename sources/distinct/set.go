// Package distinct finds the distinctive strings of a corpus — identifiers,
// long numbers, rare names and runs of words — and whether a text carries
// one. prefrag builds a Set from each never-leave corpus and checks every
// query that would leave the machine against it (DESIGN.md, trust rules:
// "a never-leave corpus's distinctive strings never leave the machine,
// whoever put them into a query"), so that a secret reaches no search
// engine whether it came from a passage, the user's follow-up, a rewrite or
// an earlier answer, while a query of ordinary words that merely also occur
// in the corpus is let through.
//
// What is distinctive (all compared case-insensitively):
//   - an identifier: a token of at least four letters and digits mixing
//     both ("hunter2-ZEBRA", "AB12C", "covid-19"), not a number with a unit
//     or ordinal ending ("1990s", "4th", "100km"); an e-mail address; a
//     domain name;
//   - a number of at least six digits that is no date, year range, decimal
//     or round figure;
//   - a rare name: a word of three letters or more the corpus writes
//     capitalised in mid-sentence (at most one in ten of its other
//     occurrences lower case) that is no common English word or well-known
//     name (common.txt);
//   - a run of words occurring verbatim in a passage: six words, three of
//     them no function words and two of those no common words; eight
//     words with one such; or ten words, four of them no function words
//     (tiers, runs.go).
//
// A Set answers in microseconds (a map lookup per token and a binary
// search per run; BenchmarkFind). It holds the distinctive words and one
// 64-bit hash per qualifying run position of the corpus.
package distinct

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// Match is a distinctive string found in a text.
type Match struct {
	Kind Kind
	// Text is the string as the text writes it. It is the secret itself:
	// show it to the user, never put it into anything sent off the machine.
	Text string
}

// Set is the distinctive strings of one corpus. It is safe for concurrent
// use.
type Set struct {
	words    map[string]Kind
	runs     [len(tiers)][]uint64 // per tier, sorted: hashes of qualifying windows
	passages int
}

// Stats says what a Set holds.
type Stats struct {
	Passages, Words, Runs int
}

// Stats counts the Set's passages, distinctive words and run hashes.
func (s *Set) Stats() Stats {
	n := 0
	for _, r := range s.runs {
		n += len(r)
	}
	return Stats{Passages: s.passages, Words: len(s.words), Runs: n}
}

// Find returns the first distinctive string of the set that text carries.
func (s *Set) Find(text string) (Match, bool) {
	if s == nil {
		return Match{}, false
	}
	var toks []token
	tokenize(text, false, func(t token) { toks = append(toks, t) })
	for _, t := range toks {
		if k := s.words[t.norm]; k != 0 {
			return Match{Kind: k, Text: t.raw}, true
		}
		for _, p := range t.parts() {
			if k := s.words[p.norm]; k != 0 {
				return Match{Kind: k, Text: p.raw}, true
			}
		}
	}
	{
		w := newWindows(toks, nil)
		for ti, tier := range tiers {
			hashes := s.runs[ti]
			for i := 0; len(hashes) > 0 && i+tier.words <= len(toks); i++ {
				if !w.qualifies(ti, i) {
					continue
				}
				if _, ok := slices.BinarySearch(hashes, w.hash(i, tier.words)); ok {
					last := toks[i+tier.words-1]
					return Match{Kind: Words, Text: text[toks[i].start : last.start+len(last.raw)]}, true
				}
			}
		}
	}
	return Match{}, false
}

// Builder builds a Set from a corpus's passages.
type Builder struct {
	words    map[string]*wordStat
	runs     [len(tiers)][]uint64
	passages uint32
	// commonMemo remembers isCommon per word.
	commonMemo map[string]bool
}

// wordStat is what the corpus says of one word.
type wordStat struct {
	shape Kind
	// capMid counts its occurrences capitalised in mid-sentence, lower its
	// occurrences in lower case anywhere.
	capMid, lower uint32
}

// NewBuilder starts an empty Set.
func NewBuilder() *Builder {
	return &Builder{words: map[string]*wordStat{}, commonMemo: map[string]bool{}}
}

// Add reads one passage.
func (b *Builder) Add(title, text string) {
	b.passages++
	b.addText(title, true)
	b.addText(text, false)
}

func (b *Builder) addText(s string, title bool) {
	// In a text written mostly in capitals, case says nothing of names.
	cased := !shouting(s)
	var toks []token
	tokenize(s, title, func(t token) {
		b.count(t, cased)
		for _, p := range t.parts() {
			b.count(p, false)
		}
		toks = append(toks, t)
	})
	w := newWindows(toks, b.commonMemo)
	for ti, tier := range tiers {
		for i := 0; i+tier.words <= len(toks); i++ {
			if w.qualifies(ti, i) {
				b.runs[ti] = append(b.runs[ti], w.hash(i, tier.words))
			}
		}
	}
}

// count records one occurrence of t; its case is evidence only for a
// whole token (the parts of "j.doe@zorbanek.example" are lower case
// whatever the names they hold).
func (b *Builder) count(t token, whole bool) {
	st := b.words[t.norm]
	if st == nil {
		st = &wordStat{shape: shape(t)}
		b.words[t.norm] = st
	}
	if !whole || t.letters == 0 || t.digits > 0 {
		return
	}
	switch {
	case t.upper && !t.initial:
		st.capMid++
	case !t.upper:
		st.lower++
	}
}

// Set returns the distinctive strings of what was added.
func (b *Builder) Set() *Set {
	s := &Set{words: map[string]Kind{}, passages: int(b.passages)}
	for w, st := range b.words {
		switch {
		case st.shape != 0:
			s.words[w] = st.shape
		case isName(w, st):
			s.words[w] = Name
		}
	}
	for i := range b.runs {
		s.runs[i] = sortedUnique(b.runs[i])
	}
	return s
}

// isName reports whether word w, as the corpus writes it, is a rare name.
func isName(w string, st *wordStat) bool {
	if st.capMid == 0 || st.lower*10 > st.capMid || utf8.RuneCountInString(w) < 3 || isCommon(w) || notAName(w) {
		return false
	}
	// A joined word ("jean-luc", "o'brien") made of common parts is common.
	rare := false
	tokenizeParts(w, func(p token) { rare = rare || !isCommon(p.norm) })
	return rare
}

var (
	// romanNumeral is a number such as "iii" or "xiv" ("Henry III").
	romanNumeral = lazyre.New(`^[ivxlcdm]{1,6}$`)
	// wordEnding is an ending English gives words and seldom names
	// ("detachment", "vibrations", "restless").
	wordEnding = lazyre.New(`(tion|tions|sion|sions|ment|ments|ness|ity|ities|ance|ances|ence|ences|less|ful|ism|isms|ous|ive|ives|able|ible|ship|hood|ward|wards|ology|ical|ically|izing|ising|ized|ised)$`)
)

// notAName is a capitalised word that is no name by its form: an
// abbreviation ("U.S"), a Roman numeral, a contraction ("I'd", "Can't"),
// a word with an ending of English words.
func notAName(w string) bool {
	if strings.ContainsAny(w, "./@_") || romanNumeral().MatchString(w) || wordEnding().MatchString(w) {
		return true
	}
	if i := strings.IndexByte(w, '\''); i >= 0 {
		// O'Brien and D'Angelo are names; I'd, can't and you'll are not.
		return i != 1 || len(w) < 5
	}
	return false
}

// shouting reports whether most of s's cased letters are capitals.
func shouting(s string) bool {
	upper, lower := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper > lower
}

func sortedUnique(h []uint64) []uint64 {
	slices.Sort(h)
	return slices.Compact(h)
}
