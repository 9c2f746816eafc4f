package trajectory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// shape prints a parsed document as one line per node, the same for our
// extension nodes and goldmark's extension package's (which is linked into
// this test only, never into the binary: see TestBinaryLinksNoHeavyInit in
// e2e).
func shape(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		b.WriteString(strings.Repeat(" ", depth))
		switch n := n.(type) {
		case *ast.Text:
			fmt.Fprintf(&b, "Text %q", n.Segment.Value(src))
		case *ast.String:
			fmt.Fprintf(&b, "String %q", n.Value)
		case *ast.AutoLink:
			fmt.Fprintf(&b, "AutoLink %d %q", n.AutoLinkType, n.URL(src))
		case *ast.TextBlock, *ast.Paragraph:
			b.WriteString("Para") // tight or loose: our renderer treats both alike
		case *mdTable:
			fmt.Fprintf(&b, "Table %v", n.aligns)
		case *east.Table:
			var a []mdAlign
			for _, x := range n.Alignments {
				a = append(a, map[east.Alignment]mdAlign{east.AlignLeft: alignLeft, east.AlignRight: alignRight, east.AlignCenter: alignCenter, east.AlignNone: alignNone}[x])
			}
			fmt.Fprintf(&b, "Table %v", a)
		case *mdTableRow:
			fmt.Fprintf(&b, "Row header=%v", n.header)
		case *east.TableHeader:
			b.WriteString("Row header=true")
		case *east.TableRow:
			b.WriteString("Row header=false")
		case *mdTableCell, *east.TableCell:
			b.WriteString("Cell")
		case *mdStrike, *east.Strikethrough:
			b.WriteString("Strike")
		case *mdCheckBox:
			fmt.Fprintf(&b, "CheckBox %v", n.checked)
		case *east.TaskCheckBox:
			fmt.Fprintf(&b, "CheckBox %v", n.IsChecked)
		case *mdDefList, *east.DefinitionList:
			b.WriteString("DefList")
		case *mdDefTerm, *east.DefinitionTerm:
			b.WriteString("DefTerm")
		case *mdDefDescrip, *east.DefinitionDescription:
			b.WriteString("DefDescription")
		default:
			b.WriteString(n.Kind().String())
		}
		b.WriteString("\n")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func goldmarkGFM(src []byte) ast.Node {
	p := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList)).Parser()
	return p.Parse(text.NewReader(src))
}

// mdExtInputs are what the differential test below parses both ways.
var mdExtInputs = []string{
	// tables
	"| a | b |\n|---|---|\n| 1 | 2 |",
	"a | b\n--|--\n1 | 2\n3",
	"Intro line\n| a | b |\n| :-- | --: |\n| 1 | 2 | 3 |\n| 4 |",
	"| a | b | c |\n|:-:|---|--:|\n| `x \\| y` | **b** | [l](u) |",
	"| a |\n|---|---|\n| 1 |",
	"|a|b|\n|-|-|",
	"| a | b |\n| --- | --- |\n\nafter",
	"- | a | b |\n  |---|---|\n  | 1 | 2 |",
	"> | q | r |\n> |---|---|\n> | 1 | 2 |",
	"| a \\| b | c |\n|---|---|\n| d | e |",
	"| a | b |\n|---|--x|\n| 1 | 2 |",
	"||\n|-|",
	// strikethrough
	"This is ~~wrong~~ right.",
	"A ~single~ tilde.",
	"~~~ not code\n",
	"a ~~~three~~~ b",
	"~~a *b* c~~ and ~~unclosed",
	"x~~y~~z",
	// task lists
	"- [x] done\n- [ ] todo\n- [X] Done",
	"1. [ ] one\n2. [x] two",
	"- [ ]\n- [x] ",
	"- not [x] a task",
	"[x] not in a list",
	"- [x] loose\n\n- [ ] items",
	"- > [x] quoted",
	"- [x]done",
	// linkify
	"See www.example.org autolinked.",
	"See https://example.org/a/b.html now.",
	"(https://example.org/x) and (see https://example.org/y).",
	"https://en.wikipedia.org/wiki/Franz_Kafka_(writer) ok",
	"Mail someone@example.org, or foo.bar+baz@mail.example.co.uk.",
	"*http://example.org*, _www.example.org_ and ~https://example.org~",
	"ftp://files.example.org/pub?x=1&amp; end",
	"http://localhost:8080/x is no link",
	"see www.example.org.",
	"a https://example.org:8080/path?q=1#frag! b",
	"https://example.org/a&amp;",
	"[label https://example.org](https://x.org) and <https://y.org>",
	"`https://example.org` in code",
	"notalink@ and @foo and a@b",
	"http://ex_ample.org x",
	"www.a_b.example.org",
	// definition lists
	"Term\n: Its definition.",
	"Term one\nTerm two\n: First.\n: Second\ncontinued.",
	"Not a term\n:no space",
	"Apple\n: A fruit.\n\nOrange\n: Another.",
	// found by differential fuzzing against goldmark's extension package
	"0000000000\n0000000\n   -- |  -  ||",
	"www.0 and www.example.org",
	"http://0.00 and http://10.0.0.1:8080/x",
	"ftp://0.AAA",
	"0@.00 and +@0.0 and a@b-.org",
	"0) 0\n: 0",
	"- Term\n  : its description",
}

// Our extensions parse as goldmark's extension package did, apart from
// the differences listed here (where ours follows GFM).
func TestMDExtMatchesGoldmarkGFM(t *testing.T) {
	differ := map[string]string{
		// The same on screen: the renderer drops the backslash of "\|" in
		// a cell's code span (see TestMDExtRendering).
		"| a | b | c |\n|:-:|---|--:|\n| `x \\| y` | **b** | [l](u) |": "escaped pipe in a cell's code",
		// GFM leaves an unbalanced ")" out of the link; goldmark only
		// did when the ")" was last.
		"(https://example.org/x) and (see https://example.org/y).": "unbalanced parenthesis",
		// GFM: no "_" in the last two labels of a domain.
		"http://ex_ample.org x": "underscore in the domain",
		// A blank line between two terms keeps them apart (goldmark ran
		// them together into one list, without the blank line).
		"Apple\n: A fruit.\n\nOrange\n: Another.": "loose definition list",
		// GFM wants white space after a task's box; goldmark did not.
		"- [x]done": "task box without space",
	}
	for _, in := range mdExtInputs {
		src := []byte(in)
		want, got := shape(goldmarkGFM(src), src), shape(parseMarkdown(src), src)
		if why, ok := differ[in]; ok {
			if got == want {
				t.Errorf("%q: listed as differing (%s) but parses the same now", in, why)
			}
			continue
		}
		if got != want {
			t.Errorf("%q:\n--- goldmark extension\n%s--- ours\n%s", in, want, got)
		}
	}
}

// What the differences above and the extensions look like on screen.
func TestMDExtRendering(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"| a | b |\n|---|---|\n| `x \\| y` | 2 |", "   a              | b\n  ----------------|---------------\n   x | y          | 2"},
		{"(see https://example.org/y).", "  (see https://example.org/y)."},
		{"Apple\n: A fruit.\n\nOrange\n: Another.", "  Apple\n  * A fruit.\n\n  Orange\n  * Another."},
		{"- [x]done\n- [ ] todo", "  • [x]done\n  [ ] todo"},
		{"~~gone~~ and ~also~", "  ~~gone~~ and ~~also~~"},
		{"_www.example.org_", "  http://www.example.org"},
		{"mail a.b@example.org.", "  mail a.b@example.org."},
	} {
		if got := plain(newMarkdown("notty").render(tc.md, 40)); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.md, got, tc.want)
		}
	}
}

// Whatever the model writes, the extensions neither panic nor make nodes
// that point outside the text, and every body row of a table has one cell
// per column.
func FuzzMDExtParse(f *testing.F) {
	for _, in := range mdExtInputs {
		f.Add(in)
	}
	for _, md := range mdSamples {
		f.Add(md)
	}
	f.Fuzz(func(t *testing.T, in string) {
		src := []byte(in)
		doc := parseMarkdown(src)
		err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.Text:
				if s := n.Segment; s.Start < 0 || s.Start > s.Stop || s.Stop > len(src) {
					return ast.WalkStop, fmt.Errorf("text segment %v outside %d bytes", s, len(src))
				}
			case *ast.AutoLink:
				if len(n.URL(src)) == 0 {
					return ast.WalkStop, fmt.Errorf("empty autolink")
				}
			case *mdTable:
				for row := n.FirstChild(); row != nil; row = row.NextSibling() {
					if row.ChildCount() != len(n.aligns) {
						return ast.WalkStop, fmt.Errorf("row of %d cells in a table of %d columns", row.ChildCount(), len(n.aligns))
					}
				}
			}
			if n.Type() == ast.TypeBlock {
				for i := 0; i < n.Lines().Len(); i++ {
					if s := n.Lines().At(i); s.Start < 0 || s.Start > s.Stop || s.Stop > len(src) {
						return ast.WalkStop, fmt.Errorf("%s line %v outside %d bytes", n.Kind(), s, len(src))
					}
				}
			}
			return ast.WalkContinue, nil
		})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	})
}

// knownDifferences are inputs where ours and goldmark's extension package
// may differ on purpose (see TestMDExtMatchesGoldmarkGFM): bare URLs and
// e-mail addresses (ours follow GFM), escaped pipes in cells, task boxes
// without a space after them, and definition lists with blank lines,
// empty descriptions or block content in a description (ours hold one
// paragraph of text).
var knownDifferences = []*regexp.Regexp{
	regexp.MustCompile(`www\.|://|@`),
	regexp.MustCompile(`\\\|`),
	regexp.MustCompile(`\[[ xX\t\r\f]\][^ \t\n]`),
	regexp.MustCompile(`(?m)^[ \t]*:[ \t]*$`),
	regexp.MustCompile(`(?ms)^[ \t]*:.*^[ \t]*$|^[ \t]*$.*^[ \t]*:`),
	// block content (a list, a quote, code...) in a description
	regexp.MustCompile("(?m)^[ \t]*:[ \t]+([-+*>#|<=`~\t]|[0-9]+[.)]| {4})"),
	// a line of block content after a description (ours continue its
	// paragraph or end the list; goldmark's nests the block in it)
	regexp.MustCompile("(?ms)^[ \t]*:[ \t].*^[ \t]*([-+*>#|<=`~]|[0-9]+[.)])"),
}

// mergeTexts joins adjacent text nodes in a shape (where a parser split
// the same text in two) and reads "\|" in code as "|".
func mergeTexts(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " ")
		ind := len(l) - len(t)
		if strings.HasPrefix(t, "Text ") && len(out) > 0 {
			p := out[len(out)-1]
			pt := strings.TrimLeft(p, " ")
			if len(p)-len(pt) == ind && strings.HasPrefix(pt, "Text ") {
				a, _ := strconv.Unquote(pt[5:])
				b, _ := strconv.Unquote(t[5:])
				out[len(out)-1] = strings.Repeat(" ", ind) + "Text " + strconv.Quote(a+b)
				continue
			}
		}
		out = append(out, l)
	}
	return strings.ReplaceAll(strings.Join(out, "\n"), `\\|`, "|")
}

// Differential fuzzing: apart from the known differences, any text parses
// to the same tree with our extensions as with goldmark's.
func FuzzMDExtMatchesGoldmark(f *testing.F) {
	known := func(in string) bool {
		for _, re := range knownDifferences {
			if re.MatchString(in) {
				return true
			}
		}
		return false
	}
	// Seeds with a known difference would only be skipped.
	for _, in := range mdExtInputs {
		if !known(in) {
			f.Add(in)
		}
	}
	for _, md := range mdSamples {
		if !known(md) {
			f.Add(md)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		if known(in) {
			t.Skip()
		}
		src := []byte(in)
		want, got := mergeTexts(shape(goldmarkGFM(src), src)), mergeTexts(shape(parseMarkdown(src), src))
		if got != want {
			t.Fatalf("%q:\n--- goldmark extension\n%s--- ours\n%s", in, want, got)
		}
	})
}
