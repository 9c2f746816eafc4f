package engine

import "testing"

// TestStrategyTable checks the table's rows are consistent: unique names,
// a label each, retrieval modes that fit the loop or the single shot.
func TestStrategyTable(t *testing.T) {
	loopOnly := map[RetrievalMode]bool{RetrievalPreferred: true, RetrievalChosen: true}
	singleOnly := map[RetrievalMode]bool{RetrievalNone: true, RetrievalLocal: true, RetrievalWeb: true}
	seen := map[string]bool{}
	for _, st := range Strategies() {
		t.Run(st.Name, func(t *testing.T) {
			if st.Name == "" || seen[st.Name] {
				t.Fatalf("empty or repeated name %q", st.Name)
			}
			seen[st.Name] = true
			if st.Label == "" {
				t.Error("no label")
			}
			if st.run != nil {
				return
			}
			switch {
			case st.Loop && singleOnly[st.Retrieval]:
				t.Errorf("loop strategy with single-shot retrieval %q", st.Retrieval)
			case !st.Loop && loopOnly[st.Retrieval]:
				t.Errorf("single-shot strategy with loop retrieval %q", st.Retrieval)
			case !st.Loop && (st.Judge || st.Reflect || st.Preference):
				t.Error("judge, reflection and preference need the loop")
			case st.Judge && st.Retrieval != RetrievalPreferred:
				t.Error("the judge only decides for preferred retrieval")
			}
			if got, ok := LookupStrategy(st.Name); !ok || got.Name != st.Name {
				t.Errorf("LookupStrategy(%q) = %v, %v", st.Name, got.Name, ok)
			}
		})
	}
	if len(StrategyNames()) != len(seen) {
		t.Errorf("StrategyNames has %d names, the table %d", len(StrategyNames()), len(seen))
	}
	if _, ok := LookupStrategy("nope"); ok {
		t.Error("unknown name found")
	}
}
