package chromium

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
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
