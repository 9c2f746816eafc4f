package fakellm

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// The fake's embedding model. A real embedding model puts texts that mean
// the same close together even when they share no word; the fake does it
// with a small table of concepts: every word is looked up in Concepts
// (after lower-casing and dropping a plural "s"), words of one concept get
// the same direction, any other word a direction of its own (derived from
// the word), stop words none. A text's vector is the normalised sum of its
// words' directions, so "mend an automobile" and "car repair" come out
// (nearly) equal, and "car repair" and "bread recipe" far apart.

// Concepts maps a word to its concept: the words of one group are
// synonyms to the fake.
var Concepts = conceptTable(conceptGroups)

// conceptGroups are the synonyms, the concept's own word first.
var conceptGroups = [][]string{
	{"car", "automobile", "auto", "motorcar", "vehicle"},
	{"repair", "mend", "fix", "fixing", "mending", "repairing", "service", "servicing", "restore"},
	{"house", "home", "dwelling", "residence"},
	{"doctor", "physician", "medic", "clinician"},
	{"buy", "purchase", "acquire", "buying"},
	{"big", "large", "huge", "enormous"},
	{"film", "movie", "picture", "motion-picture"},
	{"child", "kid", "youngster", "children"},
	{"begin", "start", "commence", "starting"},
	{"illness", "disease", "sickness", "ailment"},
	{"ship", "boat", "vessel"},
	{"rapid", "fast", "quick", "speedy"},
}

func conceptTable(groups [][]string) map[string]string {
	m := make(map[string]string)
	for _, g := range groups {
		for _, w := range g {
			m[w] = g[0]
		}
	}
	return m
}

// stopWords carry no meaning for the fake.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "and": true, "or": true,
	"how": true, "do": true, "i": true, "my": true, "is": true, "are": true, "for": true, "with": true, "what": true,
	"it": true, "its": true, "this": true, "that": true, "by": true, "at": true, "be": true, "can": true, "you": true,
}

// DefaultEmbedDims is the length of the fake's vectors unless EmbedDims
// says otherwise.
const DefaultEmbedDims = 64

// Embed is the fake model's vector of text: dims floats of unit length
// (all zeros but the first for a text with no meaningful word).
func Embed(text string, dims int) []float32 {
	v := make([]float64, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	}) {
		if stopWords[w] {
			continue
		}
		c, ok := Concepts[w]
		if !ok && len(w) > 3 && strings.HasSuffix(w, "s") {
			c, ok = Concepts[strings.TrimSuffix(w, "s")]
			if !ok {
				w = strings.TrimSuffix(w, "s")
			}
		}
		if !ok {
			c = w
		}
		addDirection(v, c)
	}
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	out := make([]float32, dims)
	if sum == 0 {
		out[0] = 1
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// addDirection adds the unit direction of concept c to v: Gaussian-like
// values drawn from a generator seeded by the concept.
func addDirection(v []float64, c string) {
	h := fnv.New64a()
	h.Write([]byte(c))
	state := h.Sum64() | 1
	d := make([]float64, len(v))
	var sum float64
	for i := range d {
		// xorshift64*, then a sum of uniforms as a rough Gaussian.
		var g float64
		for range 4 {
			state ^= state >> 12
			state ^= state << 25
			state ^= state >> 27
			g += float64((state*2685821657736338717)>>11)/float64(1<<53) - 0.5
		}
		d[i] = g
		sum += g * g
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] += d[i] * inv
	}
}
