package styles

import (
	"image/color"
	"math"
	"testing"

	"charm.land/lipgloss/v2"
)

// Backgrounds the hints must read on: pure black and white and the
// defaults of common terminal themes (VS Code, gruvbox, One Dark,
// Solarized, Ubuntu's GNOME Terminal; Solarized light, a light grey).
var (
	darkBackgrounds  = []string{"#000000", "#1E1E1E", "#282828", "#282C34", "#002B36", "#300A24"}
	lightBackgrounds = []string{"#FFFFFF", "#FAFAFA", "#EEEEEE", "#FDF6E3"}
)

// luminance is WCAG 2's relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is WCAG 2's contrast ratio of two colours (1 to 21).
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func TestContrastFormula(t *testing.T) {
	black, white := lipgloss.Color("#000000"), lipgloss.Color("#FFFFFF")
	if r := contrast(black, white); math.Abs(r-21) > 1e-9 {
		t.Errorf("black on white = %.3f, want 21", r)
	}
	// #767676 on white is the well-known 4.54:1.
	if r := contrast(lipgloss.Color("#767676"), white); math.Abs(r-4.54) > 0.01 {
		t.Errorf("#767676 on white = %.3f, want 4.54", r)
	}
}

// Every key-hint style reaches 4.5:1 (WCAG AA for text) against each
// reference background of its palette.
func TestKeyHintsContrast(t *testing.T) {
	for _, dark := range []bool{true, false} {
		st, bgs := New(dark, false), lightBackgrounds
		if dark {
			bgs = darkBackgrounds
		}
		hints := st.HintStyles()
		if len(hints) == 0 {
			t.Fatal("no hint styles")
		}
		for name, h := range hints {
			fg := h.GetForeground()
			if _, none := fg.(lipgloss.NoColor); none || fg == nil {
				t.Errorf("dark=%v: hint style %s has no colour of its own", dark, name)
				continue
			}
			for _, bg := range bgs {
				if r := contrast(fg, lipgloss.Color(bg)); r < 4.5 {
					t.Errorf("dark=%v: hint style %s on %s: contrast %.2f:1, want at least 4.5:1", dark, name, bg, r)
				}
			}
		}
	}
}

// The highlighted quote of a passage reads at 4.5:1 or more (its own
// foreground on its own background), and stands out without colours.
func TestQuoteMarkContrast(t *testing.T) {
	for _, dark := range []bool{true, false} {
		st := New(dark, false)
		fg, bg := st.QuoteMark.GetForeground(), st.QuoteMark.GetBackground()
		if r := contrast(fg, bg); r < 4.5 {
			t.Errorf("dark=%v: quote mark contrast %.2f:1, want at least 4.5:1", dark, r)
		}
	}
	if !New(true, true).QuoteMark.GetReverse() {
		t.Error("without colours the quote mark is not reverse video")
	}
}
