package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// truncateTo cuts s (styled or not) to width columns with an ellipsis.
func truncateTo(s string, width int) string { return termtext.Truncate(s, width) }

// wrapText word-wraps plain text to width columns.
func wrapText(s string, width int) []string {
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, max(width, 10), ""), "\n")
}

// wrapHanging word-wraps text to width columns after lead (a choice's
// mark and name, say): the lines after the first are indented to where
// the text began, so a long option reads as one item.
func wrapHanging(lead, text string, width int) []string {
	pad := strings.Repeat(" ", ansi.StringWidth(lead))
	lines := wrapText(text, width-len(pad))
	for i, l := range lines {
		if i == 0 {
			lines[i] = lead + l
		} else {
			lines[i] = pad + l
		}
	}
	return lines
}

// padTo pads s with spaces to width columns.
func padTo(s string, width int) string { return termtext.Pad(s, width) }

// sourceText is a source name as plain text: "local:wiki" → "LOCAL wiki".
func sourceText(src string) string {
	n, ok := sources.ParseName(termtext.Line(src))
	if !ok {
		return src
	}
	return n.Badge()
}

// clockText formats a duration as m:ss (or h:mm:ss).
func clockText(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// sizeText formats a byte count.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// dateText formats a time relative to now: the time today, else the date.
func dateText(t, now time.Time) string {
	if t.IsZero() {
		return "—"
	}
	t = t.In(now.Location())
	if y1, m1, d1 := t.Date(); func() bool { y2, m2, d2 := now.Date(); return y1 == y2 && m1 == m2 && d1 == d2 }() {
		return t.Format("15:04")
	}
	if t.Year() == now.Year() {
		return t.Format("Jan 02 15:04")
	}
	return t.Format("2006-01-02")
}

// oneLine is untrusted text made safe and flattened to one line.
func oneLine(s string) string { return termtext.Line(s) }
