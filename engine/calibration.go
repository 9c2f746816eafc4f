package engine

import (
	"math"

	"github.com/prefrag/prefrag/llm"
)

// The token calibration, per kind of text. The estimate (llm.Estimate)
// follows the script of a text; a model's tokenizer may still count a
// kind of text differently (Llama 3 groups digits by three, Qwen has most
// Han characters whole), so a run learns, from the counts the server
// reports (a reply's prompt count, a refusal's, llama-server's /tokenize),
// a factor per kind of text (llm.TextKind: prose, figures, CJK) and counts
// every text with its kind's factor. A run starts from the factors kept
// for its model by earlier runs (the app keeps them in a file in the data
// home), so its first prompt, a follow-up's rewrite included, is already
// counted in the model's tokens; it hands back what it measured at its
// end. Three rules keep one odd run from poisoning the next:
//
//   - a kept factor moves at most keptStep towards what a run measured,
//     so an outlier moves it a bounded step and the next ordinary runs
//     bring it back;
//   - a measurement is kept for the kind of text it was made on: a pasted
//     row of figures does not change how English is counted;
//   - the largest prompt of each kind the server read whole is kept with
//     its count: a prompt of that kind estimated no larger is counted at
//     no more than that count, so no kept factor makes prefrag refuse a
//     prompt the server has accepted at that size.

// KindCalibration is what is known of how a model counts one kind of
// text: Factor, the server's count over the estimate; and the largest
// prompt of the kind the server read whole, by its estimate
// (AcceptedEstimate) and the server's count (AcceptedTokens).
type KindCalibration struct {
	Factor           float64 `json:"factor"`
	AcceptedEstimate int     `json:"accepted_estimate,omitempty"`
	AcceptedTokens   int     `json:"accepted_tokens,omitempty"`
}

// CalibrationKeeper keeps the token calibration of a run's model (the
// reasoning model) across runs. Kept returns what is kept, per kind (nil
// or missing kinds: nothing); Keep records what a run hands back (the
// kinds it measured, already moved by at most keptStep). The engine
// sanity-checks what it is given (SaneCalibration).
type CalibrationKeeper interface {
	Kept() map[llm.TextKind]KindCalibration
	Keep(map[llm.TextKind]KindCalibration)
}

// Bounds of the calibration.
const (
	// calibrateMinTokens: a prompt estimated smaller is too short to
	// measure a ratio on.
	calibrateMinTokens = 200
	// factorMin and factorMax bound a factor in use or kept.
	factorMin = 0.4
	factorMax = 2.5
	// measuredMin and measuredMax bound a server's count over the
	// estimate that is believed; outside them the count is not the
	// prompt's (a cut prompt, a cache counted apart, a broken server).
	measuredMin = 0.25
	measuredMax = 4.0
	// keptStep is the most one run moves a kept factor.
	keptStep = 0.15
)

// SaneCalibration reports whether f may be used as a calibration factor.
func SaneCalibration(f float64) bool {
	return !math.IsNaN(f) && f >= factorMin && f <= factorMax
}

// kindState is a run's calibration of one kind of text.
type kindState struct {
	kept     float64 // the factor kept for the model, 0 without one
	measured float64 // the ratio measured last this run, 0 without one
	// accEst and accTokens: the largest prompt of the kind the server
	// read whole, kept or seen this run.
	accEst, accTokens int
}

// factor is the factor in use: this run's measurement, else the kept
// one, else 1.
func (k kindState) factor() float64 {
	switch {
	case k.measured > 0:
		return k.measured
	case k.kept > 0:
		return k.kept
	}
	return 1
}

// calibration is a run's calibration, per kind of text.
type calibration map[llm.TextKind]*kindState

func (c calibration) of(kind llm.TextKind) *kindState {
	k := c[kind]
	if k == nil {
		k = &kindState{}
		c[kind] = k
	}
	return k
}

// startCalibration starts the run's calibration from what is kept for its
// model.
func (r *run) startCalibration() {
	r.refinement.calib = calibration{}
	k := r.req.Calibration
	if k == nil {
		return
	}
	for kind, kc := range k.Kept() {
		s := r.refinement.calib.of(kind)
		if SaneCalibration(kc.Factor) {
			s.kept = kc.Factor
		}
		if kc.AcceptedEstimate > 0 && kc.AcceptedTokens > 0 {
			s.accEst, s.accTokens = kc.AcceptedEstimate, kc.AcceptedTokens
		}
	}
}

// count is a text's tokens: the estimate times its kind's factor, and no
// more than the count of the largest prompt of its kind the server read
// whole when it is estimated no larger.
func (r *run) count(s string) int {
	e := llm.Estimate(s)
	est := e.Tokens()
	k := r.refinement.calib.of(e.Kind())
	n := int(math.Ceil(float64(est) * k.factor()))
	if k.accEst > 0 && est <= k.accEst && n > k.accTokens {
		n = max(k.accTokens, est)
	}
	return n
}

// measure notes a server's count of a text of the reasoning model: the
// ratio over the estimate for the text's kind (the latest count is the
// one that knows the prompt as it now is), and, when the server read it
// whole, the largest prompt accepted.
func (r *run) measure(model LLM, text string, tokens int, whole bool) {
	if tokens <= 0 || !sameLLM(model, r.eng.cfg.LLM) {
		return
	}
	e := llm.Estimate(text)
	est := e.Tokens()
	if est < calibrateMinTokens {
		return
	}
	q := float64(tokens) / float64(est)
	if math.IsNaN(q) || q < measuredMin || q > measuredMax {
		return
	}
	k := r.refinement.calib.of(e.Kind())
	k.measured = min(max(q, factorMin), factorMax)
	if whole && est > k.accEst {
		k.accEst, k.accTokens = est, tokens
	}
}

// keepCalibration hands the keeper what this run measured: for each kind
// measured, the kept factor moved at most keptStep towards the run's (set
// to it when none was kept), and the largest prompt accepted.
func (r *run) keepCalibration() {
	k := r.req.Calibration
	if k == nil {
		return
	}
	out := map[llm.TextKind]KindCalibration{}
	for kind, s := range r.refinement.calib {
		if s.measured <= 0 {
			continue
		}
		f := s.measured
		if s.kept > 0 {
			f = s.kept + min(max(s.measured-s.kept, -keptStep), keptStep)
		}
		out[kind] = KindCalibration{Factor: f, AcceptedEstimate: s.accEst, AcceptedTokens: s.accTokens}
	}
	if len(out) > 0 {
		k.Keep(out)
	}
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
