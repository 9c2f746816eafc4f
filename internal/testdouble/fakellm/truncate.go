package fakellm

import (
	"net/http"
)

// Ollama cuts a prompt longer than the context it runs a request with
// instead of refusing it: Ollama 0.34.4 logged `truncating input prompt
// limit=8194 prompt=18733 keep=4` and answered prompt_eval_count 8194. It
// keeps the first few tokens of the head and the tail, so the instructions
// at the start of a prompt are lost while the reply looks normal.

// OllamaKeep is the number of head tokens Ollama keeps when it cuts a
// prompt (its runner's num_keep as logged: keep=4).
const OllamaKeep = 4

// TruncateLikeOllama makes the Ollama endpoints cut an over-long prompt as
// Ollama does: on /api/chat at the num_ctx the request sent
// (OllamaDefaultNumCtx without one), on Ollama's /v1/chat/completions
// (AsOllama), where num_ctx cannot be sent, at the runner default
// OllamaDefaultNumCtx. The model sees the first OllamaKeep tokens and the
// tail; prompt_eval_count / usage.prompt_tokens report the kept count. GET
// /api/ps then lists the model with the context its runner was started
// with.
func TruncateLikeOllama() Option { return func(c *config) { c.truncate = true } }

// TokenRatio makes the Ollama endpoints (and llama.cpp's /tokenize) count
// a prompt's tokens as q times ApproxTokens, as a real tokenizer denser than four runes a token does
// (the clients' own estimate is runes/4).
func TokenRatio(q float64) Option { return func(c *config) { c.tokenRatio = q } }

// ollamaTokens counts a templated prompt's tokens on the Ollama endpoints.
func (s *Server) ollamaTokens(templated string) int {
	n := max(1, ApproxTokens(templated))
	if s.cfg.tokenRatio > 0 {
		n = max(1, int(float64(n)*s.cfg.tokenRatio))
	}
	return n
}

// promptCut is what the server did to an over-long prompt.
type promptCut struct {
	received string // the prompt as sent
	tokens   int    // its tokens
	kept     int    // the tokens kept
}

// noteRunner records that model's runner runs with numCtx (GET /api/ps).
func (s *Server) noteRunner(model string, numCtx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runnerCtx == nil {
		s.runnerCtx = map[string]int{}
	}
	s.runnerCtx[ollamaCanonical(model)] = numCtx
}

// ollamaCut applies TruncateLikeOllama to a call whose templated prompt
// has tokens tokens, for a runner context of limit: over it, the call's
// Prompt becomes what the model sees and the kept count is returned.
func (s *Server) ollamaCut(call *Call, tokens, limit int) int {
	if !s.cfg.truncate {
		return tokens
	}
	if limit <= 0 {
		limit = OllamaDefaultNumCtx
	}
	s.noteRunner(call.Model, limit)
	if tokens <= limit {
		return tokens
	}
	call.cut = &promptCut{received: call.Prompt, tokens: tokens, kept: limit}
	ratio := max(s.cfg.tokenRatio, 1)
	call.Prompt = keepHeadTail(call.Prompt, OllamaKeep, int(float64(limit-OllamaKeep)/ratio))
	s.cfg.logf("fakellm: truncating input prompt limit=%d prompt=%d keep=%d", limit, tokens, OllamaKeep)
	return limit
}

// keepHeadTail keeps head tokens of the start of s and tail tokens of its
// end (a token being about four runes, as ApproxTokens counts).
func keepHeadTail(s string, head, tail int) string {
	r := []rune(s)
	h, t := head*4, tail*4
	if h+t >= len(r) {
		return s
	}
	return string(r[:h]) + string(r[len(r)-t:])
}

// ollamaPS answers GET /api/ps: the models with a runner, each with the
// context it runs with (context_length, as Ollama 0.11 and later report).
func (s *Server) ollamaPS(w http.ResponseWriter, _ *http.Request, _ int) {
	s.mu.Lock()
	models := []map[string]any{}
	for name, n := range s.runnerCtx {
		models = append(models, map[string]any{
			"name": name, "model": name, "size": 1 << 30, "digest": ModelDigest(name),
			"details": ollamaDetails(), "expires_at": "2099-01-01T00:00:00Z", "size_vram": 1 << 30,
			"context_length": n,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}
