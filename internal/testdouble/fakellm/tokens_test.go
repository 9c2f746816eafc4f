package fakellm

import (
	"encoding/json"
	"io"
	"math"
	"testing"
	"unicode/utf8"
)

// TestScriptTokensRatios: on the project's corpora ScriptTokens counts as
// the measured servers did — 0.9, 2.24 and 5.9 times runes/4 — within 5%.
func TestScriptTokensRatios(t *testing.T) {
	for _, tc := range []struct {
		corpus string
		want   float64
	}{{"english", RatioEnglish}, {"figures", RatioFigures}, {"chinese", RatioChinese}} {
		names, texts := Corpus(tc.corpus)
		if len(names) < 4 {
			t.Fatalf("corpus %s has %d documents", tc.corpus, len(names))
		}
		runes, tokens := 0, 0
		for _, n := range names {
			runes += utf8.RuneCountInString(texts[n])
			tokens += ScriptTokens(texts[n])
		}
		got := float64(tokens) / (float64(runes) / 4)
		if math.Abs(got-tc.want)/tc.want > 0.05 {
			t.Errorf("%s: %.2f times runes/4, want %.2f", tc.corpus, got, tc.want)
		}
	}
}

// TestScriptTokensPieces pins how pieces are counted.
func TestScriptTokensPieces(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"the", 1},
		{"the cat", 2},
		{"2019", 4},
		{"in 2019", 6}, // in, ▁, 2, 0, 1, 9
		{"a, b.", 4},
		{"a    b", 3}, // a, ▁▁▁ (one piece), ▁b
		{"x\ny", 3},
	} {
		if got := ScriptTokens(tc.text); got != tc.want {
			t.Errorf("ScriptTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// TestCountByScriptEndpoints: with CountByScript every endpoint reports
// the same count for the same Chinese prompt, far above runes/4.
func TestCountByScriptEndpoints(t *testing.T) {
	names, texts := Corpus("chinese")
	prompt := texts[names[0]]
	msgs := []map[string]string{{"role": "user", "content": prompt}}
	srv := New(t, ResponderFunc(func(Call) Reply { return Reply{Text: "ok"} }), CountByScript())
	want := ScriptTokens(chatTemplate([]chatMessage{{Role: "user", Content: prompt}}))
	if want <= utf8.RuneCountInString(prompt) {
		t.Fatalf("the Chinese prompt counts %d tokens, no more than its runes", want)
	}
	read := func(path string, body map[string]any) int {
		res := post(t, srv.URL()+path, body)
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var out struct {
			PromptEvalCount int   `json:"prompt_eval_count"`
			TokensEvaluated int   `json:"tokens_evaluated"`
			Tokens          []int `json:"tokens"`
			Usage           struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v: %s", path, err, raw)
		}
		return max(out.PromptEvalCount, out.TokensEvaluated, len(out.Tokens), out.Usage.PromptTokens)
	}
	for path, body := range map[string]map[string]any{
		"/api/chat":            {"model": DefaultModel, "stream": false, "messages": msgs},
		"/v1/chat/completions": {"model": DefaultModel, "stream": false, "messages": msgs},
		"/completion":          {"prompt": chatTemplate([]chatMessage{{Role: "user", Content: prompt}}), "stream": false},
		"/tokenize":            {"content": chatTemplate([]chatMessage{{Role: "user", Content: prompt}})},
	} {
		if got := read(path, body); got != want {
			t.Errorf("%s counts %d, want %d", path, got, want)
		}
	}
}
