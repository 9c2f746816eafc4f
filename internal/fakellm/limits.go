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
// (finish_reason "length" on the chat endpoint). Without it the fake has
// no context limit.
func EnforceContext() Option { return func(c *config) { c.enforceContext = true } }

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
	room := nCtx - g.promptTokens
	if g.endless {
		// A runaway generation ends when the slot is full.
		cycle := g.pieces
		g.pieces = make([]string, room)
		for i := range g.pieces {
			g.pieces[i] = cycle[i%len(cycle)]
		}
		g.endless = false
		g.limited = true
	} else if len(g.pieces) > room {
		g.pieces = g.pieces[:room]
		g.limited = true
	}
	if g.limited {
		g.stopWord = ""
		g.text = strings.Join(g.pieces, "")
	}
	return true
}
