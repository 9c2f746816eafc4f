package fakellm

import (
	"encoding/json"
	"net"
	"net/http"
)

// Behaviours seen on real servers (a llama-server built from source, Ollama
// 0.34.4 serving a tiny random-weight model), each opt-in.

// SamplerRefusal makes the server refuse a generation that carries a JSON
// schema with properties — llama.cpp's json_schema on /completion,
// response_format json_schema on the chat endpoints, Ollama's format —
// with llama-server's HTTP 400 {"error": {"code": 400, "message": "Failed
// to initialize samplers: std::exception", "type":
// "invalid_request_error"}} (Ollama: {"error": "…"}), as the real server
// did when it could not build the schema's grammar. A plain JSON object
// (response_format json_object, json_schema {"type": "object"}, Ollama's
// format "json") is accepted.
func SamplerRefusal() Option { return func(c *config) { c.samplerRefusal = true } }

// SamplerRefusalMessage is what SamplerRefusal answers.
const SamplerRefusalMessage = "Failed to initialize samplers: std::exception"

// AsOllama makes the server Ollama and nothing else: its native API, and
// its OpenAI-compatible /v1 (GET /v1/models lists each model with its tag,
// "name:latest", and POST /v1/chat/completions takes a name without a tag
// as ":latest"); llama.cpp's endpoints (/health, /props, /completion,
// /apply-template) answer 404, as on a real Ollama.
func AsOllama() Option { return func(c *config) { c.ollamaOnly = true } }

// KillAfter makes the server die after streaming n chunks of a
// generation, as a killed process does: it stops listening and every open
// connection is reset (the client reads "connection reset by peer"), and
// nothing answers at its address afterwards.
func KillAfter(n int) Option { return func(c *config) { c.killAfter = n } }

// Kill stops the server as a killed process stops: the listener is closed
// and every open connection reset, not closed in order.
func (s *Server) Kill() {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	for _, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
	s.Close()
}

// trackConn keeps the set of open connections for Kill.
func (s *Server) trackConn(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch state {
	case http.StateNew:
		s.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
	}
}

// refusesSchema reports whether SamplerRefusal refuses this schema: one
// that names properties (the judge's), not a bare object or "json".
func (s *Server) refusesSchema(schema json.RawMessage) bool {
	if !s.cfg.samplerRefusal || len(schema) == 0 {
		return false
	}
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return false
	}
	_, has := m["properties"]
	return has
}

// refuseSamplers writes SamplerRefusal's answer in the server's shape.
func refuseSamplers(w http.ResponseWriter, ollama bool) {
	if ollama {
		ollamaError(w, http.StatusBadRequest, SamplerRefusalMessage)
		return
	}
	llamaError(w, http.StatusBadRequest, SamplerRefusalMessage)
}

// llamaAuth wraps a llama.cpp endpoint with RequireAPIKey as llama-server
// --api-key does: 401 {"error": {"code": 401, "message": "Invalid API
// Key", "type": "authentication_error"}} without the right bearer token.
// /health and the model list stay public, as there.
func (s *Server) llamaAuth(h func(http.ResponseWriter, *http.Request, int)) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, idx int) {
		if s.cfg.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.apiKey {
			llamaError(w, http.StatusUnauthorized, "Invalid API Key")
			return
		}
		h(w, r, idx)
	}
}

// ollamaRoutes serves Ollama alone (AsOllama).
func (s *Server) ollamaRoutes(handle func(pattern, path string, h func(http.ResponseWriter, *http.Request, int))) {
	handle("POST /api/chat", "/api/chat", s.ollamaChat)
	handle("POST /api/show", "/api/show", s.ollamaShow)
	handle("GET /api/tags", "/api/tags", s.ollamaTags)
	handle("GET /api/version", "/api/version", s.ollamaVersion)
	handle("GET /api/ps", "/api/ps", s.ollamaPS)
	handle("POST /api/embed", "/api/embed", s.ollamaEmbed)
	handle("GET /{$}", "/", s.ollamaRoot)
	handle("GET /v1/models", "/v1/models", s.ollamaV1Models)
	handle("POST /v1/chat/completions", "/v1/chat/completions", s.openaiChat)
}

// ollamaV1Models answers Ollama's GET /v1/models: every model by its
// canonical name, tag included.
func (s *Server) ollamaV1Models(w http.ResponseWriter, _ *http.Request, _ int) {
	data := make([]map[string]any, 0, len(s.cfg.models))
	for _, m := range s.cfg.models {
		data = append(data, map[string]any{"id": ollamaCanonical(m), "object": "model", "created": 1735689600, "owned_by": "library"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// servedAs is the configured model a chat request's name selects: exact
// on an OpenAI-compatible server, with Ollama's implied ":latest" on
// Ollama.
func (s *Server) servedAs(name string) bool {
	if s.cfg.ollamaOnly {
		_, ok := s.knownModel(name)
		return ok
	}
	return s.servesModel(name)
}

// modelMissing writes the 404 of a chat request for a model not served.
func (s *Server) modelMissing(w http.ResponseWriter, model string) {
	if s.cfg.ollamaOnly {
		openaiError(w, http.StatusNotFound, "api_error", "", "model \""+model+"\" not found, try pulling it first")
		return
	}
	openaiError(w, http.StatusNotFound, "NotFoundError", "model", "The model `"+model+"` does not exist.")
}

// runaway fills a reply that never stops on its own up to limit pieces.
func runaway(pieces []string, limit int) []string {
	if len(pieces) == 0 {
		pieces = []string{"word "}
	}
	out := make([]string, limit)
	for i := range out {
		out[i] = pieces[i%len(pieces)]
	}
	return out
}
