package engine_test

import (
	"context"
	"fmt"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

// scriptedModel answers step prompts with the next of steps and judge
// prompts with the next of judges.
type scriptedModel struct{ steps, judges []string }

func (m *scriptedModel) Generate(_ context.Context, req llm.Request, _ llm.TokenFunc) (llm.Response, error) {
	queue := &m.steps
	if req.Purpose == llm.PurposeJudge {
		queue = &m.judges
	}
	if len(*queue) == 0 {
		return llm.Response{}, fmt.Errorf("no scripted reply for %s", req.Purpose)
	}
	text := (*queue)[0]
	*queue = (*queue)[1:]
	return llm.Response{Text: text, Model: "scripted", DoneReason: "stop"}, nil
}

// notes is a one-document local source.
type notes struct{}

func (notes) Name() string       { return "local:notes" }
func (notes) Kind() sources.Kind { return sources.KindLocal }
func (notes) Search(context.Context, string, int) ([]sources.Document, error) {
	return []sources.Document{{ID: "n1", Title: "Vltava", Text: "The Vltava flows through Prague.", Source: "local:notes", Score: 1}}, nil
}

// A PrefRAG run with a scripted model: one search of the local source, then
// the answer. With no web source there is nowhere to switch to, so the
// judge is not asked (its scripted reply stays unused).
func Example() {
	model := &scriptedModel{
		steps: []string{
			"Thought: I should look this up.\nAction: Search_Engine\nAction Input: river through Prague",
			"Thought: I now know the final answer\nFinal Answer: The Vltava [1]\nSelf-Evaluation: CORRECT\nExplanation: the note says so.\nImprovement Suggestions: None",
		},
		judges: []string{`{"analysis": "The note names the river.", "status": true}`},
	}
	eng, err := engine.New(engine.Config{LLM: model, Sources: []engine.Source{notes{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := engine.DefaultSettings()
	s.Strategy = engine.StrategyPrefRAG
	s.Web = engine.WebNever
	var types []string
	res, err := eng.Run(context.Background(), engine.Request{
		SessionID: "example",
		Question:  "Which river flows through Prague?",
		Settings:  s,
		Emit:      func(ev engine.Event) { types = append(types, ev.Type()) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Answer, res.Label, res.Citations)
	fmt.Println("LLM calls:", res.Counts.LLMCalls, "local retrievals:", res.Counts.LocalRetrievals)
	fmt.Println(types)
	// Output:
	// The Vltava [1] CORRECT [1]
	// LLM calls: 2 local retrievals: 1
	// [session thought action retrieval observation thought answer evidence final]
}
