package fakellm

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Embedding endpoints, as the real servers answer them:
//
//   - Ollama POST /api/embed {"model", "input": string or [string]} →
//     {"model", "embeddings": [[…]], "total_duration", "load_duration",
//     "prompt_eval_count"}; a model the server does not have: 404 "model
//     'x' not found"; a chat model: 501 "This server does not support
//     embeddings. Start it with `--embeddings`" (Ollama 0.34 passes on
//     the message of the llama-server it runs inside).
//   - llama-server POST /v1/embeddings {"input", "model"?} → {"object":
//     "list", "model", "data": [{"object": "embedding", "index", "embedding"}],
//     "usage": {"prompt_tokens", "total_tokens"}}; a server whose model is
//     not an embedding model was started without --embeddings: 501
//     not_supported_error; with PoolingNone: 400 "Pooling type 'none' is not
//     OAI compatible…"; a text over EmbedBatchTokens: 500 "input is too large
//     to process. increase the physical batch size".
//   - OpenAI-compatible (vLLM) POST /v1/embeddings: the same answer; a model
//     not served: 404 "The model `x` does not exist."; a chat model: 400
//     "The model does not support Embeddings API".
//
// A model embeds when EmbedModels names it, or (without EmbedModels) when
// its name contains "embed". Vectors come from Embed (concepts.go).

// EmbedModels sets the models that embed; they are served besides Models.
func EmbedModels(names ...string) Option {
	return func(c *config) { c.embedModels = append([]string(nil), names...) }
}

// EmbedDims sets the length of the vectors (default DefaultEmbedDims).
func EmbedDims(n int) Option { return func(c *config) { c.embedDims = n } }

// EmbedDelay pauses every embedding call this long before it answers.
func EmbedDelay(d time.Duration) Option { return func(c *config) { c.embedDelay = d } }

// EmbedErrors makes the first n embedding calls fail with HTTP 500.
func EmbedErrors(n int) Option { return func(c *config) { c.embedErrors = n } }

// PoolingNone makes llama-server's embeddings refuse as a server whose
// model has no pooling does (a chat model started with --embeddings).
func PoolingNone() Option { return func(c *config) { c.poolingNone = true } }

// EmbedBatchTokens makes llama-server refuse a text longer than n tokens
// (runes/4), as its physical batch (-ub) does.
func EmbedBatchTokens(n int) Option { return func(c *config) { c.embedBatch = n } }

// embeds reports whether model is an embedding model.
func (s *Server) embeds(model string) bool {
	if len(s.cfg.embedModels) == 0 {
		return strings.Contains(strings.ToLower(model), "embed")
	}
	for _, m := range s.cfg.embedModels {
		if ollamaCanonical(m) == ollamaCanonical(model) {
			return true
		}
	}
	return false
}

// hasModel reports whether the server has model, chat or embedding
// (":latest" implied).
func (s *Server) hasModel(model string) bool {
	if _, ok := s.knownModel(model); ok {
		return true
	}
	for _, m := range s.cfg.embedModels {
		if ollamaCanonical(m) == ollamaCanonical(model) {
			return true
		}
	}
	return false
}

// EmbedCalls returns how many embedding calls were answered and how many
// texts they embedded.
func (s *Server) EmbedCalls() (calls, texts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCalls, s.embedTexts
}

// beginEmbed counts a call and says whether it must fail (EmbedErrors).
func (s *Server) beginEmbed(texts int) (fail bool) {
	if s.cfg.embedDelay > 0 {
		time.Sleep(s.cfg.embedDelay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.embedFailed < s.cfg.embedErrors {
		s.embedFailed++
		return true
	}
	s.embedCalls++
	s.embedTexts += texts
	return false
}

func (s *Server) dims() int {
	if s.cfg.embedDims > 0 {
		return s.cfg.embedDims
	}
	return DefaultEmbedDims
}

// vectors embeds texts and counts their tokens (words).
func (s *Server) vectors(texts []string) ([][]float32, int) {
	out := make([][]float32, len(texts))
	tokens := 0
	for i, t := range texts {
		out[i] = Embed(t, s.dims())
		tokens += len(strings.Fields(t)) + 1
	}
	return out, tokens
}

func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request, _ int) {
	start := time.Now()
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	texts := stringList(req.Input)
	switch {
	case req.Model == "":
		ollamaError(w, http.StatusBadRequest, "model is required")
		return
	case !s.hasModel(req.Model):
		ollamaError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	case !s.embeds(req.Model):
		ollamaError(w, http.StatusNotImplemented, "This server does not support embeddings. Start it with `--embeddings`")
		return
	}
	if s.beginEmbed(len(texts)) {
		ollamaError(w, http.StatusInternalServerError, "fakellm: simulated embedding failure")
		return
	}
	vecs, tokens := s.vectors(texts)
	writeJSON(w, http.StatusOK, map[string]any{
		"model": req.Model, "embeddings": vecs, "prompt_eval_count": tokens,
		"total_duration": time.Since(start).Nanoseconds(), "load_duration": 1000,
	})
}

// v1Embeddings serves llama-server's and the OpenAI mode's
// /v1/embeddings.
func (s *Server) v1Embeddings(w http.ResponseWriter, r *http.Request, idx int) {
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if err := json.Unmarshal(s.requestBody(idx), &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": err.Error(), "type": "invalid_request_error"}})
		return
	}
	texts := stringList(req.Input)
	model := req.Model
	if s.cfg.openai {
		if model == "" {
			model = s.cfg.models[0]
		}
		if !s.servesModel(model) && !s.hasModel(model) {
			openaiError(w, http.StatusNotFound, "NotFoundError", "model", "The model `"+model+"` does not exist.")
			return
		}
		if !s.embeds(model) {
			openaiError(w, http.StatusBadRequest, "BadRequestError", "", "The model does not support Embeddings API")
			return
		}
	} else if refused := s.llamaEmbedRefusal(texts); refused != nil {
		writeJSON(w, refused.status, map[string]any{"error": map[string]any{"code": refused.status, "message": refused.msg, "type": refused.typ}})
		return
	} else {
		model = s.alias()
	}
	if s.beginEmbed(len(texts)) {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"code": 500, "message": "fakellm: simulated embedding failure", "type": "server_error"}})
		return
	}
	vecs, tokens := s.vectors(texts)
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

type refusal struct {
	status   int
	msg, typ string
}

// llamaEmbedRefusal is llama-server's refusal of an embedding request, nil
// when it embeds.
func (s *Server) llamaEmbedRefusal(texts []string) *refusal {
	switch {
	case !s.embeds(s.alias()):
		return &refusal{http.StatusNotImplemented, "This server does not support embeddings. Start it with `--embeddings`", "not_supported_error"}
	case s.cfg.poolingNone:
		return &refusal{http.StatusBadRequest, "Pooling type 'none' is not OAI compatible. Please use a different pooling type", "invalid_request_error"}
	}
	if s.cfg.embedBatch > 0 {
		for _, t := range texts {
			if (len([]rune(t))+3)/4 > s.cfg.embedBatch {
				return &refusal{http.StatusInternalServerError, "input is too large to process. increase the physical batch size", "server_error"}
			}
		}
	}
	return nil
}
