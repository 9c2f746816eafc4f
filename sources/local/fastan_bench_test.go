package local

import "testing"

// BenchmarkBuildPassage builds the documents of the shared multi-hop
// paragraphs (~100 words each) one after the other, as one indexing worker
// does: per passage.
func BenchmarkBuildPassage(b *testing.B) {
	ps := sharedPassages(b)
	an := lookupAnalyzers(newMapping())
	an.en = withStemCache(an.en)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		an.build(ps[i%len(ps)])
	}
}
