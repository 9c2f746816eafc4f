package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// Issue 21: Ollama cuts a prompt over the context it runs a request with
// and answers normally. With a tokenizer denser than prefrag's estimate,
// a prompt prefrag thought fitted is cut: on the native API at num_ctx,
// on Ollama's /v1 at the runner's context. The run says so in a fatal
// error event, with what to change, and presents no answer.
func TestOllamaCutDetected(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		fix  string
	}{
		{"native", []string{"--llm", "ollama", "--num-ctx", "4096"}, "raise --num-ctx"},
		{"/v1", []string{"--llm", "openai", "--v1"}, "OLLAMA_CONTEXT_LENGTH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
				switch {
				case c.Kind() == fakellm.KindJudge:
					return fakellm.Reply{Text: `{"analysis": "relevant", "status": true}`}
				case strings.Contains(c.Prompt, "Observation: [1]"):
					return fakellm.Reply{Text: "Thought: enough.\nFinal Answer: built on a cut prompt [1]\nSelf-Evaluation: CORRECT"}
				}
				return fakellm.Reply{Text: "Thought: search.\nAction: Search_Engine\nAction Input: aluminium"}
			})
			w := newWorld(t, model, fakellm.AsOllama(), fakellm.Models("fake-model"), fakellm.TruncateLikeOllama(), fakellm.TokenRatio(2.5))
			dir := filepath.Join(w.home, "metals")
			os.MkdirAll(dir, 0o755)
			for i := 0; i < 5; i++ {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("al%d.txt", i)), []byte(fmt.Sprintf("Aluminium note %d. ", i)+strings.Repeat("Aluminium melts at 660 degrees. ", 38)), 0o644)
			}
			if _, errOut, code := w.run("index", "--corpus", "metals", dir); code != 0 {
				t.Fatalf("index: %s", errOut)
			}
			url := w.llm.URL()
			args := []string{}
			for _, a := range tt.args {
				if a == "--v1" {
					url += "/v1"
					continue
				}
				args = append(args, a)
			}
			args = append([]string{"ask", "--llm-url", url, "--model", "fake-model", "--web", "never", "--corpus", "metals", "--json"}, args...)
			out, errOut, code := w.run(append(args, "What melts first?")...)
			if code != 1 || !strings.Contains(errOut, "cut the prompt") || !strings.Contains(errOut, tt.fix) {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			evs := parseEvents(t, out)
			var fatal []string
			for _, ev := range ofType(evs, "error") {
				if p := ev.Payload.(engine.Notice); p.Fatal {
					fatal = append(fatal, p.Message)
				}
			}
			if len(fatal) != 1 || !strings.Contains(fatal[0], "cut the prompt") {
				t.Errorf("fatal errors %q", fatal)
			}
			for _, f := range ofType(evs, "final") {
				if p := f.Payload.(engine.Final); strings.Contains(p.Answer, "cut prompt") {
					t.Errorf("the answer built on the cut prompt was presented: %q", p.Answer)
				}
			}
			cut := false
			for _, g := range w.llm.Generations() {
				cut = cut || g.KeptTokens > 0
			}
			if !cut {
				t.Errorf("the server cut no prompt: the test did not test anything")
			}
		})
	}
}
