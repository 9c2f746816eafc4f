package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/internal/textsafe"
)

// Limits of Settings.MaxDocChars.
const (
	// DefaultMaxDocChars is about 1,000 tokens: a 400-word passage fits
	// whole, a runaway one (a 200,000-character line with no spaces, a
	// whole web page) cannot fill the context window on its own.
	DefaultMaxDocChars = 4000
	MinDocChars        = 200
	MaxDocCharsLimit   = 1_000_000
)

// capText cuts text to at most max characters (runes), on a sentence end
// when there is one in the second half of the kept part, else on a space,
// else mid-word. It returns the kept text and whether it cut.
func capText(text string, max int) (string, bool) {
	if max <= 0 || len(text) <= max || utf8.RuneCountInString(text) <= max {
		return text, false
	}
	end := 0 // byte index after max runes
	for i := 0; i < max; i++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	kept := text[:end]
	half := len(kept) / 2
	// A sentence end: punctuation followed by a space or a line break, or
	// a paragraph break.
	best := -1
	for _, sep := range []string{". ", "! ", "? ", ".\n", "!\n", "?\n", "\n\n"} {
		if i := strings.LastIndex(kept, sep); i >= half && i+1 > best {
			best = i + 1
		}
	}
	if best < 0 {
		// The last space or line break.
		if i := strings.LastIndexFunc(kept, unicode.IsSpace); i >= half {
			best = i
		}
	}
	if best > 0 {
		kept = kept[:best]
	}
	return strings.TrimRightFunc(kept, unicode.IsSpace), true
}

// cutNote is what the model reads after a cut document.
func cutNote(kept, total int) string {
	return fmt.Sprintf(" […]\n(document cut: only its first %s of %s characters are shown)", plural.Thousands(kept), plural.Thousands(total))
}

// capDoc applies the per-document cap to a document's text on its way into
// a prompt. It returns the kept text and, when it cut, the note the model
// reads after it; the user is told once per document and run.
func (r *run) capDoc(d Document) (string, string) {
	text, cut := capText(d.Text, r.settings.MaxDocChars)
	if !cut {
		return text, ""
	}
	kept, total := utf8.RuneCountInString(text), utf8.RuneCountInString(d.Text)
	r.warn(r.pad.turn, d.Source, textsafe.ForTerminal(fmt.Sprintf("document %s is %s characters long: only its first %s enter the prompts (max_doc_chars %s)",
		d.ID, plural.Thousands(total), plural.Thousands(kept), plural.Thousands(r.settings.MaxDocChars))))
	return text, cutNote(kept, total)
}
