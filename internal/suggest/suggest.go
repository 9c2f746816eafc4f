// Package suggest finds the known name closest to a mistyped one, for a
// "did you mean …?" after an unknown flag, config key or command.
package suggest

// Closest returns the candidate nearest to name by edit distance
// (insertions, deletions, substitutions and swaps of two neighbouring
// letters), when it is close enough to be what was meant: none for names of
// one or two letters, one edit up to four letters, two up to eight, three
// beyond. Ties go to
// the earliest candidate. It returns "" when none is close.
func Closest(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		d := Distance(name, c)
		if d <= limit(name) && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

func limit(name string) int {
	n := len([]rune(name))
	switch {
	case n <= 2:
		return 0
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// Distance is the optimal-string-alignment edit distance between a and b,
// counted in runes.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
