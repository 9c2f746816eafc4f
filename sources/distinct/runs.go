package distinct

// tiers are the runs of words that are distinctive when they occur
// verbatim, by length: how many of their words must be no function words
// (content) and how many of those no common words (rare). Measured on the
// shared question sets (docs/web-and-privacy.md): six words with two rare
// ones, eight with one, or ten of any words but function words.
var tiers = [...]struct{ words, content, rare int }{
	{6, 3, 2},
	{8, 3, 1},
	{10, 4, 0},
}

// windows are a text's tokens ready for its runs: running counts of
// content and rare words and each token's hash, so that a window is judged
// and hashed without looking at each of its words again.
type windows struct {
	content, rare []int // counts before token i
	toks          []token
}

// newWindows reads toks; memo, when not nil, remembers isCommon.
func newWindows(toks []token, memo map[string]bool) windows {
	w := windows{content: make([]int, len(toks)+1), rare: make([]int, len(toks)+1), toks: toks}
	_, stop := commonWords()
	for i, t := range toks {
		c, r := 0, 0
		if !stop[t.norm] {
			c = 1
			common, ok := memo[t.norm]
			if !ok {
				common = isCommon(t.norm)
				if memo != nil {
					memo[t.norm] = common
				}
			}
			if !common {
				r = 1
			}
		}
		w.content[i+1] = w.content[i] + c
		w.rare[i+1] = w.rare[i] + r
	}
	return w
}

// qualifies reports whether the window of tier ti starting at token i is
// distinctive when it occurs verbatim.
func (w windows) qualifies(ti, i int) bool {
	n := tiers[ti].words
	return w.content[i+n]-w.content[i] >= tiers[ti].content && w.rare[i+n]-w.rare[i] >= tiers[ti].rare
}

// hash is the FNV-1a hash of the lookup forms of n tokens from i, each
// followed by a separator byte.
func (w windows) hash(i, n int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, t := range w.toks[i : i+n] {
		for j := 0; j < len(t.norm); j++ {
			h ^= uint64(t.norm[j])
			h *= prime
		}
		h ^= 0x1f
		h *= prime
	}
	return h
}
