package engine

import (
	"reflect"
	"testing"
)

func TestSourceList(t *testing.T) {
	a, b, c := Document{ID: "a"}, Document{ID: "b"}, Document{ID: "c"}
	tests := []struct {
		name string
		f    Final
		want []ListedSource
	}{
		{"cited first, then the rest", Final{Sources: []Document{b, a, c}, Citations: []int{2}, SourceNums: []int{2, 1, 3}},
			[]ListedSource{{Num: 2, Doc: b, Cited: true}, {Num: 1, Doc: a, FirstUncited: true}, {Num: 3, Doc: c}}},
		{"none cited: no second heading", Final{Sources: []Document{a, b}, SourceNums: []int{1, 2}},
			[]ListedSource{{Num: 1, Doc: a}, {Num: 2, Doc: b}}},
		{"stored before source_nums: numbers from citations", Final{Sources: []Document{c, a}, Citations: []int{3, 1}},
			[]ListedSource{{Num: 3, Doc: c, Cited: true}, {Num: 1, Doc: a, Cited: true}}},
		{"no sources", Final{Citations: []int{1}}, []ListedSource{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.SourceList(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
