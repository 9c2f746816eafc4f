package evidence

import (
	"fmt"
	"os"
	"testing"

	ev "github.com/prefrag/prefrag/evidence"
)

func TestDebugSplit(t *testing.T) {
	f := os.Getenv("EVIDENCE_DEBUG")
	if f == "" {
		t.Skip()
	}
	ds, _ := LoadFile(f)
	same, diff, paras := 0, 0, 0
	for _, q := range ds.Questions {
		for _, p := range q.Paragraphs {
			paras++
			ours := ev.Sentences(p.Text)
			m := map[ev.Span]bool{}
			for _, s := range ours {
				m[s] = true
			}
			ok := len(ours) == len(p.Sentences)
			for _, s := range p.Sentences {
				if !m[s] && s.End > s.Start {
					ok = false
				}
			}
			if ok {
				same++
				continue
			}
			diff++
			if diff <= 40 && os.Getenv("SHOW") != "" {
				fmt.Println("---", p.Title)
				for _, s := range p.Sentences {
					fmt.Printf("  G| %s\n", p.Text[s.Start:s.End])
				}
				for _, s := range ours {
					fmt.Printf("  O| %s\n", p.Text[s.Start:s.End])
				}
			}
		}
	}
	fmt.Println("paragraphs", paras, "same split", same, "different", diff)
}
