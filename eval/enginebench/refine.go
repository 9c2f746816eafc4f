package enginebench

import "strings"

// refineNote is the stand-in model's observation refinement: the document
// header lines ("[n] title: …") of the results it was given, so that the
// oracle still sees which titles were found.
func refineNote(prompt string) string {
	_, results, _ := strings.Cut(prompt, "Search results:")
	var b strings.Builder
	for _, line := range strings.Split(results, "\n") {
		if strings.HasPrefix(line, "[") && strings.Contains(line, "] title: ") {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return "Nothing relevant."
	}
	return b.String()
}
