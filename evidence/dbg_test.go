package evidence

import (
	"fmt"
	"testing"
)

func TestDbg(t *testing.T) {
	ps := []Passage{
		{N: 1, Title: "James Stanley (bishop)", Text: "James Stanley (c. 1465–1515), scion of a distinguished aristocratic family, was Bishop of Ely from 1506 to 1515. His father was Thomas Stanley, 1st Earl of Derby. His appointment as bishop was made by papal bull of Pope Julius II."},
		{N: 2, Title: "Thomas Stanley, 1st Earl of Derby", Text: "Thomas Stanley, 1st Earl of Derby, (1435 – 29 July 1504) was an English nobleman and politician. His estates included what is now Tatton Park in Cheshire, Lathom House in Lancashire, and Derby House in the City of London, now the site of the College of Arms."},
	}
	a := NewAligner(ps, Options{})
	ct := a.claimTerms("Where did James Stanley (Bishop)'s father die? Lancashire")
	for _, w := range ct.w {
		for k, v := range a.vocab {
			if v == w.id {
				fmt.Printf("%s=%.2f ", k, w.w)
			}
		}
	}
	fmt.Println(ct.total)
	r := a.AlignClaim(Claim{Text: "Where did James Stanley (Bishop)'s father die? Lancashire", Citations: []int{1, 2}})
	fmt.Printf("%+v\n", r)
}
