package prompts

// GateData fills the retrieval gate's prompts (gate_*.tmpl): the
// heuristic draft, the necessity check, the claim queries, the rewritten
// query and SmartRAG's retrieve-or-answer decision.
type GateData struct {
	Question string
	// Heuristic is the proxy model's draft answer (empty for the draft
	// prompt itself).
	Heuristic string
	// Documents is the rendered observation block so far (gate_decide).
	Documents string
	// Max is the most claim queries asked for (gate_claims).
	Max int
}

// GateHeuristic renders the prompt for the heuristic draft answer.
func (s *Set) GateHeuristic(d GateData) (string, error) { return s.render(GateHeuristic, d) }

// GateNeed renders the retrieval-necessity judgment prompt.
func (s *Set) GateNeed(d GateData) (string, error) { return s.render(GateNeed, d) }

// GateClaims renders the claim-query prompt (SlimPLM's rewriting).
func (s *Set) GateClaims(d GateData) (string, error) { return s.render(GateClaims, d) }

// GateRewrite renders the one-query rewriting prompt (SmartRAG).
func (s *Set) GateRewrite(d GateData) (string, error) { return s.render(GateRewrite, d) }

// GateDecide renders SmartRAG's retrieve-or-answer decision prompt.
func (s *Set) GateDecide(d GateData) (string, error) { return s.render(GateDecide, d) }
