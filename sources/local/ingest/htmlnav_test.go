package ingest

import (
	"strings"
	"testing"
)

func TestHTMLDropsTexinfoNavigation(t *testing.T) {
	page := `<html><head><title>Arrays (libffi)</title></head><body>
<div class="header"><p>
Next: <a href="Type-Example.html" accesskey="n" rel="next">Type Example</a>, Previous: <a href="Size.html" rel="prev">Size and Alignment</a>, Up: <a href="Types.html" rel="up">Types</a> &nbsp; [<a href="Index.html" title="Index" rel="index">Index</a>]</p>
</div><hr>
<h4>2.3.4 Arrays</h4>
<p>Next: the array type is described by its element type and length.</p>
<p>Arrays are passed as pointers to their first element.</p>
<hr><div class="nav-panel"><p>Previous: <a href="Closure.html">Closure Example</a>, Up: <a href="Using.html">Using libffi</a> &nbsp; [<a href="index.html#SEC_Contents">Contents</a>][<a href="Index.html">Index</a>]</p></div>
<div class="header"><p>Up: <a href="Types.html">Types</a> &nbsp; [<a href="Index.html">Index</a>]</p></div>
</body></html>`
	got, err := ExtractHTML(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, nav := range []string{"Type Example", "Size and Alignment", "Closure Example", "[Index]", "Up: Types"} {
		if strings.Contains(got.Text, nav) {
			t.Errorf("navigation %q kept in the passage text:\n%s", nav, got.Text)
		}
	}
	for _, keep := range []string{"2.3.4 Arrays", "Next: the array type is described", "passed as pointers"} {
		if !strings.Contains(got.Text, keep) {
			t.Errorf("text %q lost:\n%s", keep, got.Text)
		}
	}
}

func TestIsNavLine(t *testing.T) {
	for _, c := range []struct {
		line string
		nav  bool
	}{
		{"Next: Overview, Up: (dir)", true},
		{"Next: Types, Previous: Closures, Up: Top [Contents][Index]", true},
		{"Up: Types \u00a0 [Index]", true},
		{"Previous: Closure Example, Up: Using libffi", true},
		{"Next: boil the water, then add the salt.", false},
		{"Up: the river flows north.", false},
		{"See Next: and Previous: in the manual.", false},
		{"", false},
	} {
		if got := isNavLine(c.line); got != c.nav {
			t.Errorf("isNavLine(%q) = %v, want %v", c.line, got, c.nav)
		}
	}
}

func TestHTMLTitleThatIsAFileName(t *testing.T) {
	for _, c := range []struct{ page, want string }{
		{`<html><head><title>ch01.xhtml</title></head><body><h1>The Puffin</h1><p>Text.</p></body></html>`, "The Puffin"},
		{`<html><head><title>index_split_003.html</title></head><body><h2>Chapter Three</h2><p>Text.</p></body></html>`, "Chapter Three"},
		{`<html><head><title>OEBPS/part0004.xhtml</title></head><body><p>No heading.</p></body></html>`, "OEBPS/part0004.xhtml"},
		{`<html><head><title>Puffins</title></head><body><h1>Other</h1><p>Text.</p></body></html>`, "Puffins"},
		{`<html><head><title>Version 2.0 notes</title></head><body><h1>Other</h1></body></html>`, "Version 2.0 notes"},
	} {
		got, err := ExtractHTML(strings.NewReader(c.page))
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != c.want {
			t.Errorf("title of %s = %q, want %q", c.page, got.Title, c.want)
		}
	}
}

func FuzzDropNavLines(f *testing.F) {
	f.Add("Next: A, Up: B [Index]\n\nText.")
	f.Add("Up: x\nNext: y, Prev: z")
	f.Fuzz(func(t *testing.T, s string) {
		out := dropNavLines(s)
		if len(out) > len(s) {
			t.Fatalf("dropNavLines grew the text: %q -> %q", s, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if isNavLine(l) {
				t.Fatalf("navigation line %q kept", l)
			}
		}
	})
}
