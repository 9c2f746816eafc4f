package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// An OpenAI-compatible server as vLLM (v0.6–0.10) answers: GET /v1/models
// with every model and its max_model_len, POST /v1/chat/completions
// streaming (SSE "data:" chunks, a final chunk with finish_reason, a usage
// chunk when stream_options.include_usage, "data: [DONE]") and not, usage
// with prompt_tokens_details.cached_tokens (automatic prefix caching), and
// errors as {"error": {"message","type","param","code"}}. llama-server's
// own endpoints (/props, /completion, /apply-template, /health) answer 404
// in this mode, as they do on vLLM.

// OpenAI makes the server an OpenAI-compatible one (vLLM's shapes) instead
// of llama-server on the /v1 paths. The first model of Models is the
// default one when a request names none.
func OpenAI() Option { return func(c *config) { c.openai = true } }

// RefuseJSONSchema makes an OpenAI-mode server answer HTTP 400 to
// response_format {"type": "json_schema"}, as servers whose chat template
// or grammar backend cannot take a schema do; {"type": "json_object"} is
// still accepted (the reply is then not constrained at all).
func RefuseJSONSchema() Option { return func(c *config) { c.refuseSchema = true } }

// RefuseResponseFormat makes an OpenAI-mode server answer HTTP 400 to any
// response_format.
func RefuseResponseFormat() Option { return func(c *config) { c.refuseFormat = true } }

// RequireAPIKey makes an OpenAI-mode server answer 401 {"error":
// "Unauthorized"} to every /v1 request without "Authorization: Bearer key",
// as `vllm serve --api-key key` does; llama.cpp's endpoints answer 401
// "Invalid API Key" as `llama-server --api-key key` does (but /health and
// the model list, which it leaves public).
func RequireAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

func (s *Server) openaiRoutes(handle func(pattern, path string, h func(http.ResponseWriter, *http.Request, int))) {
	handle("GET /v1/models", "/v1/models", s.auth(s.openaiModels))
	handle("POST /v1/chat/completions", "/v1/chat/completions", s.auth(s.openaiChat))
	handle("POST /v1/embeddings", "/v1/embeddings", s.auth(s.v1Embeddings))
	handle("GET /health", "/health", func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(http.StatusOK) })
}

// auth wraps a handler with the API-key requirement.
func (s *Server) auth(h func(http.ResponseWriter, *http.Request, int)) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, idx int) {
		if s.cfg.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.apiKey {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		h(w, r, idx)
	}
}

func openaiError(w http.ResponseWriter, status int, typ, param, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": status}})
}

func openaiErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusTooManyRequests:
		return "RateLimitError"
	}
	return "InternalServerError"
}

func (s *Server) openaiModels(w http.ResponseWriter, _ *http.Request, _ int) {
	data := make([]map[string]any, 0, len(s.cfg.models))
	for _, m := range s.cfg.models {
		data = append(data, map[string]any{
			"id": m, "object": "model", "created": 1735689600, "owned_by": "vllm",
			"root": "/models/" + m, "parent": nil, "max_model_len": s.cfg.contextLength, "permission": []any{},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) servesModel(name string) bool {
	for _, m := range s.cfg.models {
		if m == name {
			return true
		}
	}
	return false
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request, idx int) {
	raw := s.requestBody(idx)
	var body map[string]any
	var msgs struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		openaiError(w, http.StatusBadRequest, "BadRequestError", "", err.Error())
		return
	}
	if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs.Messages) == 0 {
		openaiError(w, http.StatusBadRequest, "BadRequestError", "messages", "messages must be a non-empty list")
		return
	}
	model, _ := body["model"].(string)
	if model == "" {
		model = s.cfg.models[0]
	}
	if !s.servedAs(model) {
		s.modelMissing(w, model)
		return
	}
	if s.refusesSchema(chatSchema(body)) {
		s.recordCall(idx, Call{Endpoint: "/v1/chat/completions", Model: model, Prompt: promptOf(msgs.Messages), Schema: chatSchema(body), Slot: -1}, false)
		refuseSamplers(w, false)
		return
	}
	if rf, ok := body["response_format"].(map[string]any); ok {
		if s.cfg.refuseFormat || s.cfg.refuseSchema && rf["type"] == "json_schema" {
			openaiError(w, http.StatusBadRequest, "BadRequestError", "response_format",
				fmt.Sprintf("response_format type %v is not supported with this model's chat template", rf["type"]))
			return
		}
	}
	stream, _ := body["stream"].(bool)
	templated := chatTemplate(msgs.Messages)
	call := Call{
		Endpoint: "/v1/chat/completions",
		Model:    model,
		Prompt:   promptOf(msgs.Messages),
		Stop:     stringList(body["stop"]),
		Schema:   chatSchema(body),
		Options:  llamaOptions(body),
		Slot:     -1,
	}
	promptTokens := s.countTokens(templated)
	if s.cfg.ollamaOnly {
		// Ollama's /v1 takes no num_ctx nor "truncate": the runner is
		// (re)loaded at its default context, and cuts.
		promptTokens, _ = s.ollamaCut(&call, s.ollamaTokens(templated), OllamaDefaultNumCtx, false)
	}
	call, reply := s.beginCall(idx, call, stream)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		openaiError(w, reply.Status, openaiErrorType(reply.Status), "", reply.Error)
		return
	}
	maxTokens := intValue(body["max_tokens"], intValue(body["max_completion_tokens"], -1))
	g := s.prepare(reply, call.Stop, maxTokens)
	g.promptTokens = promptTokens
	g.cachedTokens = s.ollamaCacheLookup("openai\x00"+model, templated, g.promptTokens)
	if !s.openaiContextCheck(w, &g, maxTokens) {
		return
	}
	if !s.waitFirst(r.Context()) {
		return
	}
	s.openaiAnswer(w, r, call, body, g, templated, stream)
}

// openaiContextCheck applies EnforceContext as vLLM does: the prompt plus
// max_tokens must fit max_model_len (the whole ContextLength), else 400;
// without max_tokens the output gets what is left.
func (s *Server) openaiContextCheck(w http.ResponseWriter, g *generation, maxTokens int) bool {
	if !s.cfg.enforceContext {
		return true
	}
	n := s.cfg.contextLength
	if maxTokens < 0 {
		maxTokens = 0
	}
	if g.promptTokens+maxTokens > n {
		openaiError(w, http.StatusBadRequest, "BadRequestError", "", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			n, g.promptTokens+maxTokens, g.promptTokens, maxTokens))
		return false
	}
	g.fitRoom(n - g.promptTokens)
	return true
}

func (s *Server) openaiAnswer(w http.ResponseWriter, r *http.Request, call Call, body map[string]any, g generation, templated string, stream bool) {
	id := fmt.Sprintf("chatcmpl-fake%d", call.Index)
	created := time.Now().Unix()
	finish := "stop"
	if g.limited {
		finish = "length"
	}
	usage := map[string]any{
		"prompt_tokens": g.promptTokens, "completion_tokens": len(g.pieces),
		"total_tokens":          g.promptTokens + len(g.pieces),
		"prompt_tokens_details": map[string]int{"cached_tokens": g.cachedTokens},
	}
	cacheKey := "openai\x00" + call.Model
	if !stream {
		if !sleep(r.Context(), g.delay*time.Duration(len(g.pieces))) {
			return
		}
		if g.inbandError != "" {
			openaiError(w, http.StatusInternalServerError, "InternalServerError", "", g.inbandError)
			return
		}
		s.ollamaCacheStore(cacheKey, templated, g.text)
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": call.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": finish, "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": g.text, "tool_calls": []any{}}}},
			"usage": usage,
		})
		return
	}
	withUsage := false
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] == true {
		withUsage = true
	}
	chunk := func(delta map[string]any, finishReason any) map[string]any {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": call.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finishReason}},
		}
		if withUsage {
			c["usage"] = nil
		}
		return c
	}
	sseHeaders(w)
	writeSSE(w, "data", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	ok := streamPieces(w, r, g, func(piece string, _ int) {
		writeSSE(w, "data", chunk(map[string]any{"content": piece}, nil))
	})
	if !ok {
		return
	}
	if g.inbandError != "" {
		writeSSE(w, "data", map[string]any{"error": map[string]any{
			"message": g.inbandError, "type": "InternalServerError", "param": nil, "code": 500}})
		_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	s.ollamaCacheStore(cacheKey, templated, g.text)
	writeSSE(w, "data", chunk(map[string]any{"content": ""}, finish))
	if withUsage {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = usage
		writeSSE(w, "data", u)
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
}
