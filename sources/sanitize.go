package sources

import "github.com/prefrag/prefrag/internal/textsafe"

// Sanitized is the document with no terminal control sequences or bidi
// controls anywhere, and a one-line title, URL and locator: what events and
// JSON output carry (`jq -r` prints strings as they are).
func (d Document) Sanitized() Document {
	d.ID = textsafe.ForTerminal(d.ID)
	d.Title = textsafe.OneLine(d.Title)
	d.Text = textsafe.ForTerminal(d.Text)
	d.URL = textsafe.OneLine(d.URL)
	d.Source = textsafe.ForTerminal(d.Source)
	d.Locator = textsafe.OneLine(d.Locator)
	return d
}
