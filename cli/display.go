package cli

import (
	"encoding/json"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/store"
)

// line is untrusted text that must stay on one line: titles, locators,
// URLs, notes, model names.
func line(s string) string { return textsafe.OneLine(s) }

// safeSession is a stored session for JSON output. New sessions are stored
// clean (the engine sanitises what it emits); sessions stored by older
// versions may not be.
func safeSession(s store.Session) store.Session {
	s.Question = textsafe.ForTerminal(s.Question)
	s.Answer = textsafe.ForTerminal(s.Answer)
	s.Label = textsafe.OneLine(s.Label)
	s.Model = textsafe.OneLine(s.Model)
	s.Status = textsafe.OneLine(s.Status)
	corpora := make([]string, len(s.Corpora))
	for i, c := range s.Corpora {
		corpora[i] = textsafe.OneLine(c)
	}
	if s.Corpora != nil {
		s.Corpora = corpora
	}
	s.Counts = json.RawMessage(textsafe.JSONStrings(s.Counts))
	s.Config = json.RawMessage(textsafe.JSONStrings(s.Config))
	s.Manifest = json.RawMessage(textsafe.JSONStrings(s.Manifest))
	return s
}

// safeLines are stored event lines with every string sanitised; lines that
// need nothing are printed byte for byte as stored.
func safeLines(lines []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		out[i] = textsafe.JSONStrings(l)
	}
	return out
}
