package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Record is one .jsonl line: {"title", "text", "id"?, "url"?}.
type Record struct {
	ID    string
	Title string
	Text  string
	URL   string
}

// ErrBlankLine is returned for a line with nothing but whitespace; callers
// skip such lines silently.
var ErrBlankLine = errors.New("blank line")

// MaxIDLength bounds a .jsonl id (ids travel in events and prompts).
const MaxIDLength = 512

// ParseJSONLLine parses one line of a .jsonl corpus file. The text may also
// be given as "contents" (the common Pyserini layout); an id may be a string
// or a number. The returned strings are cleaned of control characters.
//
// Most lines take a single-pass scanner (jsonl_fast.go) that gives up on
// anything unusual; such lines, and every line with an error, then go through
// encoding/json, which defines the result and the error message.
func ParseJSONLLine(line []byte) (Record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Record{}, ErrBlankLine
	}
	// Room for the strings with escapes of a typical line; a longer line
	// makes the scanner allocate.
	var scratch [2048]byte
	if f, ok := scanJSONLObject(line, scratch[:0]); ok {
		return f.record()
	}
	return parseJSONLSlow(line)
}

// jsonlFields holds the values of the keys a .jsonl line is read for, as
// decoded JSON strings (or the literal of a numeric id), before cleaning.
// Both parsers fill it; record is the one place that cleans and checks them.
type jsonlFields struct {
	id, title, text, url []byte
}

// pickText applies the "contents" fallback: it is used only when "text" is
// absent, null or the empty string.
func pickText(text, contents []byte) []byte {
	if len(text) == 0 {
		return contents
	}
	return text
}

// record cleans the fields and applies the id and text rules. The id is
// checked first, as the error order is part of the behaviour.
func (f jsonlFields) record() (Record, error) {
	id := strings.TrimSpace(Clean(f.id))
	id = strings.ReplaceAll(id, "\n", " ")
	id = strings.ReplaceAll(id, "\t", " ")
	if len(id) > MaxIDLength {
		return Record{}, fmt.Errorf(`"id" is longer than %d bytes`, MaxIDLength)
	}
	rec := Record{
		ID:    id,
		Title: strings.TrimSpace(Clean(f.title)),
		Text:  Clean(f.text),
		URL:   strings.TrimSpace(Clean(f.url)),
	}
	if strings.TrimSpace(rec.Text) == "" {
		return Record{}, errors.New(`no "text"`)
	}
	return rec, nil
}

// parseJSONLSlow decodes a trimmed, non-blank line with encoding/json. It is
// the reference the fast scanner must match, and the source of every error.
func parseJSONLSlow(line []byte) (Record, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Record{}, fmt.Errorf("not a JSON object: %s", jsonProblem(err))
	}
	var f jsonlFields
	var err error
	var text, contents string
	if text, err = stringField(raw, "text"); err != nil {
		return Record{}, err
	}
	if text == "" {
		if contents, err = stringField(raw, "contents"); err != nil {
			return Record{}, err
		}
	}
	f.text = pickText([]byte(text), []byte(contents))
	var title, url, id string
	if title, err = stringField(raw, "title"); err != nil {
		return Record{}, err
	}
	if url, err = stringField(raw, "url"); err != nil {
		return Record{}, err
	}
	if id, err = idField(raw); err != nil {
		return Record{}, err
	}
	f.title, f.url, f.id = []byte(title), []byte(url), []byte(id)
	return f.record()
}

func jsonProblem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v at byte %d", syn, syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return "a JSON " + typ.Value
	}
	return err.Error()
}

func stringField(raw map[string]json.RawMessage, key string) (string, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%q is not a string", key)
	}
	return s, nil
}

func idField(raw map[string]json.RawMessage) (string, error) {
	v, ok := raw["id"]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if dec.Decode(&n) != nil {
			return "", errors.New(`"id" is neither a string nor a number`)
		}
		if _, perr := strconv.ParseFloat(n.String(), 64); perr != nil {
			return "", errors.New(`"id" is neither a string nor a number`)
		}
		id = n.String()
	}
	return id, nil
}
