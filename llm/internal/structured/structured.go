package structured

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/prefrag/prefrag/llm"
)

// Format is how structured output is asked for, strongest first.
type Format int

const (
	Schema Format = iota // the JSON schema (Ollama format, llama.cpp json_schema, OpenAI response_format json_schema)
	Object               // any JSON object (Ollama "json", OpenAI json_object) + validation
	None                 // no constraint + validation
)

// IsRefusal reports whether err is a server's refusal of the structured
// output a request carried. It is recognised by what the server does, not
// by its words: any 400 or 422 answer to such a request (llama-server says
// "Failed to initialize samplers: std::exception" when it cannot build the
// schema's grammar, vLLM names xgrammar, others name response_format), or
// a 5xx that names the format, the schema, a grammar or guided decoding (a
// chat template or grammar that failed on it). A prompt that does not fit
// is its own error (llm.ContextExceededError) and never a refusal.
func IsRefusal(err error) bool {
	var se *llm.ServerError
	if !errors.As(err, &se) {
		return false
	}
	switch {
	case se.Status == http.StatusBadRequest || se.Status == http.StatusUnprocessableEntity:
		return true
	case se.Status < 500:
		return false
	}
	m := strings.ToLower(se.Message + " " + se.Type)
	for _, w := range []string{"response_format", "response format", "json_schema", "json schema", "json_object", "grammar", "guided", "format"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// Memory remembers, per server and model, the format that server takes.
type Memory struct {
	mu sync.Mutex
	m  map[string]Format
}

// Remembered is the process's memory: a refusal is not asked again for
// the rest of the run.
var Remembered = &Memory{}

// Get is the format to start with for key.
func (f *Memory) Get(key string) Format {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

// Set records that key's server takes v at best.
func (f *Memory) Set(key string, v Format) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]Format{}
	}
	if v > f.m[key] {
		f.m[key] = v
	}
}

// Generate runs gen with the format remembered for key (a server and
// model), moving to the next format after a refusal — one retry per
// refusal — and remembering it. A reply made under a weaker format than
// Schema is checked against schema and asked for once more when it does not
// match; the token counts of both calls are added up.
func Generate(key string, schema []byte, gen func(Format) (llm.Response, error)) (llm.Response, error) {
	f := Remembered.Get(key)
	var resp llm.Response
	var err error
	for {
		resp, err = gen(f)
		if f < None && IsRefusal(err) {
			f++
			Remembered.Set(key, f)
			continue
		}
		break
	}
	if err != nil || f == Schema || resp.Truncated() {
		return resp, err
	}
	if Validate(schema, resp.Text) == nil {
		return resp, nil
	}
	// A plain JSON object guarantees JSON, not its shape: ask once more.
	again, err := gen(f)
	again.PromptTokens += resp.PromptTokens
	again.CachedPromptTokens += resp.CachedPromptTokens
	again.OutputTokens += resp.OutputTokens
	again.Duration += resp.Duration
	return again, err
}
