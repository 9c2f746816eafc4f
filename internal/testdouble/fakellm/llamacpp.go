package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// llama.cpp's llama-server wire shapes (tools/server README and sources).

func llamaErrorBody(status int, msg string) map[string]any {
	typ := "server_error"
	switch status {
	case http.StatusBadRequest:
		typ = "invalid_request_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusServiceUnavailable:
		typ = "unavailable_error"
	case http.StatusUnauthorized:
		typ = "authentication_error"
	}
	return map[string]any{"code": status, "message": msg, "type": typ}
}

func llamaError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": llamaErrorBody(status, msg)})
}

func (s *Server) alias() string { return s.cfg.models[0] }

func (s *Server) modelPath() string { return "/models/" + s.alias() + ".gguf" }

func (s *Server) llamaHealth(w http.ResponseWriter, _ *http.Request, _ int) {
	if s.isLoading() {
		llamaError(w, http.StatusServiceUnavailable, "Loading model")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) llamaProps(w http.ResponseWriter, _ *http.Request, _ int) {
	if s.isLoading() {
		llamaError(w, http.StatusServiceUnavailable, "Loading model")
		return
	}
	settings := map[string]any{
		"id": 0, "id_task": -1, "n_ctx": s.slotContext(),
		"is_processing": false,
		"params":        map[string]any{"n_predict": -1, "temperature": 0.8, "top_p": 0.95, "stop": []string{}},
	}
	props := map[string]any{
		"default_generation_settings": settings,
		"total_slots":                 s.cfg.slots,
		"model_alias":                 s.alias(),
		"model_path":                  s.modelPath(),
		"chat_template":               "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n",
		"modalities":                  map[string]bool{"vision": false, "audio": false},
		"build_info":                  "b0000-fakellm",
	}
	if s.cfg.legacyProps {
		delete(settings, "n_ctx")
		props["n_ctx"] = s.slotContext()
	}
	writeJSON(w, http.StatusOK, props)
}

func (s *Server) llamaModels(w http.ResponseWriter, _ *http.Request, _ int) {
	meta := map[string]any{"n_ctx_train": s.cfg.contextLength, "n_params": 1 << 30}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.alias(), "object": "model", "created": 1735689600, "owned_by": "llamacpp", "meta": meta,
		}},
		"models": []map[string]any{{"name": s.alias(), "model": s.alias(), "capabilities": []string{"completion"}}},
	})
}

func (s *Server) llamaApplyTemplate(w http.ResponseWriter, r *http.Request, _ int) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		llamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.Messages) == 0 {
		llamaError(w, http.StatusBadRequest, "'messages' is required")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": chatTemplate(req.Messages)})
}

// llamaTokenize answers POST /tokenize as llama-server does: the content's
// token ids (here one per token as the server counts them, times
// TokenRatio).
func (s *Server) llamaTokenize(w http.ResponseWriter, r *http.Request, _ int) {
	var req struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		llamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	n := s.countTokens(req.Content)
	if s.cfg.tokenRatio > 0 {
		n = int(float64(n) * s.cfg.tokenRatio)
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 1000 + i%30000
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": ids})
}

// slotFor picks the slot for a request: the one asked for, or with -1 the
// slot whose cache shares the longest prefix with the prompt (least
// recently used on a tie), as llama-server does. ok is false for a slot
// that does not exist.
func (s *Server) slotFor(requested int, prompt string) (slot, prefix int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if requested >= len(s.slots) || requested < -1 || len(s.slots) == 0 {
		return requested, 0, false
	}
	if requested >= 0 {
		return requested, commonPrefixTokens(s.slots[requested].cached, prompt), true
	}
	best, bestPrefix := 0, -1
	for i, st := range s.slots {
		p := commonPrefixTokens(st.cached, prompt)
		if p > bestPrefix || p == bestPrefix && st.lastUsed < s.slots[best].lastUsed {
			best, bestPrefix = i, p
		}
	}
	return best, bestPrefix, true
}

func (s *Server) slotStore(slot int, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slot >= 0 && slot < len(s.slots) {
		s.slots[slot] = slotState{cached: content, lastUsed: s.calls}
	}
}

// badSlot answers a request for a slot that does not exist.
// admitLlama does what both llama.cpp generation endpoints do before
// generating: honour a "model" field, check the slot for slotPrompt, record
// the call and answer a scripted HTTP error. ok is false when the answer
// has been written already.
func (s *Server) admitLlama(w http.ResponseWriter, r *http.Request, idx int, call Call, body map[string]any, stream bool, slotPrompt string) (Call, Reply, int, int, bool) {
	if m, _ := body["model"].(string); m != "" {
		call.Model = m
	}
	if s.refusesSchema(call.Schema) {
		s.recordCall(idx, call, stream)
		refuseSamplers(w, false)
		return call, Reply{}, 0, 0, false
	}
	slot, prefix, ok := s.slotFor(call.Slot, slotPrompt)
	if !ok {
		s.recordCall(idx, call, stream)
		s.badSlot(w, r)
		return call, Reply{}, 0, 0, false
	}
	call, reply := s.beginCall(idx, call, stream)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		llamaError(w, reply.Status, reply.Error)
		return call, reply, 0, 0, false
	}
	return call, reply, slot, prefix, true
}

func (s *Server) badSlot(w http.ResponseWriter, r *http.Request) {
	if s.cfg.hangBadSlot {
		<-r.Context().Done()
		return
	}
	llamaError(w, http.StatusBadRequest, "Invalid slot ID")
}

// llamaOptions is every body field but the prompt text.
func llamaOptions(body map[string]any) map[string]any {
	opts := make(map[string]any, len(body))
	for k, v := range body {
		if k != "prompt" && k != "messages" {
			opts[k] = v
		}
	}
	return opts
}

func rawField(body map[string]any, key string) json.RawMessage {
	v, ok := body[key]
	if !ok || v == nil {
		return nil
	}
	return mustJSON(v)
}

type llamaTimings struct {
	CacheN              int     `json:"cache_n"`
	PromptN             int     `json:"prompt_n"`
	PromptMS            float64 `json:"prompt_ms"`
	PromptPerTokenMS    float64 `json:"prompt_per_token_ms"`
	PromptPerSecond     float64 `json:"prompt_per_second"`
	PredictedN          int     `json:"predicted_n"`
	PredictedMS         float64 `json:"predicted_ms"`
	PredictedPerTokenMS float64 `json:"predicted_per_token_ms"`
	PredictedPerSecond  float64 `json:"predicted_per_second"`
}

func timingsOf(g generation) llamaTimings {
	promptN := g.promptTokens - g.cachedTokens
	predMS := float64(len(g.pieces)) * (float64(g.delay)/float64(time.Millisecond) + 1)
	t := llamaTimings{CacheN: g.cachedTokens, PromptN: promptN, PromptMS: float64(promptN) * 0.1,
		PredictedN: len(g.pieces), PredictedMS: predMS}
	if promptN > 0 {
		t.PromptPerTokenMS, t.PromptPerSecond = 0.1, 10000
	}
	if len(g.pieces) > 0 {
		t.PredictedPerTokenMS = predMS / float64(len(g.pieces))
		t.PredictedPerSecond = 1000 / t.PredictedPerTokenMS
	}
	return t
}

func stopType(g generation) string {
	switch {
	case g.limited:
		return "limit"
	case g.stopWord != "":
		return "word"
	}
	return "eos"
}

func (s *Server) llamaCompletion(w http.ResponseWriter, r *http.Request, idx int) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		llamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.isLoading() {
		llamaError(w, http.StatusServiceUnavailable, "Loading model")
		return
	}
	prompt, ok := body["prompt"].(string)
	if !ok {
		llamaError(w, http.StatusBadRequest, `"prompt" must be a string`)
		return
	}
	stream, _ := body["stream"].(bool)
	requested := intValue(body["id_slot"], -1)
	call := Call{
		Endpoint: "/completion",
		Model:    s.alias(),
		Prompt:   prompt,
		Stop:     stringList(body["stop"]),
		Schema:   rawField(body, "json_schema"),
		Options:  llamaOptions(body),
		Slot:     requested,
	}
	call, reply, slot, prefix, ok := s.admitLlama(w, r, idx, call, body, stream, prompt)
	if !ok {
		return
	}
	g := s.prepare(reply, call.Stop, intValue(body["n_predict"], -1))
	g.promptTokens = s.countTokens(prompt)
	if cp, set := body["cache_prompt"].(bool); !set || cp {
		g.cachedTokens = cacheHit(prefix, g.promptTokens)
	}
	if !s.llamaContextCheck(w, &g) {
		return
	}
	headersSent := s.earlyHeaders(w, stream)
	if !s.waitFirst(r.Context()) {
		return
	}
	final := map[string]any{
		"index": 0, "content": "", "tokens": []int{}, "id_slot": slot, "stop": true,
		"model": s.alias(), "tokens_predicted": len(g.pieces), "tokens_evaluated": g.promptTokens,
		"generation_settings": map[string]any{"n_predict": intValue(body["n_predict"], -1), "stop": call.Stop},
		"prompt":              prompt, "has_new_line": strings.Contains(g.text, "\n"), "truncated": false,
		"stop_type": stopType(g), "stopping_word": g.stopWord,
		"tokens_cached": g.promptTokens + len(g.pieces), "timings": timingsOf(g),
	}
	if !stream {
		if !sleep(r.Context(), g.delay*time.Duration(len(g.pieces))) {
			return
		}
		if g.inbandError != "" {
			llamaError(w, http.StatusInternalServerError, g.inbandError)
			return
		}
		final["content"] = g.text
		s.slotStore(slot, prompt+g.text)
		writeJSON(w, http.StatusOK, final)
		return
	}
	if !headersSent {
		sseHeaders(w)
	}
	ok = streamPieces(w, r, g, func(piece string, i int) {
		writeSSE(w, "data", map[string]any{
			"index": 0, "content": piece, "tokens": []int{i + 1}, "stop": false, "id_slot": -1,
			"tokens_predicted": i + 1, "tokens_evaluated": g.promptTokens,
		})
	})
	if !ok {
		return
	}
	if g.inbandError != "" {
		writeSSE(w, "error", llamaErrorBody(http.StatusInternalServerError, g.inbandError))
		return
	}
	s.slotStore(slot, prompt+g.text)
	writeSSE(w, "data", final)
}

// earlyHeaders sends a stream's headers before the first event when the
// EarlyHeaders option asks for it.
func (s *Server) earlyHeaders(w http.ResponseWriter, stream bool) bool {
	if !stream || !s.cfg.earlyHeaders {
		return false
	}
	sseHeaders(w)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// writeSSE writes one event the way llama-server does: "data: {...}\n\n",
// or "error: {...}\n\n" for an error inside a stream.
func writeSSE(w http.ResponseWriter, field string, v any) {
	_, _ = fmt.Fprintf(w, "%s: %s\n\n", field, mustJSON(v))
}

// chatSchema finds the schema of an OpenAI-style request: response_format
// {"type":"json_schema","json_schema":{"schema":…}}, {"type":"json_object",
// "schema":…}, or llama.cpp's top-level json_schema.
func chatSchema(body map[string]any) json.RawMessage {
	if rf, ok := body["response_format"].(map[string]any); ok {
		switch rf["type"] {
		case "json_schema":
			if js, ok := rf["json_schema"].(map[string]any); ok && js["schema"] != nil {
				return mustJSON(js["schema"])
			}
			return json.RawMessage(`{}`)
		case "json_object":
			if rf["schema"] != nil {
				return mustJSON(rf["schema"])
			}
			return json.RawMessage(`{}`)
		}
	}
	return rawField(body, "json_schema")
}

func (s *Server) llamaChat(w http.ResponseWriter, r *http.Request, idx int) {
	raw := s.requestBody(idx)
	var body map[string]any
	var msgs struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		llamaError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs.Messages) == 0 {
		llamaError(w, http.StatusBadRequest, "'messages' is required and must be a non-empty array")
		return
	}
	if s.isLoading() {
		llamaError(w, http.StatusServiceUnavailable, "Loading model")
		return
	}
	stream, _ := body["stream"].(bool)
	templated := chatTemplate(msgs.Messages)
	requested := intValue(body["id_slot"], -1)
	call := Call{
		Endpoint: "/v1/chat/completions",
		Model:    s.alias(),
		Prompt:   promptOf(msgs.Messages),
		Stop:     stringList(body["stop"]),
		Schema:   chatSchema(body),
		Options:  llamaOptions(body),
		Slot:     requested,
	}
	call, reply, slot, prefix, ok := s.admitLlama(w, r, idx, call, body, stream, templated)
	if !ok {
		return
	}
	limit := intValue(body["max_tokens"], intValue(body["n_predict"], -1))
	g := s.prepare(reply, call.Stop, limit)
	g.promptTokens = s.countTokens(templated)
	if cp, set := body["cache_prompt"].(bool); !set || cp {
		g.cachedTokens = cacheHit(prefix, g.promptTokens)
	}
	if !s.llamaContextCheck(w, &g) {
		return
	}
	headersSent := s.earlyHeaders(w, stream)
	if !s.waitFirst(r.Context()) {
		return
	}
	id := fmt.Sprintf("chatcmpl-fake%d", call.Index)
	created := time.Now().Unix()
	finish := "stop"
	if g.limited {
		finish = "length"
	}
	usage := map[string]any{
		"completion_tokens": len(g.pieces), "prompt_tokens": g.promptTokens,
		"total_tokens":          g.promptTokens + len(g.pieces),
		"prompt_tokens_details": map[string]int{"cached_tokens": g.cachedTokens},
	}
	chunk := func(delta map[string]any, finishReason any) map[string]any {
		return map[string]any{
			"choices": []map[string]any{{"finish_reason": finishReason, "index": 0, "delta": delta}},
			"created": created, "id": id, "model": call.Model, "system_fingerprint": "b0000-fakellm",
			"object": "chat.completion.chunk",
		}
	}
	if !stream {
		if !sleep(r.Context(), g.delay*time.Duration(len(g.pieces))) {
			return
		}
		if g.inbandError != "" {
			llamaError(w, http.StatusInternalServerError, g.inbandError)
			return
		}
		s.slotStore(slot, templated+g.text)
		writeJSON(w, http.StatusOK, map[string]any{
			"choices": []map[string]any{{"finish_reason": finish, "index": 0,
				"message": map[string]any{"role": "assistant", "content": g.text}}},
			"created": created, "id": id, "model": call.Model, "object": "chat.completion",
			"usage": usage, "timings": timingsOf(g),
		})
		return
	}
	if !headersSent {
		sseHeaders(w)
	}
	writeSSE(w, "data", chunk(map[string]any{"role": "assistant", "content": nil}, nil))
	ok = streamPieces(w, r, g, func(piece string, _ int) {
		writeSSE(w, "data", chunk(map[string]any{"content": piece}, nil))
	})
	if !ok {
		return
	}
	if g.inbandError != "" {
		writeSSE(w, "error", llamaErrorBody(http.StatusInternalServerError, g.inbandError))
		return
	}
	s.slotStore(slot, templated+g.text)
	last := chunk(map[string]any{}, finish)
	last["timings"] = timingsOf(g)
	writeSSE(w, "data", last)
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] == true {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = usage
		writeSSE(w, "data", u)
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
}

func (s *Server) requestBody(idx int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records[idx].Body
}
