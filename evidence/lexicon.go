package evidence

import "sync"

// lexicon holds the word lists the splitter and the aligner use. It is
// built on first use, so that a binary linking this package allocates
// nothing for it at start-up.
type lexicon struct {
	concepts                                      map[string]string
	dateCue, months, stopwords, pronouns          map[string]bool
	qtyCue, qtyWords, compareWords                map[string]bool
	titleAbbrev, numberAbbrev, endAbbrev, openers map[string]bool
}

var lex = sync.OnceValue(func() *lexicon {
	return &lexicon{
		concepts: newConcepts(), dateCue: newDateCue(), months: newMonths(),
		stopwords: newStopwords(), pronouns: newPronouns(),
		titleAbbrev: newTitleAbbrev(), numberAbbrev: newNumberAbbrev(),
		endAbbrev: newEndAbbrev(), openers: newOpeners(),
		qtyCue: newQtyCue(), qtyWords: newQtyWords(), compareWords: newCompareWords(),
	}
})
