package distinct

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed common.txt
var commonText string

// commonWords are ordinary English words and well-known names
// (common.txt) and, second, the function words among them. They are read
// the first time a never-leave check needs them, not when the binary
// starts (TestBinaryLinksNoHeavyInit).
var commonWords = sync.OnceValues(func() (map[string]bool, map[string]bool) { return loadCommon(commonText) })

// loadCommon reads common.txt: words separated by spaces and lines, "#"
// starting a comment; the words under the "# function words" heading are
// also stop words.
func loadCommon(text string) (words, stopWords map[string]bool) {
	words, stopWords = map[string]bool{}, map[string]bool{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
			if c = strings.TrimSpace(c); c != "" && !strings.Contains(c, ".") && !strings.Contains(c, ":") {
				section = c
			}
			continue
		}
		for _, w := range strings.Fields(line) {
			words[w] = true
			if section == "function words" {
				stopWords[w] = true
			}
		}
	}
	return words, stopWords
}

// endings are the inflections isCommon undoes: a word is common when the
// word with its ending replaced is.
var endings = []struct{ cut, add string }{
	{"ies", "y"}, {"ied", "y"}, {"ier", "y"}, {"iest", "y"}, {"ily", "y"},
	{"ings", ""}, {"ing", ""}, {"ing", "e"},
	{"ers", ""}, {"ers", "e"}, {"er", ""}, {"er", "e"}, {"est", ""}, {"est", "e"},
	{"ed", ""}, {"ed", "e"}, {"es", ""}, {"s", ""}, {"ly", ""}, {"ally", ""},
	{"ness", ""}, {"ment", ""}, {"ments", ""}, {"ions", "e"}, {"ion", "e"}, {"ions", ""}, {"ion", ""},
}

// isCommon reports whether w (lower case) is an ordinary English word or a
// well-known name, in any of its common inflections ("states", "played",
// "running", "cities").
func isCommon(w string) bool {
	common, _ := commonWords()
	if common[w] {
		return true
	}
	for _, e := range endings {
		base, ok := strings.CutSuffix(w, e.cut)
		if !ok || len(base) < 2 {
			continue
		}
		if common[base+e.add] {
			return true
		}
		// running → runn → run
		if n := len(base); e.add == "" && n >= 3 && base[n-1] == base[n-2] && common[base[:n-1]] {
			return true
		}
	}
	return false
}
