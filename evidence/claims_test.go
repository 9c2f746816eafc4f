package evidence

import (
	"reflect"
	"testing"
)

func TestSplitClaims(t *testing.T) {
	type c struct {
		text  string
		cites []int
	}
	tests := []struct {
		name   string
		answer string
		want   []c
	}{
		{"one citation each", "The institute was founded in 1887 [1]. It employs 300 people [2].",
			[]c{{"The institute was founded in 1887.", []int{1}}, {"It employs 300 people.", []int{2}}}},
		{"a list in one marker", "Both are in Oslo [1, 3].", []c{{"Both are in Oslo.", []int{1, 3}}}},
		{"adjacent markers", "Both are in Oslo [3][1].", []c{{"Both are in Oslo.", []int{1, 3}}}},
		{"semicolons and a range", "It grew [2; 4-6].", []c{{"It grew.", []int{2, 4, 5, 6}}}},
		{"en dash range", "It grew [2–3].", []c{{"It grew.", []int{2, 3}}}},
		{"repeats dropped", "It grew [2] and grew [2].", []c{{"It grew and grew.", []int{2}}}},
		{"marker after the stop", "It was founded in 1887. [1] It employs 300 people. [2]",
			[]c{{"It was founded in 1887.", []int{1}}, {"It employs 300 people.", []int{2}}}},
		{"uncited sentence", "Here is what I found. The institute is in Oslo [1].",
			[]c{{"Here is what I found.", nil}, {"The institute is in Oslo.", []int{1}}}},
		{"not citations", "See [a] and [0] and [1,] and [12345678].",
			[]c{{"See [a] and [0] and [1,] and [12345678].", nil}}},
		{"marker alone on a line", "It is old [1].\n\n[2]", []c{{"It is old.", []int{1, 2}}}},
		{"abbreviation inside a claim", "Dr. Holt directed it from 1990 [1].", []c{{"Dr. Holt directed it from 1990.", []int{1}}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []c
			for _, cl := range SplitClaims(tt.answer) {
				got = append(got, c{cl.Text, cl.Citations})
				if cl.Span.Start < 0 || cl.Span.End > len(tt.answer) || cl.Span.Start > cl.Span.End {
					t.Errorf("span %+v out of the answer", cl.Span)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitClaims(%q)\n got %+v\nwant %+v", tt.answer, got, tt.want)
			}
		})
	}
}
