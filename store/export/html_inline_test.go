package export

import "testing"

// TestInlineMarkdownHTML: a claim's Markdown is rendered in its line (no
// paragraph), as safely as the answer's.
func TestInlineMarkdownHTML(t *testing.T) {
	for in, want := range map[string]string{
		"The **Vltava** flows.":             "The <strong>Vltava</strong> flows.",
		"A [link](javascript:alert(1)).":    "A [link](javascript:alert(1)).",
		"<img src=x> and `code`":            "&lt;img src=x&gt; and <code>code</code>",
		"- a list item":                     "a list item",
		"see ![p](https://x.example/p.png)": `see <a href="https://x.example/p.png" rel="noopener noreferrer">image: p</a>`,
	} {
		if got := string(inlineMarkdownHTML(in)); got != want {
			t.Errorf("inlineMarkdownHTML(%q)\n got %s\nwant %s", in, got, want)
		}
	}
}
