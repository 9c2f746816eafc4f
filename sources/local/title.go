package local

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/prefrag/prefrag/sources"
)

// TitleCandidates is how many BM25 hits the title heuristics re-rank.
const TitleCandidates = 50

// titleTier says how well a passage's title matches the query: 3 the same
// text, 2 the same ignoring case and outer spaces, 1 the title appears in
// the query (ignoring case), 0 none. It follows the title heuristics of the
// PrefRAG reference implementation (exact, case-insensitive and contained
// title matches first). lowerQuery is the query lower-cased, once for all
// the titles it is compared with.
func titleTier(query, lowerQuery, title string) int {
	t := strings.TrimSpace(title)
	if t == "" {
		return 0
	}
	q := strings.TrimSpace(query)
	switch {
	case q == t:
		return 3
	case strings.EqualFold(q, t):
		return 2
	case utf8.RuneCountInString(t) >= 3 && strings.Contains(lowerQuery, strings.ToLower(t)):
		return 1
	}
	return 0
}

// tierMatch names a tier for Document.TitleMatch.
var tierMatch = [...]string{"", sources.TitleInQuery, sources.TitleIsQueryFolded, sources.TitleIsQuery}

// rerankByTitle moves passages whose title matches the query ahead of the
// others, keeping BM25 order within each tier, and cuts to k. Each moved
// passage says how its title matched (TitleMatch): its Score stays BM25's,
// and the order shown follows the match first, then the score.
func rerankByTitle(query string, hits []sources.Document, k int) []sources.Document {
	tiers := make([]int, len(hits))
	lower := strings.ToLower(query)
	for i, h := range hits {
		tiers[i] = titleTier(query, lower, h.Title)
		hits[i].TitleMatch = tierMatch[tiers[i]]
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return tiers[idx[a]] > tiers[idx[b]] })
	out := make([]sources.Document, 0, min(k, len(hits)))
	for _, i := range idx {
		if len(out) == k {
			break
		}
		out = append(out, hits[i])
	}
	return out
}
