package sources

import (
	"fmt"
	"strings"
	"time"
)

// Ref is the one name a document is shown by, everywhere a person reads it
// (text output, the TUI, exports): a web result's URL, or a local
// passage's ID. When the locator says where in the file the passage starts
// and that differs from the ID, the place follows in words, so a locator
// such as "notes.md#0" (byte 0) is never shown as if it were the ID of
// another passage ("notes.md#1 (byte 0)", "paper.pdf#5 (page 3)").
func (d Document) Ref() string {
	id := d.ID
	if id == "" {
		id = d.URL
	}
	if id == "" {
		return d.Locator
	}
	loc := d.Locator
	if loc == "" || loc == id || loc == d.URL {
		return id
	}
	return id + " (" + place(id, loc) + ")"
}

// DisplayTitle is the title a person reads: the document's title, followed
// by its page when the locator points at a page of the file ("Gulls of the
// North, p. 3"), so every PDF passage shows its page wherever its title is
// shown. It is "" when the title is.
func (d Document) DisplayTitle() string {
	if d.Title == "" {
		return ""
	}
	return d.Title + d.PageNote()
}

// PageNote is ", p. <n>" for a passage on a page of a file, else "": what
// follows a title that was shortened for display.
func (d Document) PageNote() string {
	if p := d.Page(); p != "" {
		return ", p. " + p
	}
	return ""
}

// Page is the page number a local "path#p<n>" locator names, or "" (a web
// address's "#p1" fragment is not a page).
func (d Document) Page() string {
	i := strings.LastIndexByte(d.Locator, '#')
	if i < 0 || strings.Contains(d.Locator, "://") {
		return ""
	}
	frag := d.Locator[i+1:]
	if strings.HasPrefix(frag, "p") && allDigits(frag[1:]) {
		return frag[1:]
	}
	return ""
}

// place describes a locator relative to the passage ID: "byte 120",
// "page 3", "chapter 2", or the locator itself when it points elsewhere.
func place(id, loc string) string {
	i := strings.LastIndexByte(loc, '#')
	if i < 0 || !strings.HasPrefix(id, loc[:i]) {
		return "at " + loc
	}
	frag := loc[i+1:]
	switch {
	case allDigits(frag):
		return "byte " + frag
	case strings.HasPrefix(frag, "p") && allDigits(frag[1:]):
		return "page " + frag[1:]
	case strings.HasPrefix(frag, "ch") && allDigits(frag[2:]):
		return "chapter " + frag[2:]
	}
	return "at " + loc
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CacheNote says that a document came from the web cache and how old the
// cached result was at time at (the moment it was used): "cached, 3 h old".
// It is "" for a document fetched fresh.
func (d Document) CacheNote(at time.Time) string {
	if !d.Cached {
		return ""
	}
	if d.CachedAt.IsZero() || at.IsZero() {
		return "cached"
	}
	return "cached, " + Age(at.Sub(d.CachedAt)) + " old"
}

// Age writes a duration the way a person reads an age: "40 s", "12 min",
// "3 h", "5 days".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		if d < 0 {
			d = 0
		}
		return fmt.Sprintf("%d s", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}
