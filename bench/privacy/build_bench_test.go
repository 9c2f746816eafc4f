package privacy

import "testing"

// BenchmarkBuild builds the HotpotQA pool's Set (4,858 paragraphs).
func BenchmarkBuild(b *testing.B) {
	dir := SharedData()
	if dir == "" {
		b.Skip("no shared/data")
	}
	corpora, _, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	var docs = corpora[2].Docs
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		build(docs)
	}
}
