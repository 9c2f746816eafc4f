package engine

import "math"

// The token calibration kept per model. The estimate's calibration
// (fit.go) is learnt from the counts the server reports; a run that starts
// from the factor an earlier run of the same model measured counts its
// first prompts, the rewrite of a follow-up included, in the model's
// tokens from the start. The caller keeps the factor (the app: a file in
// the data home) and hands the run a keeper bound to its model.

// CalibrationKeeper keeps the token calibration of a run's model (the
// reasoning model) across runs. Kept is the factor kept for it, 0 when
// none; Keep records the factor a run measured. The engine sanity-checks
// both ways: a kept factor outside [1, 1.5] is ignored, and a measured
// ratio outside [0.25, 4] is taken for a server's mistake and not kept.
type CalibrationKeeper interface {
	Kept() float64
	Keep(factor float64)
}

// Bounds of a server's prompt count over the estimate that are believed;
// outside them the count is not the prompt's (a cut prompt, a cache
// counted apart, a broken server) and is not kept.
const (
	measuredMin = 0.25
	measuredMax = 4.0
	// keptDecay is how far a run that measured a smaller ratio than the
	// kept one moves the kept factor towards it (a single run whose counts
	// were low, its prompt cached, does not undo the others).
	keptDecay = 0.25
)

// SaneCalibration reports whether f may be used as a kept calibration
// factor: a number from 1 (the estimate) to the most a run's calibration
// grows it (calibrateMax).
func SaneCalibration(f float64) bool {
	return !math.IsNaN(f) && f >= 1 && f <= calibrateMax
}

// startCalibration starts the run's calibration from the factor kept for
// its model.
func (r *run) startCalibration() {
	k := r.req.Calibration
	if k == nil {
		return
	}
	if f := k.Kept(); SaneCalibration(f) {
		r.refinement.ratio = f
		r.refinement.kept = f
	}
}

// measure notes a ratio of the server's count over the estimate measured
// on the reasoning model's prompt.
func (r *run) measure(model LLM, q float64) {
	if !sameLLM(model, r.eng.cfg.LLM) || math.IsNaN(q) || q < measuredMin || q > measuredMax {
		return
	}
	r.refinement.measured = max(r.refinement.measured, q)
}

// keepCalibration hands the keeper what this run measured (bounded to
// [1, calibrateMax]); a run that measured nothing keeps the factor as it
// was.
func (r *run) keepCalibration() {
	k, m := r.req.Calibration, r.refinement.measured
	if k == nil || m <= 0 {
		return
	}
	f := min(max(m, 1), calibrateMax)
	if old := r.refinement.kept; old > f {
		f = old - (old-f)*keptDecay
	}
	k.Keep(f)
}

// sameLLM reports whether a and b are the same client. Comparing two
// values of a type that cannot be compared panics; such clients are not
// the same.
func sameLLM(a, b LLM) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
