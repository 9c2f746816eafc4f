package export

import (
	"github.com/prefrag/prefrag/engine"
)

// failedSearch says how a search that returned nothing failed: blocked,
// cut at the size limit or unavailable, with the reason recorded.
func failedSearch(p engine.Retrieval) string {
	what := "the source was unavailable, no documents"
	switch p.Outcome {
	case engine.OutcomeBlocked:
		what = "the search was blocked, no documents"
	case engine.OutcomeTruncated:
		what = "the answer was truncated at the size limit, no documents could be read"
	}
	if p.Note != "" {
		what += " (" + inline(p.Note) + ")"
	}
	return what
}

// degradedText says that a hybrid search answered by words only, and why.
func degradedText(note string) string {
	if note == "" {
		return "searched by words only"
	}
	return "searched by words only: " + note
}

// searchMarks qualifies a search's document count: partial results of a
// cut answer, results served from the web cache.
func searchMarks(p engine.Retrieval) string {
	out := ""
	if p.Outcome == engine.OutcomeTruncated {
		out += ", the answer was truncated at the size limit and later results are lost"
	}
	if p.Outcome == engine.OutcomeDegraded {
		out += ", " + degradedText(inline(p.Note))
	}
	cached := p.Cached
	for _, d := range p.Docs {
		cached = cached || d.Cached
	}
	if cached {
		out += ", from the web cache"
	}
	return out
}
