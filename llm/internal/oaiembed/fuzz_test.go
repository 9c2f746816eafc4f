package oaiembed

import "testing"

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[0.5]},{"index":0,"embedding":[1]}],"model":"m","usage":{"prompt_tokens":3}}`))
	f.Add([]byte(`{"data":[{"index":3,"embedding":[]}]}`))
	f.Add([]byte(`[]`))
	// Outside text never panics the decoder.
	f.Fuzz(func(t *testing.T, raw []byte) { _, _ = Decode(raw) })
}

func TestDecodeOrder(t *testing.T) {
	a, err := Decode([]byte(`{"data":[{"index":1,"embedding":[0.5]},{"index":0,"embedding":[1]}],"model":"m","usage":{"total_tokens":3}}`))
	if err != nil || len(a.Vectors) != 2 || a.Vectors[0][0] != 1 || a.Vectors[1][0] != 0.5 || a.Model != "m" || a.PromptTokens != 3 {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := Decode([]byte(`{"data":[{"index":1,"embedding":[0.5]}]}`)); err == nil {
		t.Fatal("a missing index 0 was accepted")
	}
}
