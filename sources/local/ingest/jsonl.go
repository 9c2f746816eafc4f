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
func ParseJSONLLine(line []byte) (Record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Record{}, ErrBlankLine
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Record{}, fmt.Errorf("not a JSON object: %s", jsonProblem(err))
	}
	var rec Record
	var err error
	if rec.Text, err = stringField(raw, "text"); err != nil {
		return Record{}, err
	}
	if rec.Text == "" {
		if rec.Text, err = stringField(raw, "contents"); err != nil {
			return Record{}, err
		}
	}
	if rec.Title, err = stringField(raw, "title"); err != nil {
		return Record{}, err
	}
	if rec.URL, err = stringField(raw, "url"); err != nil {
		return Record{}, err
	}
	if rec.ID, err = idField(raw); err != nil {
		return Record{}, err
	}
	rec.Title = strings.TrimSpace(CleanString(rec.Title))
	rec.Text = CleanString(rec.Text)
	if strings.TrimSpace(rec.Text) == "" {
		return Record{}, errors.New(`no "text"`)
	}
	rec.URL = strings.TrimSpace(CleanString(rec.URL))
	return rec, nil
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
	id = strings.TrimSpace(CleanString(id))
	id = strings.ReplaceAll(id, "\n", " ")
	id = strings.ReplaceAll(id, "\t", " ")
	if len(id) > MaxIDLength {
		return "", fmt.Errorf(`"id" is longer than %d bytes`, MaxIDLength)
	}
	return id, nil
}
