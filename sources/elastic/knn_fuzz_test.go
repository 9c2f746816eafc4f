package elastic

import "testing"

// A _mapping answer is outside text: it never panics the reader, and a
// field it finds is a vector field.
func FuzzMappedVector(f *testing.F) {
	f.Add([]byte(`{"docs":{"mappings":{"properties":{"embedding":{"type":"dense_vector","dims":384}}}}}`), "embedding")
	f.Add([]byte(`{"docs":{"mappings":{"properties":{"v":{"type":"knn_vector","dimension":8}}}}}`), "v")
	f.Add([]byte(`{"docs":{"mappings":{"properties":{"v":{"type":"text"}}}}}`), "v")
	f.Add([]byte(`[]`), "x")
	f.Fuzz(func(t *testing.T, body []byte, field string) {
		kind, _ := mappedVector(body, field)
		if kind != "" && kind != denseVector && kind != knnVector {
			t.Fatalf("kind %q", kind)
		}
	})
}
