package prompts

// RefineData fills the observation refinement prompt (MSPR's Observation
// Refinement Strategy): earlier observations condensed into one note that
// keeps everything possibly relevant to the question and the last query.
type RefineData struct {
	Question string
	// Query is the most recent search query ("" when there was none).
	Query string
	// Observations are the earlier observations' texts, in order.
	Observations string
}

// Refine renders the observation refinement prompt.
func (s *Set) Refine(d RefineData) (string, error) { return s.render(Refine, d) }
