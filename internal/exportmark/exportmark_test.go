package exportmark

import "testing"

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		name string
		head string
		want bool
	}{
		{"markdown", Comment + "\n# Question\n", true},
		{"markdown after BOM and blank lines", "\xef\xbb\xbf\n\n" + Comment + "\n", true},
		{"html", "<!DOCTYPE html>\n<html>\n" + Comment + "\n", true},
		{"json", "{\n  \"" + Key + "\": 1,\n  \"session\": {}}", true},
		{"json array", "[\n  {\"" + Key + "\": 1, \"session\": {}}]", true},
		{"jsonl", "{\"" + Key + "\":1,\"session\":{}}\n", true},
		{"plain markdown", "# Notes\n\nprefrag export is mentioned here <!-- prefrag export: -->", false},
		{"corpus jsonl", "{\"title\":\"a\",\"text\":\"b\",\"" + Key + "\":1}\n", false},
		{"html without the mark", "<!DOCTYPE html><html><body>hello</body></html>", false},
		{"empty", "", false},
	} {
		if got := Is([]byte(tc.head)); got != tc.want {
			t.Errorf("%s: Is = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func FuzzIs(f *testing.F) {
	f.Add([]byte(Comment))
	f.Add([]byte("[{\"" + Key + "\":1}]"))
	f.Fuzz(func(t *testing.T, b []byte) { Is(b) })
}
