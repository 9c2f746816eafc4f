package engine

// ListedSource is one entry of a final answer's source list: the document,
// the number [n] it has in the context (0 when unknown) and whether the
// answer cites it.
type ListedSource struct {
	Num   int
	Doc   Document
	Cited bool
	// FirstUncited marks the first entry not cited after cited ones: where
	// a list shows its "also in the context, not cited" heading.
	FirstUncited bool
}

// SourceList is the final answer's sources in the order to show them
// (cited ones first, in citation order, then the rest of the context), each
// with the number the answer cites it by. Sessions stored before
// source_nums existed number their sources from citations.
func (f Final) SourceList() []ListedSource {
	cited := map[int]bool{}
	for _, n := range f.Citations {
		cited[n] = true
	}
	out := make([]ListedSource, len(f.Sources))
	restHeaded := len(f.Citations) == 0
	for i, d := range f.Sources {
		num := 0
		switch {
		case i < len(f.SourceNums):
			num = f.SourceNums[i]
		case i < len(f.Citations):
			num = f.Citations[i]
		}
		out[i] = ListedSource{Num: num, Doc: d, Cited: cited[num]}
		if !out[i].Cited && !restHeaded {
			out[i].FirstUncited = true
			restHeaded = true
		}
	}
	return out
}
