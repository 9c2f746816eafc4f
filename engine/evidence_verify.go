package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/prompts"
)

// The optional model check of an answer's evidence (--verify-claims): the
// judge model is asked once per answer, with structured output, whether
// each claim's quotes support it. Its verdicts are recorded beside the
// aligner's (Evidence.Checks); a failed or malformed check is a warning,
// never the end of the run.

// purposeVerify is the claim check call: structured output, not streamed,
// counted as VerifyCalls.
const purposeVerify llm.Purpose = "verify"

var verifySchema = []byte(`{"type":"object","properties":{"claims":{"type":"array","items":{"type":"object","properties":{"claim":{"type":"integer"},"supported":{"type":"boolean"},"analysis":{"type":"string"}},"required":["claim","supported","analysis"]}}},"required":["claims"]}`)

// ClaimCheck is the judge model's verdict on one claim's quotes.
type ClaimCheck struct {
	// Claim is the claim's index in Evidence.Claims (from 0).
	Claim int `json:"claim"`
	// Verdict is "supported" or "unsupported".
	Verdict  string `json:"verdict"`
	Analysis string `json:"analysis,omitempty"`
}

// Doubt reports whether the judge model found no support in the quotes.
func (c ClaimCheck) Doubt() bool { return c.Verdict != "supported" }

// CheckOf is the judge model's check of claim i (from 0), false when the
// claim was not asked about.
func (p Evidence) CheckOf(i int) (ClaimCheck, bool) {
	for _, ck := range p.Checks {
		if ck.Claim == i {
			return ck, true
		}
	}
	return ClaimCheck{}, false
}

// Doubted are the judge model's checks that doubt a claim's quotes, each
// naming one of p's claims (a check of a claim p lacks is left out).
func (p Evidence) Doubted() []ClaimCheck {
	var out []ClaimCheck
	for _, ck := range p.Checks {
		if ck.Doubt() && ck.Claim >= 0 && ck.Claim < len(p.Claims) {
			out = append(out, ck)
		}
	}
	return out
}

// verifyClaims asks the judge model about the claims that have quotes and
// records its verdicts in ev.Checks. Claims without quotes are not asked
// about: nothing was found to check.
func (r *run) verifyClaims(ctx context.Context, ev Evidence) Evidence {
	var b strings.Builder
	var asked []int
	for i, c := range ev.Claims {
		if len(c.Support) == 0 {
			continue
		}
		asked = append(asked, i)
		fmt.Fprintf(&b, "Claim %d: %s\n", len(asked), textsafe.OneLine(textsafe.ForPrompt(c.Text)))
		for _, q := range c.Support {
			fmt.Fprintf(&b, "  Quote from [%d]: %s\n", q.N, textsafe.OneLine(textsafe.ForPrompt(q.Quote)))
		}
		b.WriteString("\n")
	}
	if len(asked) == 0 {
		return ev
	}
	prompt, err := r.prompts.VerifyClaims(prompts.VerifyClaimsData{Question: r.req.Question, Claims: b.String()})
	if err != nil {
		r.warn(0, "", "claim check: "+err.Error())
		return ev
	}
	resp, err := r.call(ctx, r.eng.cfg.Judge, llm.Request{Purpose: purposeVerify, Prompt: prompt, Schema: verifySchema, Options: r.options()}, 0)
	if err != nil {
		r.warn(0, "", "claim check failed: "+textsafe.ForTerminal(err.Error()))
		return ev
	}
	checks, ok := parseChecks(resp.Text, asked)
	switch {
	case strings.TrimSpace(resp.Text) == "":
		r.warn(0, "", "the claim check gave nothing usable: the judge model's reply was empty; the aligner's verdicts stand alone")
	case !ok:
		r.warn(0, "", "the claim check gave nothing usable: its reply was not the requested JSON; the aligner's verdicts stand alone")
	case len(checks) == 0:
		r.warn(0, "", fmt.Sprintf("the claim check gave nothing usable: its reply judged none of the %d claims asked about; the aligner's verdicts stand alone", len(asked)))
	case len(checks) < len(asked):
		r.warn(0, "", fmt.Sprintf("the claim check judged %d of the %d claims asked about; for %s the aligner's verdict stands alone", len(checks), len(asked), unjudged(checks, asked)))
	}
	ev.Checks = checks
	return ev
}

// unjudged names the claims asked about that checks has no verdict for
// ("claim 2", "claims 1 and 3"), numbered as the answer's claims are shown.
func unjudged(checks []ClaimCheck, asked []int) string {
	judged := map[int]bool{}
	for _, c := range checks {
		judged[c.Claim] = true
	}
	var nums []string
	for _, i := range asked {
		if !judged[i] {
			nums = append(nums, strconv.Itoa(i+1))
		}
	}
	switch len(nums) {
	case 1:
		return "claim " + nums[0]
	default:
		return "claims " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
	}
}

// parseChecks reads the judge's reply: claim numbers count from 1 among
// the claims asked about (asked maps them to claim indexes). Entries with
// an unknown number are dropped; ok is false when the reply is no JSON of
// the schema.
func parseChecks(text string, asked []int) ([]ClaimCheck, bool) {
	var reply struct {
		Claims []struct {
			Claim     int    `json:"claim"`
			Supported bool   `json:"supported"`
			Analysis  string `json:"analysis"`
		} `json:"claims"`
	}
	text = strings.TrimSpace(text)
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		text = text[i : j+1]
	}
	if err := json.Unmarshal([]byte(text), &reply); err != nil {
		return nil, false
	}
	var out []ClaimCheck
	seen := map[int]bool{}
	for _, c := range reply.Claims {
		if c.Claim < 1 || c.Claim > len(asked) || seen[c.Claim] {
			continue
		}
		seen[c.Claim] = true
		v := "unsupported"
		if c.Supported {
			v = "supported"
		}
		out = append(out, ClaimCheck{Claim: asked[c.Claim-1], Verdict: v, Analysis: c.Analysis})
	}
	return out, true
}
