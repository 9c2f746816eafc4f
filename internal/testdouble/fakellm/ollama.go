package fakellm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Ollama's wire shapes, as github.com/ollama/ollama/api and server/routes.go
// of v0.34.4 define them.

type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Stream   *bool           `json:"stream,omitempty"`
	Format   json.RawMessage `json:"format,omitempty"`
	Options  map[string]any  `json:"options"`
	Truncate *bool           `json:"truncate,omitempty"`
}

type ollamaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type ollamaChatChunk struct {
	Model      string        `json:"model"`
	CreatedAt  string        `json:"created_at"`
	Message    ollamaMessage `json:"message"`
	Done       bool          `json:"done"`
	DoneReason string        `json:"done_reason,omitempty"`

	TotalDuration         int64 `json:"total_duration,omitempty"`
	LoadDuration          int64 `json:"load_duration,omitempty"`
	PromptEvalCount       int   `json:"prompt_eval_count,omitempty"`
	PromptEvalCachedCount *int  `json:"prompt_eval_cached_count,omitempty"`
	PromptEvalDuration    int64 `json:"prompt_eval_duration,omitempty"`
	EvalCount             int   `json:"eval_count,omitempty"`
	EvalDuration          int64 `json:"eval_duration,omitempty"`
}

func ollamaError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// knownModel returns the configured name matching name (":latest" implied).
func (s *Server) knownModel(name string) (string, bool) {
	want := ollamaCanonical(name)
	for _, m := range s.cfg.models {
		if ollamaCanonical(m) == want {
			return m, true
		}
	}
	return "", false
}

func ollamaCanonical(name string) string {
	n := strings.TrimSpace(name)
	if n != "" && !strings.Contains(n[strings.LastIndex(n, "/")+1:], ":") {
		n += ":latest"
	}
	return n
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request, idx int) {
	start := time.Now()
	var req ollamaChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Model == "" {
		ollamaError(w, http.StatusBadRequest, "model is required")
		return
	}
	if _, ok := s.knownModel(req.Model); !ok {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(req.Messages) == 0 {
		writeJSON(w, http.StatusOK, ollamaChatChunk{Model: req.Model, CreatedAt: now(),
			Message: ollamaMessage{Role: "assistant"}, Done: true, DoneReason: "load"})
		return
	}
	stream := req.Stream == nil || *req.Stream
	call := Call{
		Endpoint: "/api/chat",
		Model:    req.Model,
		Prompt:   promptOf(req.Messages),
		Stop:     stringList(req.Options["stop"]),
		Schema:   ollamaSchema(req.Format),
		Options:  req.Options,
		Slot:     -1,
	}
	if s.refusesSchema(call.Schema) {
		s.recordCall(idx, call, stream)
		refuseSamplers(w, true)
		return
	}
	templated := chatTemplate(req.Messages)
	numCtx := intValue(req.Options["num_ctx"], 0)
	if numCtx <= 0 {
		numCtx = OllamaDefaultNumCtx
	}
	promptTokens, refused := s.ollamaCut(&call, s.ollamaTokens(templated), numCtx, req.Truncate != nil && !*req.Truncate)
	if refused {
		s.recordCall(idx, call, stream)
		ollamaRefusal(w, promptTokens, numCtx)
		return
	}
	call, reply := s.beginCall(idx, call, stream)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		ollamaError(w, reply.Status, reply.Error)
		return
	}
	g := s.prepare(reply, call.Stop, intValue(req.Options["num_predict"], 0))
	g.promptTokens = promptTokens
	g.cachedTokens = s.ollamaCacheLookup(req.Model, templated, g.promptTokens)
	s.ollamaContextCheck(&g, intValue(req.Options["num_ctx"], 0))

	if !s.waitFirst(r.Context()) {
		return
	}
	final := ollamaChatChunk{
		Model: req.Model, Message: ollamaMessage{Role: "assistant"}, Done: true, DoneReason: "stop",
		PromptEvalCount: g.promptTokens, PromptEvalCachedCount: &g.cachedTokens,
		EvalCount: len(g.pieces), LoadDuration: int64(time.Millisecond),
		PromptEvalDuration: int64(g.promptTokens-g.cachedTokens) * int64(100*time.Microsecond),
		EvalDuration:       int64(len(g.pieces)) * int64(g.delay+time.Millisecond),
	}
	if g.limited {
		final.DoneReason = "length"
	}

	if !stream {
		if !sleep(r.Context(), g.delay*time.Duration(len(g.pieces))) {
			return
		}
		if g.inbandError != "" {
			ollamaError(w, http.StatusInternalServerError, g.inbandError)
			return
		}
		final.Message.Content = g.text
		final.CreatedAt = now()
		final.TotalDuration = int64(time.Since(start))
		s.ollamaCacheStore(req.Model, templated, g.text)
		writeJSON(w, http.StatusOK, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	ok := streamPieces(w, r, g, func(piece string, _ int) {
		writeLine(w, ollamaChatChunk{Model: req.Model, CreatedAt: now(),
			Message: ollamaMessage{Role: "assistant", Content: piece}})
	})
	if !ok {
		return
	}
	if g.inbandError != "" {
		writeLine(w, map[string]string{"error": g.inbandError})
		return
	}
	final.CreatedAt = now()
	final.TotalDuration = int64(time.Since(start))
	s.ollamaCacheStore(req.Model, templated, g.text)
	writeLine(w, final)
}

func writeLine(w http.ResponseWriter, v any) {
	b := mustJSON(v)
	_, _ = w.Write(append(b, '\n'))
}

// ollamaSchema keeps a format value that asks for structured output: a
// schema object or the string "json".
func ollamaSchema(format json.RawMessage) json.RawMessage {
	f := strings.TrimSpace(string(format))
	if f == "" || f == "null" || f == `""` {
		return nil
	}
	return json.RawMessage(f)
}

// ollamaCacheLookup finds the longest prefix the prompt shares with a recent
// prompt of the model (Ollama keeps one cache per parallel sequence).
func (s *Server) ollamaCacheLookup(model, prompt string, promptTokens int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := 0
	for _, prev := range s.ollamaCache[ollamaCanonical(model)] {
		best = max(best, commonPrefixTokens(prev, prompt))
	}
	return cacheHit(best, promptTokens)
}

// ollamaCacheStore keeps prompt+output in the sequence it extends best,
// evicting the least recent one when every sequence is taken.
func (s *Server) ollamaCacheStore(model, prompt, output string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ollamaCanonical(model)
	seqs := s.ollamaCache[key]
	bestIdx, best := -1, 0
	for i, prev := range seqs {
		if p := commonPrefixTokens(prev, prompt); p > best {
			bestIdx, best = i, p
		}
	}
	switch {
	case bestIdx >= 0:
		seqs = append(seqs[:bestIdx], seqs[bestIdx+1:]...)
	case len(seqs) >= s.cfg.ollamaSlots:
		seqs = seqs[1:]
	}
	s.ollamaCache[key] = append(seqs, prompt+output)
}

func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request, _ int) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		ollamaError(w, http.StatusBadRequest, "model is required")
		return
	}
	if _, ok := s.knownModel(name); !ok {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "# Modelfile generated by fakellm\nFROM " + name + "\n",
		"parameters": "temperature 0.7",
		"template":   "{{ range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n",
		"details":    ollamaDetails(),
		"model_info": map[string]any{
			"general.architecture": "fake",
			"fake.context_length":  s.cfg.contextLength,
		},
		"capabilities": []string{"completion"},
		"modified_at":  "2025-01-01T00:00:00Z",
	})
}

func ollamaDetails() map[string]any {
	return map[string]any{
		"parent_model": "", "format": "gguf", "family": "fake", "families": []string{"fake"},
		"parameter_size": "1B", "quantization_level": "Q4_0",
	}
}

// ModelDigest is the digest /api/tags reports for a model: the hex SHA-256
// of its canonical name.
func ModelDigest(name string) string {
	sum := sha256.Sum256([]byte(ollamaCanonical(name)))
	return hex.EncodeToString(sum[:])
}

func (s *Server) ollamaTags(w http.ResponseWriter, _ *http.Request, _ int) {
	models := make([]map[string]any, 0, len(s.cfg.models))
	for _, m := range s.cfg.models {
		c := ollamaCanonical(m)
		models = append(models, map[string]any{
			"name": c, "model": c, "modified_at": "2025-01-01T00:00:00Z",
			"size": 1 << 30, "digest": ModelDigest(m), "details": ollamaDetails(),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (s *Server) ollamaVersion(w http.ResponseWriter, _ *http.Request, _ int) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.cfg.version})
}

func (s *Server) ollamaRoot(w http.ResponseWriter, _ *http.Request, _ int) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("Ollama is running"))
}
