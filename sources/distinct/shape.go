package distinct

import (
	"strings"

	"github.com/prefrag/prefrag/internal/lazyre"
)

// Kind says what makes a string distinctive.
type Kind int

const (
	// Identifier is a token mixing letters and digits ("hunter2-ZEBRA",
	// "AB12C"), an e-mail address or a domain name.
	Identifier Kind = iota + 1
	// Number is a long number that is no date, year range or round
	// figure (an account, a phone, a case number).
	Number
	// Name is a word the corpus writes capitalised (a proper name) that is
	// no common English word or well-known name.
	Name
	// Words is a run of words that occurs verbatim in a passage.
	Words
)

// String words a kind for a note: "an identifier", "a run of words".
func (k Kind) String() string {
	switch k {
	case Identifier:
		return "an identifier"
	case Number:
		return "a number"
	case Name:
		return "a rare name"
	case Words:
		return "a run of words"
	}
	return "a string"
}

var (
	// unitLike is a number with a short ending: an ordinal, a decade, a
	// unit, a time ("4th", "1990s", "100km", "5pm", "1080p").
	unitLike = lazyre.New(`^[0-9]+(st|nd|rd|th|s|am|pm|k|m|b|x|p|d|g|h|kg|km|cm|mm|nm|mg|ml|kb|mb|gb|tb|hz|khz|mhz|ghz|kw|mw|gw|kwh|w|v|kv|mph|kph|ft|in|yd|mi|lb|lbs|oz|bc|ad|ce|bce|mins|min|hr|hrs|yr|yrs|sec)$`)
	// notAnIdentifier are numbers in common forms: dates, year ranges,
	// decimals, version numbers.
	dateLike    = lazyre.New(`^[0-9]{1,4}([-/.])[0-9]{1,2}([-/.])[0-9]{1,4}$`)
	yearRange   = lazyre.New(`^[0-9]{4}[-/][0-9]{2,4}$`)
	decimalLike = lazyre.New(`^[0-9]+\.[0-9]+$`)
	domainLike  = lazyre.New(`^[\pL\pN-]{2,}(\.[\pL\pN-]{2,})*\.\pL{2,6}$`)
)

// shape is the kind a token is by its form alone (Identifier, Number), or
// 0 for a word. A name needs the corpus's evidence (set.go).
func shape(t token) Kind {
	alnum := t.letters + t.digits
	switch {
	case t.digits > 0 && t.letters > 0:
		if alnum < 4 || unitLike().MatchString(t.norm) {
			return 0
		}
		return Identifier
	case t.digits > 0:
		if t.digits >= 6 && !dateLike().MatchString(t.norm) && !yearRange().MatchString(t.norm) &&
			!decimalLike().MatchString(t.norm) && !roundFigure(t.norm) {
			return Number
		}
	case t.letters > 0 && t.joined:
		if at := strings.IndexByte(t.norm, '@'); at > 0 && at < len(t.norm)-1 {
			return Identifier
		}
		if domainLike().MatchString(t.norm) {
			return Identifier
		}
	}
	return 0
}

// roundFigure is a number of at most two significant digits (1000000,
// 2500000): a quantity, not an identifier.
func roundFigure(n string) bool {
	sig := 0
	for _, r := range strings.TrimRight(n, "0") {
		if r >= '0' && r <= '9' {
			sig++
		}
	}
	return sig <= 2
}
