package e2e

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// velloran is a passage with two sentences that each support one claim of
// the answer below, and one that supports none.
const velloran = "# Velloran Institute\n\nThe Velloran Institute was founded in 1887 by the cartographer Ada Marsh in Tromsø. " +
	"Its library holds forty thousand historical maps of the Arctic coast. The building was renovated in 1962 after a fire.\n"

const (
	quoteFounded = "The Velloran Institute was founded in 1887 by the cartographer Ada Marsh in Tromsø."
	quoteLibrary = "Its library holds forty thousand historical maps of the Arctic coast."
	unusedLine   = "renovated in 1962"
)

// evidenceScript searches the corpus twice (-k 1): [1] the Velloran
// passage, [2] the Carlsberg one; the answer makes two claims citing [1]
// and one citing [2], which says nothing about it.
func evidenceScript() *fakellm.Script {
	return &fakellm.Script{
		Steps: []string{
			"Thought: I need the institute first.\nAction: Search_Engine\nAction Input: Velloran Institute founded library maps",
			"Thought: Now its director.\nAction: Search_Engine\nAction Input: Carlsberg Laboratory chemistry department",
			"Thought: I now know the final answer to the original question\n" +
				"Final Answer: The Velloran Institute was founded in 1887 by Ada Marsh [1]. Its library holds forty thousand maps of the Arctic coast [1]. Its first director won the Nobel Prize in Physics [2].\n" +
				"Self-Evaluation: CORRECT\nExplanation: both passages.",
		},
		Judges: []string{
			`{"analysis": "The passage is about the institute.", "status": true}`,
			`{"analysis": "Enough.", "status": true}`,
		},
	}
}

// TestEvidenceQuotesSupportingSentences is issue 22's Done-when: an answer
// with three claims, two supported by different sentences of passage [1]
// and one citing a passage that says nothing about it, gives the two
// quotes (not the whole passage) in --json, the plain output, `sessions
// show` and the Markdown export, and marks the third claim.
func TestEvidenceQuotesSupportingSentences(t *testing.T) {
	w := newWorld(t, twice(evidenceScript()))
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	const question = "When was the Velloran Institute founded, what does its library hold, and what did its director win?"

	js, errOut, code := w.run(w.askArgs("--json", "-k", "1", question)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, js)
	got := types(evs)
	if n := len(got); n < 2 || got[n-2] != engine.EventEvidence || got[n-1] != engine.EventFinal {
		t.Fatalf("events %v: want evidence just before final", got)
	}
	final := payloadsOf[engine.Final](evs)[0]
	if len(final.SourceNums) < 2 || final.SourceNums[0] != 1 || !strings.Contains(final.Sources[0].Text, quoteFounded) {
		t.Fatalf("final sources %+v nums %v: want [1] the Velloran passage", final.Sources, final.SourceNums)
	}
	passage := final.Sources[0].Text
	claims := payloadsOf[engine.Evidence](evs)[0].Claims
	if len(claims) != 3 {
		t.Fatalf("claims %+v, want 3", claims)
	}
	for i, want := range []string{quoteFounded, quoteLibrary} {
		c := claims[i]
		if c.Verdict != "supported" || len(c.Support) != 1 {
			t.Errorf("claim %d %q: verdict %s support %+v, want one quote", i, c.Text, c.Verdict, c.Support)
			continue
		}
		q := c.Support[0]
		if q.N != 1 || q.Quote != want || q.Start < 0 || q.End > len(passage) || passage[q.Start:q.End] != want || q.Score <= 0 {
			t.Errorf("claim %d quote %+v, want [1] %q at its offsets", i, q, want)
		}
	}
	if c := claims[2]; c.Verdict != "unsupported" || len(c.Support) != 0 || len(c.Citations) != 1 || c.Citations[0] != 2 {
		t.Errorf("third claim %+v, want unsupported in [2]", c)
	}

	plain, errOut, code := w.run(w.askArgs("-k", "1", question)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	shown, _, _ := w.run("sessions", "show", evs[0].Session)
	md := exportMD(t, w, evs[0].Session)
	answerPart, _, _ := strings.Cut(md, "## Appendix")
	for name, text := range map[string]string{"ask": plain, "sessions show": shown, "export": answerPart} {
		sources := text[max(strings.Index(text, "Sources"), 0):]
		for _, q := range []string{quoteFounded, quoteLibrary} {
			if !strings.Contains(sources, "“"+q+"”") {
				t.Errorf("%s does not quote %q under the sources:\n%s", name, q, text)
			}
		}
		if strings.Contains(text, unusedLine) {
			t.Errorf("%s prints the whole passage:\n%s", name, text)
		}
		if !strings.Contains(text, "no support found in [2]") || !strings.Contains(text, "Its first director won the Nobel Prize") {
			t.Errorf("%s does not mark the third claim:\n%s", name, text)
		}
	}
	// The HTML report quotes the same sentences under their claims and
	// marks the third (the page is text here; the browser test is in
	// export_html_test.go).
	htmlPath := filepath.Join(w.home, "evidence.html")
	if _, errOut, code := w.run("sessions", "export", evs[0].Session, "--format", "html", "-o", htmlPath); code != 0 {
		t.Fatalf("html export: %s", errOut)
	}
	raw, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(raw))
	for _, q := range []string{quoteFounded, quoteLibrary} {
		if !strings.Contains(page, q) {
			t.Errorf("the HTML report does not quote %q", q)
		}
	}
	if !strings.Contains(page, "verdict-unsupported") || strings.Contains(page, unusedLine) {
		t.Errorf("the HTML report does not mark the third claim, or prints the whole passage")
	}
	// Each quote sits under source [1], before source [2].
	for name, text := range map[string]string{"ask": plain, "export": answerPart} {
		text = text[max(strings.Index(text, "Sources"), 0):]
		one, two := strings.Index(text, "[1] "), strings.Index(text, "[2] ")
		if q := strings.Index(text, "“"+quoteLibrary); one < 0 || two < 0 || q < one || q > two {
			t.Errorf("%s: quote not under [1]:\n%s", name, text)
		}
	}
}

// --verify-claims asks the judge model once, with structured output, about
// the claims that have quotes (not about the unsupported third); its
// verdicts are recorded beside the aligner's and the call is counted.
func TestEvidenceVerifyClaims(t *testing.T) {
	s := evidenceScript()
	s.Judges = append(s.Judges, `{"claims": [{"claim": 1, "supported": true, "analysis": "The quote gives 1887 and Ada Marsh."}, {"claim": 2, "supported": false, "analysis": "The quote says historical maps, not only of the coast."}]}`)
	w := newWorld(t, s)
	w.write("velloran.md", velloran)
	if out, errOut, code := w.run("index", "--corpus", "wiki", w.docs); code != 0 {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	js, errOut, code := w.run(w.askArgs("--json", "-k", "1", "--verify-claims", "When was the Velloran Institute founded?")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := parseEvents(t, js)
	ev := payloadsOf[engine.Evidence](evs)[0]
	if len(ev.Checks) != 2 || ev.Checks[0].Claim != 0 || ev.Checks[0].Verdict != "supported" || ev.Checks[1].Claim != 1 || ev.Checks[1].Verdict != "unsupported" {
		t.Errorf("model checks %+v", ev.Checks)
	}
	if ev.Claims[1].Verdict != "supported" {
		t.Errorf("the aligner's verdict changed: %+v", ev.Claims[1])
	}
	gens := w.llm.Generations()
	last := gens[len(gens)-1]
	if last.Schema == nil || !strings.Contains(string(last.Schema), `"supported"`) || !strings.Contains(last.Prompt, quoteLibrary) ||
		strings.Contains(last.Prompt, "Nobel") {
		t.Errorf("claim check request: schema %s prompt %q", last.Schema, last.Prompt)
	}
	c := payloadsOf[engine.Final](evs)[0].Counts
	if c.VerifyCalls != 1 || c.LLMCalls != len(gens) || c.JudgeCalls != 2 {
		t.Errorf("counts %+v, %d generations", c, len(gens))
	}
	plain, _, _ := w.run("sessions", "show", evs[0].Session)
	if !strings.Contains(plain, "judge model: no support in the quotes") {
		t.Errorf("sessions show does not show the model's verdict:\n%s", plain)
	}
}
