package fakellm

import (
	"fmt"
	"net/http"
)

// Ollama's handling of a prompt longer than the context it runs a request
// with, as 0.34.4 does it. By default it cuts the prompt instead of
// refusing it: it keeps the first num_keep (4) tokens and the tail, so
// that the prompt takes numCtx − (numCtx − 4)/2 tokens (1,026 of a 2,048
// context; it logged `truncating input prompt limit=1026 prompt=3201
// keep=4`), and answers normally with that count as prompt_eval_count:
// the instructions at the start of the prompt are lost while the reply
// looks normal. A native request that sends "truncate": false gets its
// model runner's refusal instead, passed on as HTTP 400 {"error": "<the
// runner's JSON>"}. Ollama's /v1 cannot send "truncate" and always cuts.

// OllamaKeep is the number of head tokens Ollama keeps when it cuts a
// prompt (its runner's num_keep as logged: keep=4).
const OllamaKeep = 4

// OllamaCutKept is the count Ollama keeps of a prompt it cuts to fit a
// context of numCtx tokens: numCtx − (numCtx − OllamaKeep)/2.
func OllamaCutKept(numCtx int) int { return numCtx - max((numCtx-OllamaKeep)/2, 1) }

// TruncateLikeOllama makes the Ollama endpoints treat a prompt of at least
// the context as Ollama does: on /api/chat at the num_ctx the request sent
// (OllamaDefaultNumCtx without one), on Ollama's /v1/chat/completions
// (AsOllama), where num_ctx cannot be sent, at the runner default
// OllamaDefaultNumCtx (a /v1 request reloads a runner loaded with another
// context). The prompt is cut to OllamaCutKept tokens — the model sees the
// first OllamaKeep tokens and the tail; prompt_eval_count /
// usage.prompt_tokens report the kept count — unless a native request
// sends "truncate": false: then it answers 400 with the runner's
// exceed_context_size_error. GET /api/ps lists the model with the context
// its runner was started with.
func TruncateLikeOllama() Option { return func(c *config) { c.truncate = true } }

// IgnoreTruncate makes TruncateLikeOllama cut even a native request that
// sends "truncate": false, as Ollama versions before that field did.
func IgnoreTruncate() Option { return func(c *config) { c.ignoreTruncate = true } }

// TokenRatio makes the Ollama endpoints (and llama.cpp's /tokenize) count
// a prompt's tokens as q times their count (ApproxTokens, or ScriptTokens
// with CountByScript), as a tokenizer denser than that does.
func TokenRatio(q float64) Option { return func(c *config) { c.tokenRatio = q } }

// ollamaTokens counts a templated prompt's tokens on the Ollama endpoints.
func (s *Server) ollamaTokens(templated string) int {
	n := s.countTokens(templated)
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
// has tokens tokens, for a runner context of limit: at or over it, the
// call's Prompt becomes what the model sees and the kept count is
// returned — or, when refuse (a native request's "truncate": false, unless
// IgnoreTruncate), refused is true and nothing is cut.
func (s *Server) ollamaCut(call *Call, tokens, limit int, refuse bool) (n int, refused bool) {
	if !s.cfg.truncate {
		return tokens, false
	}
	if limit <= 0 {
		limit = OllamaDefaultNumCtx
	}
	s.noteRunner(call.Model, limit)
	if tokens < limit {
		return tokens, false
	}
	if refuse && !s.cfg.ignoreTruncate {
		return tokens, true
	}
	kept := OllamaCutKept(limit)
	call.cut = &promptCut{received: call.Prompt, tokens: tokens, kept: kept}
	call.Prompt = keepHeadTail(call.Prompt, float64(OllamaKeep)/float64(tokens), float64(kept-OllamaKeep)/float64(tokens))
	s.cfg.logf("fakellm: truncating input prompt limit=%d prompt=%d keep=%d", kept, tokens, OllamaKeep)
	return kept, false
}

// ollamaRefusal writes what Ollama answers a native request that sent
// "truncate": false for a prompt of tokens tokens over a context of limit:
// its runner's (llama-server's) error, passed on whole as Ollama's message.
func ollamaRefusal(w http.ResponseWriter, tokens, limit int) {
	body := llamaErrorBody(http.StatusBadRequest,
		fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", tokens, limit))
	body["type"] = "exceed_context_size_error"
	body["n_prompt_tokens"] = tokens
	body["n_ctx"] = limit
	ollamaError(w, http.StatusBadRequest, string(mustJSON(map[string]any{"error": body})))
}

// keepHeadTail keeps the given shares of s's runes from its start and
// from its end (at least one rune of the start).
func keepHeadTail(s string, head, tail float64) string {
	r := []rune(s)
	h, t := max(int(head*float64(len(r))+0.5), 1), int(tail*float64(len(r))+0.5)
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
