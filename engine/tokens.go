package engine

// MergeableTokens reports whether token delta b continues token delta a,
// so that one event carrying a's text and then b's stands for both: the
// same session, seq, step and role. The delivery pipeline and the UI's
// bridge merge deltas by this rule.
func MergeableTokens(a, b Event) bool {
	ta, ok := a.Payload.(Token)
	tb, okb := b.Payload.(Token)
	return ok && okb && a.Session == b.Session && a.Seq == b.Seq && a.Step == b.Step && ta.Role == tb.Role
}
