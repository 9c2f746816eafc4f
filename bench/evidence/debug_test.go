package evidence

import (
	"fmt"
	"os"
	"testing"

	ev "github.com/prefrag/prefrag/evidence"
)

// TestDebugDump prints the aligner's mistakes on EVIDENCE_DEBUG=FILE.
func TestDebugDump(t *testing.T) {
	f := os.Getenv("EVIDENCE_DEBUG")
	if f == "" {
		t.Skip("EVIDENCE_DEBUG not set")
	}
	ds, err := LoadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	cat := map[string]int{}
	defer func() { fmt.Println(cat) }()
	for _, q := range ds.Questions {
		claim := q.Question + " " + q.Answer
		var gold []int
		for i, p := range q.Paragraphs {
			if p.IsGold() {
				gold = append(gold, i+1)
			}
		}
		res := alignerSystem(q, claim, gold)
		for _, n := range gold {
			p := q.Paragraphs[n-1]
			pred := sentencesOf(p, res[n].spans)
			bad := false
			for i := range p.Sentences {
				if pred[i] != containsInt(p.Gold, i) {
					bad = true
				}
			}
			if !bad {
				continue
			}
			np, ng, hit := 0, len(p.Gold), 0
			for i := range p.Sentences {
				if pred[i] {
					np++
					if containsInt(p.Gold, i) {
						hit++
					}
				}
			}
			switch {
			case np == 0:
				cat["none"]++
			case hit == 0:
				cat["wrong"]++
			case hit < ng && np > hit:
				cat["mixed"]++
			case hit < ng:
				cat["missing"]++
			default:
				cat["extra"]++
			}
			fmt.Printf("=== Q: %s || A: %s\n  [%s] verdict %s\n", q.Question, q.Answer, p.Title, res[n].verdict)
			for i, s := range p.Sentences {
				m := " "
				if containsInt(p.Gold, i) {
					m = "G"
				}
				if pred[i] {
					m += "P"
				} else {
					m += " "
				}
				fmt.Printf("   %s %d %s\n", m, i, p.Text[s.Start:s.End])
			}
			_ = ev.Supported
		}
	}
}
