package styles

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestBadges(t *testing.T) {
	plain := New(true, true)
	tests := []struct {
		got, want string
	}{
		{plain.SourceBadge("local:wiki"), "[LOCAL wiki]"},
		{plain.SourceBadge("web:duckduckgo"), "[WEB duckduckgo]"},
		{plain.SourceBadge("mcp:memory"), "[MCP memory]"},
		{plain.SourceBadge("odd"), "[ODD]"},
		{plain.LabelBadge("correct"), "[CORRECT]"},
		{plain.LabelBadge("PARTIALLY CORRECT"), "[PARTIALLY CORRECT]"},
		{plain.LabelBadge(" INCORRECT "), "[INCORRECT]"},
		{plain.LabelBadge(""), "[UNLABELLED]"},
	}
	for _, tt := range tests {
		if got := ansi.Strip(tt.got); got != tt.want {
			t.Errorf("badge %q, want %q", got, tt.want)
		}
	}
}

// Each colour role of the sources' kinds table has a badge colour of its
// own.
func TestSourceBadgeColoursDiffer(t *testing.T) {
	s := New(true, false)
	seen := map[string]string{}
	for _, src := range []string{"local:a", "mcp:a", "web:a", "odd:a"} {
		text, _, _ := strings.Cut(ansi.Strip(s.SourceBadge(src)), " ")
		style := strings.Replace(s.SourceBadge(src), text, "", 1)
		if other, ok := seen[style]; ok {
			t.Errorf("%s and %s share a badge colour", src, other)
		}
		seen[style] = src
	}
}

func TestNoColorHasNoColours(t *testing.T) {
	for _, dark := range []bool{true, false} {
		s := New(dark, true)
		out := s.SourceBadge("web:x") + s.JudgeSwitch.Render("switch") + s.Error.Render("e") + s.LabelBadge("INCORRECT")
		// SGR 38/48 set a foreground/background colour; NO_COLOR allows
		// only attributes such as bold.
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("dark=%v: colour codes in NO_COLOR output %q", dark, out)
		}
		if s.Glamour != "notty" {
			t.Errorf("glamour style %q without colour", s.Glamour)
		}
	}
}

func TestLightAndDarkDiffer(t *testing.T) {
	d, l := New(true, false), New(false, false)
	if d.Text.Render("x") == l.Text.Render("x") {
		t.Error("the same text colour on dark and light backgrounds")
	}
	if d.Glamour != "dark" || l.Glamour != "light" {
		t.Errorf("glamour styles %q/%q", d.Glamour, l.Glamour)
	}
	if !strings.Contains(d.SourceBadge("local:wiki"), "\x1b[") {
		t.Error("colour badge has no styling")
	}
}
