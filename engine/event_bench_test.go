package engine

import (
	"encoding/json"
	"testing"
)

// BenchmarkEventMarshal writes one event of every type (the golden table).
func BenchmarkEventMarshal(b *testing.B) {
	evs := goldenTable()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, e := range evs {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEventUnmarshal reads one event of every type (the golden table).
func BenchmarkEventUnmarshal(b *testing.B) {
	var lines [][]byte
	for _, e := range goldenTable() {
		l, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, l)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			var e Event
			if err := json.Unmarshal(l, &e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
