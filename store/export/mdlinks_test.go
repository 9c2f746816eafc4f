package export

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

func TestNeutraliseLinks(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"http link kept", "see [the page](https://example.org/a) now", "see [the page](https://example.org/a) now"},
		{"parens in url encoded", "[w](https://en.wikipedia.org/wiki/Foo_(bar))", "[w](https://en.wikipedia.org/wiki/Foo_%28bar%29)"},
		{"title dropped, ampersand a reference", `[q](http://x.org/?a=1&b=2 "t")`, "[q](http://x.org/?a=1&amp;b=2)"},
		{"angle destination", "[a](<https://x.org/a b>)", "[a](https://x.org/a%20b)"},
		{"javascript link is text", "[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"entity-hidden javascript is text", "[x](javascript&#58;alert(1))", `\[x\](javascript&#58;alert(1))`},
		{"upper-case scheme is text", "[x](JaVaScRiPt:alert(1))", `\[x\](JaVaScRiPt:alert(1))`},
		{"data link is text", "[x](data:text/html,<b>)", `\[x\](data:text/html,\<b>)`},
		{"relative link is text", "[x](/etc/passwd)", `\[x\](/etc/passwd)`},
		{"image becomes a link", "![a pixel](http://t.example/p.gif)", "[image: a pixel](http://t.example/p.gif)"},
		{"image without alt", "![](https://t.example/p.gif)", "[image](https://t.example/p.gif)"},
		{"javascript image is text", "![x](javascript:alert(1))", `!\[x\](javascript:alert(1))`},
		{"reference link and definition are text", "[x][r]\n\n[r]: javascript:alert(1)", "\\[x\\][r]\n\n\\[r\\]: javascript:alert(1)"},
		{"citation kept", "died in 1974 [6]; see [7].", "died in 1974 [6]; see [7]."},
		{"http autolink kept as link", "<https://x.org/a>", "[https://x.org/a](https://x.org/a)"},
		{"javascript autolink is text", "<javascript:alert(1)>", `\<javascript:alert(1)>`},
		{"raw img is text", `<img src="http://t.example/p.gif">`, `\<img src="http://t.example/p.gif">`},
		{"raw anchor is text", `<a href="javascript:x">y</a>`, `\<a href="javascript:x">y\</a>`},
		{"escaped backslash before tag", `\\<img src=x>`, `\\\<img src=x>`},
		{"existing escape kept", `\[x\](javascript:y)`, `\[x\](javascript:y)`},
		{"link text escaped", "[*b* <i>](https://x.org)", `[\*b\* \<i\>](https://x.org)`},
		{"unicode kept", "[東京](https://ja.wikipedia.org/wiki/東京) 👍", "[東京](https://ja.wikipedia.org/wiki/東京) 👍"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := neutralise(tt.in); got != tt.want {
				t.Errorf("neutralise(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			checkMarkdown(t, tt.in, block(tt.in))
		})
	}
}

// checkMarkdown parses md as CommonMark plus GitHub's tables,
// strikethrough and task lists (what a reader's viewer shows) and fails on
// any image, raw HTML, or link or autolink whose destination is not
// http(s).
func checkMarkdown(t *testing.T, in, md string) {
	t.Helper()
	p := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser()
	src := []byte(md)
	doc := p.Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			t.Fatalf("image %q survived in %q (from %q)", n.Destination, md, in)
		case *ast.Link:
			if !isWebDest(string(n.Destination)) {
				t.Fatalf("link to %q survived in %q (from %q)", n.Destination, md, in)
			}
		case *ast.AutoLink:
			if u := string(n.URL(src)); n.AutoLinkType != ast.AutoLinkURL || !isWebDest(u) {
				t.Fatalf("autolink %q survived in %q (from %q)", u, md, in)
			}
		case *ast.RawHTML, *ast.HTMLBlock:
			t.Fatalf("raw HTML survived in %q (from %q)", md, in)
		}
		return ast.WalkContinue, nil
	})
}

func isWebDest(d string) bool {
	low := strings.ToLower(d)
	return strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://")
}

func FuzzBlockMarkdown(f *testing.F) {
	for _, s := range []string{
		"[x](javascript:alert(1))", "![p](http://t/p.gif)", "<img src=x>", "[a]\n\n[a]: javascript:x",
		"[x](<javascript:y>)", "\\\\<b>", "<javascript:x>", "[x](http://a \"t\")", "`[x](javascript:y)`",
		"[x](javascript&#58;y)", "[x]\n[x]: <data:x>", "> [r]: javascript:x\n[r]", "- [ ] task [1]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := block(s)
		checkMarkdown(t, s, out)
		checkMarkdown(t, s, "> "+quoted(s))
		if n := neutralise(out); n != out {
			// Idempotent on its own output: a second pass changes nothing.
			t.Fatalf("not idempotent: %q → %q → %q", s, out, n)
		}
	})
}
