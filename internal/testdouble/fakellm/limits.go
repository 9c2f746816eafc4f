package fakellm

import (
	"fmt"
	"net/http"
	"strings"
)

// Context behaviours of real servers, each opt-in so that a test asks for
// exactly the one it is about.

// ContextLength sets the server's whole context (llama-server's -c,
// default 32768). A llama.cpp slot gets ContextLength / Slots, as /props
// reports it.
func ContextLength(n int) Option { return func(c *config) { c.contextLength = n } }

// EnforceContext makes llama.cpp behave as llama-server does at its slot's
// context size: a prompt longer than the slot's context is refused with
// HTTP 400 exceed_context_size_error (with n_prompt_tokens and n_ctx), and
// a generation that fills the slot stops with stop_type "limit"
// (finish_reason "length" on the chat endpoint). On Ollama, which starts
// its runner with -c num_ctx × parallel, each request gets the num_ctx it
// sent (OllamaDefaultNumCtx without one): a generation that fills it stops
// with done_reason "length". Without it the fake has no context limit.
func EnforceContext() Option { return func(c *config) { c.enforceContext = true } }

// OllamaDefaultNumCtx is the context Ollama gives a request that sends no
// num_ctx.
const OllamaDefaultNumCtx = 4096

// LegacyProps makes GET /props answer as older llama-server versions did:
// the slot's n_ctx at the top level, no default_generation_settings.n_ctx.
func LegacyProps() Option { return func(c *config) { c.legacyProps = true } }

// slotContext is one llama.cpp slot's context in tokens.
func (s *Server) slotContext() int {
	return s.cfg.contextLength / max(1, s.cfg.slots)
}

// llamaContextCheck applies EnforceContext to a prepared generation: it
// answers 400 and returns false for a prompt that does not fit, and cuts
// the output where the slot would be full.
func (s *Server) llamaContextCheck(w http.ResponseWriter, g *generation) bool {
	if !s.cfg.enforceContext {
		return true
	}
	nCtx := s.slotContext()
	if g.promptTokens >= nCtx {
		body := llamaErrorBody(http.StatusBadRequest,
			fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", g.promptTokens, nCtx))
		body["type"] = "exceed_context_size_error"
		body["n_prompt_tokens"] = g.promptTokens
		body["n_ctx"] = nCtx
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": body})
		return false
	}
	g.fitRoom(nCtx - g.promptTokens)
	return true
}

// fitRoom ends the output where a full context would: room tokens at most,
// stopping on the limit (a runaway generation ends there too).
func (g *generation) fitRoom(room int) {
	if g.endless {
		cycle := g.pieces
		g.pieces = make([]string, room)
		for i := range g.pieces {
			g.pieces[i] = cycle[i%len(cycle)]
		}
		g.endless, g.limited = false, true
	} else if len(g.pieces) > room {
		g.pieces = g.pieces[:room]
		g.limited = true
	}
	if g.limited {
		g.stopWord = ""
		g.text = strings.Join(g.pieces, "")
	}
}

// ollamaContextCheck applies EnforceContext to an Ollama generation: the
// request's num_ctx bounds prompt and output together. (Ollama truncates an
// over-long prompt rather than refusing it; then no room is left.)
func (s *Server) ollamaContextCheck(g *generation, numCtx int) {
	if !s.cfg.enforceContext {
		return
	}
	if numCtx <= 0 {
		numCtx = OllamaDefaultNumCtx
	}
	g.fitRoom(max(numCtx-g.promptTokens, 1))
}
