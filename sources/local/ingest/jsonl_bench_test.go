package ingest

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// benchJSONLLines builds lines shaped like a real passage corpus: ~120-word
// texts (~700 bytes), a title and an id, now and then a numeric id, a "url",
// the Pyserini "contents" key, escaped quotes and newlines, \u escapes and
// raw non-ASCII UTF-8. It is deterministic so runs compare.
func benchJSONLLines(n int) [][]byte {
	words := strings.Fields(`the of and to in a is was for on as with by at from that
		his it an were which are this be also first has had after its new but who
		their one two been other not they university city river season film album
		population district village church school war between during states team
		Zürich café naïve Ångström São Paulo Kraków Beijing 北京 Москва Δelta`)
	rng := rand.New(rand.NewSource(1))
	lines := make([][]byte, n)
	for i := range lines {
		var text strings.Builder
		for w := 0; w < 110+rng.Intn(20); w++ {
			if w > 0 {
				text.WriteByte(' ')
			}
			switch rng.Intn(60) {
			case 0:
				text.WriteString(`\"quoted\"`)
			case 1:
				text.WriteString(`line\nbreak`)
			case 2:
				text.WriteString(`caf\u00e9`)
			default:
				text.WriteString(words[rng.Intn(len(words))])
			}
		}
		title := words[rng.Intn(len(words))] + " " + words[rng.Intn(len(words))]
		var line string
		switch i % 10 {
		case 0:
			line = fmt.Sprintf(`{"id": %d, "title": %q, "text": "%s"}`, i, title, text.String())
		case 1:
			line = fmt.Sprintf(`{"id": "doc%d", "contents": "%s"}`, i, text.String())
		case 2:
			line = fmt.Sprintf(`{"id": "doc%d", "title": %q, "text": "%s", "url": "https://example.org/wiki/%d"}`, i, title, text.String(), i)
		default:
			line = fmt.Sprintf(`{"id": "doc%d", "title": %q, "text": "%s"}`, i, title, text.String())
		}
		lines[i] = []byte(line)
	}
	return lines
}

// BenchmarkParseJSONLLine compares ParseJSONLLine (fast scanner) with the
// encoding/json path it falls back to.
func BenchmarkParseJSONLLine(b *testing.B) {
	lines := benchJSONLLines(1000)
	var size int
	for _, l := range lines {
		size += len(l)
	}
	for _, bc := range []struct {
		name  string
		parse func([]byte) (Record, error)
	}{{"fast", ParseJSONLLine}, {"slow", slowJSONL}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size / len(lines)))
			for i := 0; b.Loop(); i++ {
				if _, err := bc.parse(lines[i%len(lines)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
