package trajectory

import (
	"strings"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// keepClusters moves every escape sequence of styled text that falls inside
// a grapheme cluster of the text (between a letter and its accent, after a
// prepended sign) to the cluster's end. The inline nodes are styled one by
// one, so a node's reset could part a cluster that runs across nodes, and
// the wrapper, which reads clusters between escape sequences, then broke
// the line differently wherever the styles differed (a marked claim is
// styled where the same text unmarked is not). With no sequence inside a
// cluster, text wraps the same whatever its styles.
func keepClusters(s string) string {
	if strings.IndexByte(s, '\x1b') < 0 {
		return s
	}
	// The text without its sequences, and where each sequence stood in it.
	type seq struct {
		at   int
		code string
	}
	var (
		text strings.Builder
		seqs []seq
	)
	for rest := s; rest != ""; {
		i := strings.Index(rest, "\x1b[")
		if i < 0 {
			text.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[i:], 'm')
		if end < 0 {
			text.WriteString(rest)
			break
		}
		text.WriteString(rest[:i])
		seqs = append(seqs, seq{text.Len(), rest[i : i+end+1]})
		rest = rest[i+end+1:]
	}
	plain := text.String()
	moved := false
	g := graphemes.FromString(plain)
	k := 0
	for g.Next() && k < len(seqs) {
		for k < len(seqs) && seqs[k].at <= g.Start() {
			k++
		}
		for k < len(seqs) && seqs[k].at < g.End() {
			seqs[k].at = g.End()
			moved = true
			k++
		}
	}
	if !moved {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, q := range seqs {
		b.WriteString(plain[last:q.at])
		b.WriteString(q.code)
		last = q.at
	}
	b.WriteString(plain[last:])
	return b.String()
}
