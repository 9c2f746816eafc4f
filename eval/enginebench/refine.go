package enginebench

import "strings"

// refineNote is the stand-in model's observation refinement: the document
// header lines ("[n] title: …") of the results it was given, each with the
// document's first sentence, so that the oracle still sees which titles
// were found and the facts they open with.
func refineNote(prompt string) string {
	_, results, _ := strings.Cut(prompt, "Search results:")
	var b strings.Builder
	lines := strings.Split(results, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "[") || !strings.Contains(line, "] title: ") {
			continue
		}
		b.WriteString(line + "\n")
		// The document's first sentence: the fact a model keeps ("X is a
		// town in Y"), so the answer survives the refinement.
		if i+1 < len(lines) {
			if content, ok := strings.CutPrefix(lines[i+1], "content: "); ok {
				if end := strings.Index(content, ". "); end >= 0 {
					content = content[:end+1]
				}
				b.WriteString(content + "\n")
			}
		}
	}
	if b.Len() == 0 {
		return "Nothing relevant."
	}
	return b.String()
}
