// Package evaltest holds helpers for the tests of the evaluation harness:
// finding the shared research data and serving the gold-answering oracle
// through the project's fake LLM server. Only tests import it.
package evaltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/eval/enginebench"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// SharedData returns the path of shared/data/<rel> found by walking up from
// the working directory (../shared/data next to the repository root), or
// skips the test when it is absent.
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	if p, ok := FindSharedData(rel); ok {
		return p
	}
	t.Skipf("shared/data/%s not found above %s; skipping", rel, mustWd())
	return ""
}

// FindSharedData is SharedData without a test.
func FindSharedData(rel string) (string, bool) {
	dir := mustWd()
	for {
		p := filepath.Join(dir, "shared", "data", filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func mustWd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// OracleResponder answers the fake LLM's calls with the oracle: step and
// answer prompts get its trajectory, judge calls (structured output) its
// JSON verdict.
func OracleResponder(o *enginebench.Oracle) fakellm.Responder {
	return fakellm.ResponderFunc(func(c fakellm.Call) fakellm.Reply {
		return fakellm.Reply{Text: o.Reply(c.Prompt, c.Kind() == fakellm.KindJudge)}
	})
}
