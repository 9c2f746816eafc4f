package cli

import (
	"path/filepath"
	"testing"

	"github.com/prefrag/prefrag/internal/testdouble/evaltest"
)

// ownQAFile is the project's own QA file: 20 two-hop questions about an
// invented archipelago, in the IRCoT layout of the shared HotpotQA file
// (question_text, answers_objects, contexts with is_supporting), each with
// its two supporting paragraphs and four distractors. Each gold answer is
// written in exactly one paragraph of the pool, its second hop.
var ownQAFile = filepath.Join("testdata", "lantern-isles-qa.jsonl")

// sharedHotpotQA is the shared HotpotQA file, relative to shared/data.
const sharedHotpotQA = "multihop/hotpotqa-ircot-dev500/dev_subsampled.jsonl"

// qaFiles are the QA files the CLI's evaluation tests run on: the
// project's own file always, the shared HotpotQA file as well where
// ../shared/data exists.
func qaFiles(t *testing.T) []string {
	t.Helper()
	files := []string{ownQAFile}
	if p, ok := evaltest.FindSharedData(sharedHotpotQA); ok {
		files = append(files, p)
	} else {
		t.Logf("shared/data/%s not found: running on the project's own QA file only", sharedHotpotQA)
	}
	return files
}
