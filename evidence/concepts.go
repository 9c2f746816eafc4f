package evidence

import "strings"

// concepts map words that say the same thing in claims and sources to one
// term: "died" and "death", "film" and "movie", "father" and "son of".
func newConcepts() map[string]string {
	concepts := map[string]string{}
	for _, group := range []string{
		"die: die died dies dying death deaths dead deceased",
		"born: born birth births birthplace birthday",
		"film: film films movie movies picture",
		"direct: direct directs directed directing director directors filmmaker filmmakers",
		"kin: father mother son daughter parent parents child children sons daughters fathers mothers stepchild stepson stepdaughter",
		"found: found founded founding founder founders establish established establishment formed create created",
		"marry: married marry marries marriage wife husband spouse widow widower",
		"produce: produce produced producer producers produces producing",
		"write: write wrote written writer writers writes writing",
		"compose: compose composed composer composers",
		"play: play played player players plays playing",
		"release: release released releases",
		"publish: publish published publishes publishing publication publications",
		"nationality: nationality nationalities citizen citizenship country countries",
	} {
		name, words, _ := strings.Cut(group, ":")
		for _, w := range strings.Fields(words) {
			concepts[w] = "~" + name
		}
	}
	return concepts
}

// dateCue words make a claim about time: a sentence carrying a date or a
// year speaks to it ("which film came out first" – "released in 1974").
func newDateCue() map[string]bool {
	return map[string]bool{
		"born": true, "die": true, "~born": true, "~die": true, "older": true, "oldest": true,
		"younger": true, "youngest": true, "earlier": true, "earliest": true, "later": true,
		"latest": true, "first": true, "recently": true, "recent": true, "when": true,
		"date": true, "year": true, "years": true, "age": true, "old": true, "long": true,
		"before": true, "after": true, "established": true, "founded": true, "released": true,
	}
}

// months and nationality adjectives mark a sentence as carrying a date or a
// nationality.
func newMonths() map[string]bool {
	return map[string]bool{
		"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
		"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	}
}

// dateTerm is the term a sentence with a date carries.
const dateTerm = "#date"

// qtyCue words make a claim about an amount: a sentence carrying a count
// or a measure speaks to it ("which genus has more species" – "there are
// three species").
func newQtyCue() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`many number taller tallest higher highest larger largest bigger
		biggest smaller smallest fewer fewest height elevation population capacity more most numerous`) {
		m[w] = true
	}
	return m
}

// qtyWords are the number words a sentence states an amount with.
func newQtyWords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`two three four five six seven eight nine ten eleven twelve
		thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty
		sixty seventy eighty ninety hundred hundreds thousand thousands million millions billion
		billions dozen dozens`) {
		m[w] = true
	}
	return m
}

// qtyTerm is the term a sentence with a count or a measure carries.
const qtyTerm = "#qty"

// spanTerm is the term a sentence giving a life's span carries, and a
// claim about when someone was born or died asks for.
const spanTerm = "#span"
