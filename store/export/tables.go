package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// settingsRows are the settings a session ran with, as the Markdown and
// HTML reports list them: recorded text (an imported session's too), so
// each value is on one line without control characters, but not escaped
// (each format escapes its own).
func settingsRows(s *engine.RunConfig) []kv {
	if s == nil {
		return nil
	}
	var rows []kv
	row := func(k string, v any) { rows = append(rows, kv{k, oneLineText(fmt.Sprint(v))}) }
	row("strategy", s.Strategy)
	row("corpora (preference order)", strings.Join(s.Corpora, ", "))
	row("web policy", s.Web)
	if len(s.NeverLeave) > 0 {
		row("never-leave corpora", strings.Join(s.NeverLeave, ", "))
	}
	row("web engine", s.WebEngine)
	row("LLM backend", s.LLM)
	if s.LLMURL != "" {
		row("LLM server", redactURL(s.LLMURL))
	}
	row("model", s.Model)
	if s.JudgeModel != "" {
		row("judge model", s.JudgeModel)
	}
	row("documents per retrieval (k)", s.K)
	row("max steps", s.MaxSteps)
	row("max reflections", s.MaxReflections)
	row("judge the first retrieval", s.JudgeFirst)
	row("context window (num_ctx)", s.NumCtx)
	row("temperature", s.Temperature)
	row("top_p", s.TopP)
	if s.Seed != nil {
		row("seed", *s.Seed)
	}
	row("answer style", s.AnswerStyle)
	return rows
}

// countsRows are a run's counters, the paper's efficiency figures
// (Tables 7–14); none when nothing was counted.
func countsRows(c *engine.Counts) []kv {
	if c == nil || *c == (engine.Counts{}) {
		return nil
	}
	var rows []kv
	row := func(k, v string) { rows = append(rows, kv{k, v}) }
	row("LLM calls", fmt.Sprintf("%d (reasoning %d, judge %d, forced %d)", c.LLMCalls, c.StepCalls, c.JudgeCalls, c.ForcedCalls))
	if c.RewriteCalls > 0 {
		row("follow-up rewrite calls", strconv.Itoa(c.RewriteCalls))
	}
	if c.VerifyCalls > 0 {
		row("claim check calls", strconv.Itoa(c.VerifyCalls))
	}
	if c.MCPRetrievals > 0 {
		row("retrievals", fmt.Sprintf("%d (local %d, MCP %d, web %d)", c.TotalRetrievals(), c.LocalRetrievals, c.MCPRetrievals, c.WebRetrievals))
	} else {
		row("retrievals", fmt.Sprintf("%d (local %d, web %d)", c.TotalRetrievals(), c.LocalRetrievals, c.WebRetrievals))
	}
	row("retrievals used in the context", fmt.Sprintf("%d (local %d)", c.UsedRetrievals, c.UsedLocalRetrievals))
	row("documents used", strconv.Itoa(c.UsedDocs))
	row("source switches", strconv.Itoa(c.Switches))
	row("reflection supplements", strconv.Itoa(c.Reflections))
	row("prompt tokens", fmt.Sprintf("%d (%d cached)", c.PromptTokens, c.CachedPromptTokens))
	row("output tokens", strconv.Itoa(c.OutputTokens))
	row("time", fmt.Sprintf("%s total (LLM %s, retrieval %s)", ms(c.TotalMillis), ms(c.LLMMillis), ms(c.RetrievalMillis)))
	return rows
}
