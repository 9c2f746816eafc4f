package chromium

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pngOf(t *testing.T, bg color.Color, ink int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			c := bg
			if y*100+x >= 10000-ink {
				c = color.RGBA{200, 30, 30, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestInk: a blank screenshot has no ink; a page's text and colours do;
// the background's luminance tells light from dark.
func TestInk(t *testing.T) {
	for _, c := range []struct {
		name  string
		bg    color.Color
		ink   int
		share float64
		light bool
	}{
		{"blank white", color.White, 0, 0, true},
		{"blank dark", color.RGBA{20, 23, 28, 255}, 0, 0, false},
		{"some text", color.White, 500, 0.05, true},
	} {
		share, lum, err := Ink(pngOf(t, c.bg, c.ink))
		if err != nil {
			t.Fatal(err)
		}
		if share != c.share || (lum > 128) != c.light {
			t.Errorf("%s: ink %.3f luminance %d, want %.3f light %v", c.name, share, lum, c.share, c.light)
		}
	}
	if _, _, err := Ink([]byte("not a png")); err == nil {
		t.Error("no error for a file that is not a PNG")
	}
}

// TestOverflowProbe: laid out at phone widths in a real browser, a page
// with a 2000 px wide <pre> or a long unbroken word scrolls sideways and
// the probe names what is too wide, as it names text pushed past the left
// edge (nothing scrolls to it) or a word that white space pushes out; a
// plain page, a wide <pre> that scrolls on its own and white space hanging
// at a line's end fit, and a word its box cuts off fits but is named as
// cut off.
func TestOverflowProbe(t *testing.T) {
	b := New(t)
	const head = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><style>body { margin: 0 } .own { overflow-x: auto } .cut { overflow: hidden } .left { margin-left: -80px } .pw { white-space: pre-wrap } .pre { white-space: pre }</style></head><body>\n"
	long := strings.Repeat("unbroken", 60)
	for _, c := range []struct {
		name    string
		body    string
		scrolls bool
		wide    string // the path of an element the probe must name as past the edge
		clipped string // … or as cut off
	}{
		// The page holds the probe's markers itself: the result is still the probe's.
		{"plain", "<main><h1>A title</h1><p>Some words that wrap as a paragraph does, at any width at all. PROBE[%7B%7D]PROBE</p></main>", false, "", ""},
		{"wide pre", `<main><p>Before.</p><pre style="width: 2000px">code</pre></main>`, true, "main > pre", ""},
		{"long word", `<main><p class="x">` + long + `</p></main>`, true, "main > p.x", ""},
		{"pre that scrolls on its own", `<main><div class="own"><pre style="width: 2000px">code</pre></div></main>`, false, "", ""},
		{"word cut off by its box", `<main><p class="cut">` + long + `</p></main>`, false, "", "main > p.cut"},
		{"text past the left edge", `<main><p class="left">Words pushed out to the left.</p></main>`, false, "main > p.left", ""},
		{"spaces hanging at a line's end", `<main><p class="pw">Words` + strings.Repeat(" ", 300) + `and more words.</p></main>`, false, "", ""},
		{"a word pushed out by spaces", `<main><p class="pre">` + strings.Repeat(" ", 300) + `word</p></main>`, true, "main > p.pre", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "page.html")
			if err := os.WriteFile(file, []byte(head+c.body+"\n</body></html>\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{PhoneWidth, NarrowWidth} {
				o, err := b.Overflow(context.Background(), file, width)
				if err != nil {
					t.Fatal(err)
				}
				t.Log(o)
				if o.ClientWidth != width {
					t.Errorf("the page was laid out %d px wide, want %d", o.ClientWidth, width)
				}
				if o.Scrolls() != c.scrolls {
					t.Errorf("scrolls sideways = %v, want %v: %s", o.Scrolls(), c.scrolls, o)
				}
				if c.name == "wide pre" && o.ScrollWidth != 2000 {
					t.Errorf("the 2000 px pre: the page spans %d px", o.ScrollWidth)
				}
				if fits := c.wide == "" && !c.scrolls; o.Fits() != fits {
					t.Errorf("fits = %v, want %v: %s", o.Fits(), fits, o)
				}
				for _, l := range []struct {
					want string
					got  []Wide
				}{{c.wide, o.Wide}, {c.clipped, o.Clipped}} {
					found := false
					for _, w := range l.got {
						found = found || w.Path == l.want
					}
					if l.want != "" && !found {
						t.Errorf("the probe does not name %s: %s", l.want, o)
					}
					if l.want == "" && len(l.got) > 0 {
						t.Errorf("the probe names elements it should not: %s", o)
					}
				}
			}
		})
	}
}
