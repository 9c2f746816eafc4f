package evidence

import (
	"sort"
	"strings"
)

// Claim is one sentence of an answer with the citation numbers it carries.
type Claim struct {
	// Text is the sentence without its citation markers.
	Text string `json:"text"`
	// Citations are the cited passage numbers, ascending, without repeats.
	Citations []int `json:"citations"`
	// Span is where the sentence (markers included) lies in the answer.
	Span Span `json:"span"`
}

// maxCitation bounds a citation number: larger ones are not citations.
const maxCitation = 9999

// SplitClaims splits an answer into claims: its sentences, each with the
// citation numbers it carries ("[1]", "[1, 2]", "[1][3]", "[2-4]").
// Markers that open a sentence ("… in 1887. [1] It …") belong to the
// sentence before. Sentences without a word (a lone marker, a rule) are
// dropped.
func SplitClaims(answer string) []Claim {
	spans := Sentences(answer)
	var out []Claim
	for _, sp := range spans {
		seg := answer[sp.Start:sp.End]
		if IsHeading(seg) {
			continue // a heading claims nothing
		}
		// Leading markers go to the previous claim.
		lead := 0
		for {
			k := skipSpace(seg, lead)
			nums, end, ok := citationAt(seg, k)
			if !ok {
				break
			}
			if len(out) > 0 {
				out[len(out)-1].Citations = append(out[len(out)-1].Citations, nums...)
				out[len(out)-1].Span.End = sp.Start + end
			}
			lead = end
		}
		if lead > 0 {
			sp.Start += skipSpace(seg, lead)
			seg = answer[sp.Start:sp.End]
		}
		text, cites := stripCitations(seg)
		for again := true; again; {
			// Removing "[1]" from "[[1]1]" leaves a marker: strip until none.
			var more []int
			text, more = stripCitations(text)
			cites, again = append(cites, more...), len(more) > 0
		}
		if !hasWord(text) {
			if len(out) > 0 && len(cites) > 0 {
				out[len(out)-1].Citations = append(out[len(out)-1].Citations, cites...)
			}
			continue
		}
		out = append(out, Claim{Text: text, Citations: cites, Span: sp})
	}
	for i := range out {
		out[i].Citations = normalise(out[i].Citations)
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func hasWord(s string) bool {
	for _, t := range tokens(s, nil) {
		if t.term != "" {
			return true
		}
	}
	return false
}

// stripCitations removes the citation markers from a sentence and returns
// the cleaned text and the numbers.
func stripCitations(s string) (string, []int) {
	var b strings.Builder
	var cites []int
	for i := 0; i < len(s); {
		if s[i] == '[' {
			if nums, end, ok := citationAt(s, i); ok {
				cites = append(cites, nums...)
				i = end
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	text := b.String()
	// Tidy the gaps the markers leave: "1887 ." → "1887.", double spaces.
	for _, p := range []string{" .", " ,", " ;", " :", " !", " ?"} {
		text = strings.ReplaceAll(text, p, p[1:])
	}
	for strings.Contains(text, "  ") {
		text = strings.ReplaceAll(text, "  ", " ")
	}
	return strings.TrimSpace(text), cites
}

// citationAt parses a citation marker "[1]", "[1, 2]", "[1; 3]" or "[2-4]"
// at byte i and returns its numbers and the end of the marker.
func citationAt(s string, i int) ([]int, int, bool) {
	if i < 0 || i >= len(s) || s[i] != '[' {
		return nil, 0, false
	}
	var nums []int
	j := i + 1
	for {
		for j < len(s) && s[j] == ' ' {
			j++
		}
		a, k, ok := number(s, j)
		if !ok {
			return nil, 0, false
		}
		j = k
		for j < len(s) && s[j] == ' ' {
			j++
		}
		// A range: "2-4" or "2–4".
		if dash := dashAt(s, j); dash > 0 {
			k := j + dash
			for k < len(s) && s[k] == ' ' {
				k++
			}
			b, k2, ok := number(s, k)
			if !ok || b < a || b-a > 50 {
				return nil, 0, false
			}
			for n := a; n <= b; n++ {
				nums = append(nums, n)
			}
			j = k2
		} else {
			nums = append(nums, a)
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && s[j] == ']' {
			return nums, j + 1, true
		}
		if j < len(s) && (s[j] == ',' || s[j] == ';') {
			j++
			continue
		}
		return nil, 0, false
	}
}

func dashAt(s string, j int) int {
	switch {
	case strings.HasPrefix(s[j:], "-"):
		return 1
	case strings.HasPrefix(s[j:], "–"):
		return len("–")
	}
	return 0
}

func number(s string, j int) (int, int, bool) {
	n, k := 0, j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' && k-j < 5 {
		n = n*10 + int(s[k]-'0')
		k++
	}
	if k == j || n == 0 || n > maxCitation {
		return 0, 0, false
	}
	return n, k, true
}

func normalise(c []int) []int {
	if len(c) == 0 {
		return nil
	}
	sort.Ints(c)
	out := c[:1]
	for _, n := range c[1:] {
		if n != out[len(out)-1] {
			out = append(out, n)
		}
	}
	return out
}
