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
