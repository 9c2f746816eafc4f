package manticore

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestMatchExpr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Who built the Eiffel Tower?", `"who built the eiffel tower"/1`},
		{`"quoted" \back\slash 'single'`, `"quoted back slash single"/1`},
		{"@title -foo !bar | baz", `"title foo bar baz"/1`},
		{`a/b ^c$ (d) "e"/3 f~2 g* =h <<`, `"a b c d e 3 f 2 g h"/1`},
		{"MAYBE NEAR/3 NOTNEAR SENTENCE PARAGRAPH ZONE:(h1) ZONESPAN", `"maybe near 3 notnear sentence paragraph zone h1 zonespan"/1`},
		{"x'; DROP TABLE dist; --", `"x drop table dist"/1`},
		{"Zu\u0308rich ÅNGSTRÖM Москва 東京", `"zürich ångström москва 東京"/1`},
		{"dup Dup DUP", `"dup"/1`},
		{"\x00\x1b[31m\u202e", `"31m"/1`},
		{"", ""},
		{`"" '' \\ // () ;; -- || !! ^^ $$ @@`, ""},
		{"\xff\xfe", ""},
	} {
		if got := MatchExpr(tc.in); got != tc.want {
			t.Errorf("MatchExpr(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("w", 500)
	if got := Words(long); len(got) != 1 || utf8.RuneCountInString(got[0]) != maxWordRunes {
		t.Errorf("long word: %v", got)
	}
	var many []string
	for i := range 200 {
		many = append(many, "w"+strings.Repeat("x", i%50)+string(rune('a'+i%26)))
	}
	if got := Words(strings.Join(many, " ")); len(got) != maxWords {
		t.Errorf("many words: %d", len(got))
	}
}

func TestQuoteString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `'plain'`},
		{`it's`, `'it\'s'`},
		{`back\slash`, `'back\\slash'`},
		{`\'`, `'\\\''`},
		{"nul\x00tab\tnl\n", `'nul tab nl '`},
		{"bad\xffutf8", `'badutf8'`},
	} {
		if got := QuoteString(tc.in); got != tc.want {
			t.Errorf("QuoteString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseAddr(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"127.0.0.1:9306", "127.0.0.1:9306", ""},
		{"search.example.org", "search.example.org:9306", ""},
		{"mysql://10.0.0.5:9307", "10.0.0.5:9307", ""},
		{"sphinxql://host:9306/", "host:9306", ""},
		{"SphinxQL://host", "host:9306", ""},
		{"[::1]:9306", "[::1]:9306", ""},
		{"mysql://[::1]:9306", "[::1]:9306", ""},
		{"mysql://user:s3cret@host:9306", "", "credentials"},
		{"mysql://user@host:9306", "", "credentials"},
		{"sphinxql://:s3cret@host", "", "credentials"},
		{"user:s3cret@host:9306", "", "host"},
		{"http://host:9308", "", "scheme"},
		{"us:s3cret@evil://host", "", "scheme \"?\""},
		{"mysql://host:9306/db", "", "path"},
		{"mysql://host:9306?x=1", "", "path"},
		{"host:0", "", "port"},
		{"host:s3cret", "", "port"},
		{"", "", "no server"},
	} {
		got, err := ParseAddr(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseAddr(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseAddr(%q) = %q, %v; want an error about %s", tc.in, got, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseAddr(%q): the error repeats the secret: %v", tc.in, err)
		}
	}
}

func TestOpenConfig(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no corpus", Config{Addr: "h:1", Index: "i"}},
		{"no index", Config{Corpus: "c", Addr: "h:1"}},
		{"index injection", Config{Corpus: "c", Addr: "h:1", Index: "i WHERE 1; DROP"}},
		{"field injection", Config{Corpus: "c", Addr: "h:1", Index: "i", TextField: "text, (SELECT"}},
		{"url field", Config{Corpus: "c", Addr: "h:1", Index: "i", URLField: "u-rl"}},
		{"credentials", Config{Corpus: "c", Addr: "mysql://u:p4ss@h:1", Index: "i"}},
	} {
		_, err := Open(ctx, tc.cfg)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", tc.name, err)
		} else if strings.Contains(err.Error(), "p4ss") {
			t.Errorf("%s: error repeats the password: %v", tc.name, err)
		}
	}
	c, err := Open(ctx, Config{Corpus: "c", Addr: "h", Index: "a, b_2", User: "u", Password: "p4ss"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.String(); strings.Contains(got, "p4ss") || got != "local:c (manticore h:9306)" {
		t.Errorf("String() = %q", got)
	}
	want := "SELECT id, title, text, WEIGHT() AS prefrag_weight FROM a, b_2 WHERE MATCH('\"x\"/1') ORDER BY WEIGHT() DESC, id ASC LIMIT 0,5 OPTION " + Ranking + ", max_query_time=10000"
	if got := selectStatement(c.cols, c.cfg.Index, MatchExpr("x"), 5, Ranking, c.timeout.Milliseconds()); got != want {
		t.Errorf("statement:\n%s\nwant\n%s", got, want)
	}
}

func TestParseGreeting(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"\x0a2.2.11-id64-release (95ae9a6)\x00\x01\x00\x00\x00", "2.2.11-id64-release (95ae9a6)", false},
		{"\x0a6.3.6 1a1b2c3@24081206 dev\x00rest", "6.3.6 1a1b2c3@24081206 dev", false},
		{"\x0aevil\x1b]0;title\x07\x00", "evil", false},
		{"\xff\x10\x04#08004Too many connections", "", true},
		{"\x09old\x00", "", true},
		{"\x0anoterminator", "", true},
		{"", "", true},
	} {
		got, err := ParseGreeting([]byte(tc.in))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseGreeting(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// unquote reads a SphinxQL string literal as the server does: backslash
// escapes the next character, an unescaped quote ends the literal. ok is
// false when the literal is malformed or text follows it.
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case '\'':
			return b.String(), i == len(s)-1
		default:
			b.WriteByte(s[i])
		}
	}
	return "", false
}

var matchShape = regexp.MustCompile(`^"[^ "]+( [^ "]+)*"/1$`)

func FuzzMatchExpr(f *testing.F) {
	for _, s := range []string{
		"Who built the Eiffel Tower?", `"a" 'b' \c @d -e |f !g /h ^i $j (k) MAYBE NEAR/2 ;`,
		"x'); DROP TABLE t; --", "Zu\u0308rich 東京 Москва", "\x00\xff\u202e", "İSTANBUL ǅ ß ﬁ",
	} {
		f.Add(s)
	}
	operators := map[string]bool{"MAYBE": true, "NEAR": true, "NOTNEAR": true, "SENTENCE": true, "PARAGRAPH": true, "ZONE": true, "ZONESPAN": true}
	f.Fuzz(func(t *testing.T, q string) {
		m := MatchExpr(q)
		words := Words(q)
		if (m == "") != (len(words) == 0) {
			t.Fatalf("MatchExpr %q but words %q", m, words)
		}
		if len(words) > maxWords {
			t.Fatalf("%d words", len(words))
		}
		if m != "" && !matchShape.MatchString(m) {
			t.Fatalf("MatchExpr(%q) = %q: not a quorum of words", q, m)
		}
		for _, w := range words {
			if operators[w] || utf8.RuneCountInString(w) > 2*maxWordRunes || !utf8.ValidString(w) {
				t.Fatalf("word %q", w)
			}
			for _, r := range w {
				if !isWordRune(r) || (r < utf8.RuneSelf && unicode.IsUpper(r)) {
					t.Fatalf("word %q holds %q", w, r)
				}
			}
		}
		// What reaches the server: one literal that reads back as the
		// expression, then nothing.
		lit := QuoteString(m)
		if got, ok := unquote(lit); !ok || got != m {
			t.Fatalf("QuoteString(%q) = %s reads back as %q, %v", m, lit, got, ok)
		}
	})
}

func FuzzQuoteString(f *testing.F) {
	for _, s := range []string{"", "'", `\`, `\'`, `''\\`, "a\x00b", "\xff", "Москва's \\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := QuoteString(s)
		got, ok := unquote(lit)
		if !ok {
			t.Fatalf("QuoteString(%q) = %s: not one literal", s, lit)
		}
		want := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(s, ""))
		if got != want {
			t.Fatalf("QuoteString(%q) = %s reads back as %q, want %q", s, lit, got, want)
		}
		if strings.ContainsRune(lit, 0) {
			t.Fatalf("NUL in %q", lit)
		}
	})
}

func FuzzParseGreeting(f *testing.F) {
	f.Add([]byte("\x0a2.2.11-id64-release (95ae9a6)\x00\x01"))
	f.Add([]byte("\xff\x10\x04#08004Too many connections"))
	f.Add([]byte("\x0a\x1b[2J\x00"))
	f.Fuzz(func(t *testing.T, p []byte) {
		v, err := ParseGreeting(p)
		if err != nil {
			if v != "" {
				t.Fatal("version with an error")
			}
			return
		}
		if utf8.RuneCountInString(v) > 100 || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			t.Fatalf("version %q", v)
		}
	})
}

func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"h:9306", "mysql://u:p@h:1", "sphinxql://[::1]", "a@b://c", "host:s3cret", "mysql://h:1/x?y#z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, err := ParseAddr(s)
		if err != nil {
			if strings.Contains(err.Error(), "@") {
				t.Fatalf("error may repeat credentials: %v", err)
			}
			return
		}
		if strings.ContainsAny(addr, "@/?# ") || strings.Contains(s, "@") {
			t.Fatalf("ParseAddr(%q) = %q", s, addr)
		}
	})
}

func TestClassifyMessage(t *testing.T) {
	for _, tc := range []struct {
		code uint16
		msg  string
		want error
	}{
		// Sphinx 2.2.11, as seen in the tests.
		{1064, "unknown local index 'nope' in search request", ErrUnknownIndex},
		{1146, "no such index 'nope'", ErrUnknownIndex},
		{1064, "index shard1: syntax error, unexpected $end near ''", ErrSyntax},
		{1064, "index shard1: parse error: unknown column: body", ErrSyntax},
		{1064, "index dist: agent 127.0.0.1:9312: connect() failed: errno=111, Connection refused", ErrUnreachable},
		{1064, "index dist: agent 127.0.0.1:9312: query timed out", ErrUnreachable},
		{1064, "index dist: agent 127.0.0.1:9312: remote error: unknown local index 'shard9' in search request", ErrUnknownIndex},
		// Manticore's wording.
		{1064, "unknown local table(s) 'nope' in search request", ErrUnknownIndex},
		{1064, "table nope: parse error: unknown column: body", ErrSyntax},
		{1064, "P01: syntax error, unexpected identifier near 'x'", ErrSyntax},
	} {
		if got := classifyMessage(tc.code, tc.msg); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.msg, got, tc.want)
		}
	}
}

func TestRankerRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{Kind: ErrSyntax, Msg: "index x: unknown ranker 'expr'"}, true},
		{&Error{Kind: ErrSyntax, Msg: "ranking factors: unknown function bm25f"}, true},
		{&Error{Kind: ErrSyntax, Msg: "unknown column: body"}, false},
		{&Error{Kind: ErrUnreachable, Msg: "ranker"}, false},
		{errors.New("ranker"), false},
	} {
		if got := rankerRefused(tc.err); got != tc.want {
			t.Errorf("%v: %v", tc.err, got)
		}
	}
}

func TestPartialWarning(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want bool
	}{
		{"index dist: agent 127.0.0.1:37593: connect() failed: errno=111, Operation now in progress", true},
		{"index dist: agent 127.0.0.1:9312: query timed out", true},
		{"query time exceeded max_query_time", true},
		{"index dist: agent 127.0.0.1:1: remote query warning: query warning: modifiers must be applied to keywords, not operators", false},
		{"index dist: agent 127.0.0.1:1: remote query warning: x; index dist: agent 127.0.0.1:2: connect() failed", true},
		{"", false},
	} {
		if got := partialWarning(tc.w); got != tc.want {
			t.Errorf("%q: %v", tc.w, got)
		}
	}
}
