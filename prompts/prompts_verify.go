package prompts

// VerifyClaimsData fills the claim check prompt (--verify-claims): the
// answer's claims, numbered, each with the quotes of its cited sources.
type VerifyClaimsData struct {
	Question string
	// Claims is the numbered claims and their quotes, as text.
	Claims string
}

// VerifyClaims renders the claim check prompt.
func (s *Set) VerifyClaims(d VerifyClaimsData) (string, error) { return s.render(VerifyClaims, d) }
