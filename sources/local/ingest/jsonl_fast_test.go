package ingest

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// jsonlCase is a line for the fast/slow equivalence tests; fast says
// whether the fast scanner is expected to decode it itself.
type jsonlCase struct {
	name string
	line string
	fast bool
}

var jsonlTrickyLines = []jsonlCase{
	// The common shapes.
	{"plain", `{"id": "d1", "title": "T", "text": "body text"}`, true},
	{"numeric id", `{"id": 42, "title": "T", "text": "body"}`, true},
	{"negative zero id", `{"id":-0,"text":"x"}`, true},
	{"contents", `{"id":"p","contents":"pyserini layout"}`, true},
	{"url", `{"id":"u","title":"T","text":"x","url":"https://example.org/a?b=c&d"}`, true},
	{"nulls", `{"id":null,"title":null,"text":"x","url":null}`, true},
	{"other keys skipped", `{"x":1,"y":[true,false,null,{"z":"w"}],"text":"x","n":-1.5e+10,"e":{},"a":[]}`, true},
	{"nested deeply but not too deep", `{"m":` + strings.Repeat(`[{"k":`, 30) + `0` + strings.Repeat(`}]`, 30) + `,"text":"x"}`, true},
	{"json whitespace", "{ \"text\" :\t\"x\" ,\r\n \"id\" : 7 }", true},
	{"unicode whitespace around", "\u00a0\v{\"text\":\"x\"}\u0085\f", true},
	{"non-ASCII", `{"title":"Zürich – 北京","text":"naïve café 😀"}`, true},
	{"raw U+FFFD", "{\"text\":\"a\xef\xbf\xbdb\"}", true},
	{"DEL and C1 are cleaned", "{\"text\":\"a\x7fb\xc2\x85c\u202ed\"}", true},
	{"empty object", `{}`, true},
	{"empty object with space", `{ }`, true},
	{"blank text", `{"text":"   "}`, true},
	{"no text", `{"title":"only a title"}`, true},
	{"case-sensitive keys", `{"Text":"x","TEXT":"y"}`, true},
	{"key with invalid UTF-8", "{\"te\xffxt\":\"x\",\"text\":\"y\"}", true},
	{"skipped value with invalid UTF-8", "{\"other\":\"\xff\xfe\",\"text\":\"y\"}", true},
	{"skipped string with escapes", `{"other":"\"\\\/\b\f\n\r\t\u12aB\ud800","text":"y"}`, true},

	// Escapes in wanted strings.
	{"simple escapes", `{"text":"q\" b\\ s\/ \b\f\n\r\t end"}`, true},
	{"unicode escapes", `{"text":"caf\u00e9 \u00E9 \u4e2d \u0000 \u001b[2J"}`, true},
	{"surrogate pair", `{"text":"smile \ud83d\ude00 ok"}`, true},
	{"escape at start and end", `{"text":"\nx\n"}`, true},
	{"only escapes", `{"text":"\u0041\u0042"}`, true},
	{"escapes in every field", `{"id":"a\tb\nc","title":"\"T\"","text":"x\\y","url":"h\/p"}`, true},
	{"hex digits of every case", `{"text":"\u00Af\u0aFA\uFFFF\uffff\u0000"}`, true},
	{"surrogate range edges", `{"text":"\ud7ff \ud800\udc00 \udbff\udfff \ue000"}`, true},
	{"high surrogate then past the low range", `{"text":"\udbff\ue000"}`, false},
	{"lone high surrogate", `{"text":"a\ud83d b"}`, false},
	{"lone low surrogate", `{"text":"a\ude00 b"}`, false},
	{"high surrogate then non-low", `{"text":"a\ud83d\u0041"}`, false},
	{"high surrogate then high", `{"text":"a\ud83d\ud83d\ude00"}`, false},
	{"high surrogate at end", `{"text":"a\ud83d"}`, false},
	{"short unicode escape", `{"text":"a\u12"}`, false},
	{"bad hex", `{"text":"a\u12g4"}`, false},
	{"unknown escape", `{"text":"a\x41"}`, false},
	{"backslash at end", `{"text":"a\`, false},

	// Invalid UTF-8 in wanted strings: encoding/json's U+FFFD.
	{"invalid byte", "{\"text\":\"a\xffb\"}", false},
	{"truncated sequence", "{\"text\":\"a\xe4\xb8\"}", false},
	{"encoded surrogate", "{\"text\":\"a\xed\xa0\x80b\"}", false},
	{"overlong", "{\"text\":\"a\xc0\xafb\"}", false},
	{"invalid byte with escape", "{\"text\":\"\\n\xff\\n\"}", false},

	// Duplicate keys: the last one wins.
	{"duplicate text", `{"text":"a","text":"b"}`, true},
	{"duplicate text then null", `{"text":"a","text":null}`, true},
	{"duplicate id number then string", `{"id":1,"id":"s","text":"x"}`, true},
	{"duplicate first not a string", `{"text":5,"text":"b"}`, false},
	{"duplicate last not a string", `{"text":"b","text":5}`, false},

	// The contents fallback.
	{"empty text uses contents", `{"text":"","contents":"c"}`, true},
	{"null text uses contents", `{"text":null,"contents":"c"}`, true},
	{"contents first", `{"contents":"c","text":""}`, true},
	{"blank text does not use contents", `{"text":" ","contents":"c"}`, true},
	{"text wins over contents", `{"text":"t","contents":"c"}`, true},
	{"bad contents ignored when text is set", `{"text":"t","contents":5}`, false},
	{"bad contents used", `{"text":"","contents":5}`, false},

	// Ids.
	{"id trimmed and joined", `{"id":"  a\tb\nc  ","text":"x"}`, true},
	{"id of max length", `{"id":"` + strings.Repeat("i", MaxIDLength) + `","text":"x"}`, true},
	{"id too long", `{"id":"` + strings.Repeat("i", MaxIDLength+1) + `","text":"x"}`, true},
	{"id too long and no text", `{"id":"` + strings.Repeat("i", MaxIDLength+1) + `"}`, true},
	{"long numeric id", `{"id":` + strings.Repeat("9", maxIDDigits) + `,"text":"x"}`, true},
	{"very long numeric id", `{"id":` + strings.Repeat("9", 400) + `,"text":"x"}`, false},
	{"fractional id", `{"id":1.5e3,"text":"x"}`, false},
	{"overflowing id", `{"id":1e400,"text":"x"}`, false},
	{"bool id", `{"id":true,"text":"x"}`, false},
	{"object id", `{"id":{"a":1},"text":"x"}`, false},
	{"numeric title", `{"title":5,"text":"x"}`, false},
	{"bool url", `{"url":true,"text":"x"}`, false},
	{"escaped key", `{"te\u0078t":"x"}`, false},

	// Not an object, or not JSON.
	{"null", `null`, false},
	{"array", `["an","array"]`, false},
	{"string", `"text"`, false},
	{"number", `5`, false},
	{"not json", `not json`, false},
	{"BOM", "\xef\xbb\xbf{\"text\":\"x\"}", false},
	{"unclosed", `{"text":"x"`, false},
	{"unclosed string", `{"text":"x`, false},
	{"missing value", `{"text":}`, false},
	{"missing colon", `{"text" "x"}`, false},
	{"key only", `{"text"}`, false},
	{"trailing comma", `{"text":"x",}`, false},
	{"trailing comma in array", `{"a":[1,],"text":"x"}`, false},
	{"trailing garbage", `{"text":"x"} trailing`, false},
	{"two objects", `{"text":"x"} {"text":"y"}`, false},
	{"extra brace", `{"text":"x"}}`, false},
	{"control character in string", "{\"text\":\"a\tb\"}", false},
	{"control character after a long run", "{\"text\":\"0123456789abcdef\x01ghijklmnopqrstuvwxyz\"}", false},
	{"control character after a long run, skipped", "{\"o\":\"0123456789abcdef\x1fghijklmnopqrstuvwxyz\",\"text\":\"x\"}", false},
	{"quote and backslash after a long run", `{"text":"0123456789abcdef\"0123456789abcdef\\0123456789"}`, true},
	{"control character in skipped string", "{\"o\":\"a\nb\",\"text\":\"x\"}", false},
	{"form feed between tokens", "{\"text\":\f\"x\"}", false},
	{"NUL between tokens", "{\"text\":\"x\"\x00}", false},
	{"bad numbers", `{"a":01,"text":"x"}`, false},
	{"bad fraction", `{"a":1.,"text":"x"}`, false},
	{"bad exponent", `{"a":1e,"text":"x"}`, false},
	{"leading plus", `{"a":+1,"text":"x"}`, false},
	{"bad literal", `{"a":tru,"text":"x"}`, false},
	{"literal with tail", `{"a":nulll,"text":"x"}`, false},
	{"text null with tail", `{"text":nullx}`, false},
	{"mismatched brackets", `{"a":[1},"text":"x"}`, false},
	{"too deep for the fast path", `{"m":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `,"text":"x"}`, false},
	{"too deep for encoding/json", `{"m":` + strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001) + `,"text":"x"}`, false},
}

// slowJSONL is ParseJSONLLine without its fast path.
func slowJSONL(line []byte) (Record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Record{}, ErrBlankLine
	}
	return parseJSONLSlow(line)
}

// checkJSONLMatchesSlow fails t when ParseJSONLLine and the slow path differ
// on line, in the record or in the error. It reports whether the fast
// scanner decoded the line itself.
func checkJSONLMatchesSlow(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	got, gerr := ParseJSONLLine(line)
	want, werr := slowJSONL(line)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) ||
		errors.Is(gerr, ErrBlankLine) != errors.Is(werr, ErrBlankLine) {
		t.Fatalf("line %q: error %v, slow path %v", line, gerr, werr)
	}
	if got != want {
		t.Fatalf("line %q:\n got %+v\nslow %+v", line, got, want)
	}
	_, fast = scanJSONLObject(bytes.TrimSpace(line), nil)
	return fast
}

func TestParseJSONLLineFastMatchesSlow(t *testing.T) {
	for _, c := range jsonlTrickyLines {
		t.Run(c.name, func(t *testing.T) {
			if fast := checkJSONLMatchesSlow(t, []byte(c.line)); fast != c.fast {
				t.Errorf("fast path taken = %v, want %v", fast, c.fast)
			}
		})
	}
}

// TestParseJSONLLineFastPathTaken guards against a fast path that silently
// always falls back: every line of a realistic corpus must take it.
func TestParseJSONLLineFastPathTaken(t *testing.T) {
	for _, line := range benchJSONLLines(2000) {
		if !checkJSONLMatchesSlow(t, line) {
			t.Fatalf("fast path not taken for %.80q", line)
		}
	}
}

func FuzzParseJSONLLineMatchesSlow(f *testing.F) {
	for _, c := range jsonlTrickyLines {
		if len(c.line) < 2000 {
			f.Add([]byte(c.line))
		}
	}
	for _, line := range benchJSONLLines(3) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkJSONLMatchesSlow(t, line)
	})
}
