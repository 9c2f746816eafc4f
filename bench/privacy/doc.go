// Package privacy measures the never-leave content check (package
// sources/distinct) on the shared test data: how often a query that
// carries no distinctive string of a never-leave corpus is held back (false
// holds), and how often a query carrying one is (true holds).
//
// Never-leave corpora: the Vaswani and Cranfield collections and the
// paragraphs pooled from the HotpotQA and MuSiQue question files. Queries:
// every question and topic of the shared sets (IR topics, multi-hop
// questions, the R1-Searcher QA files).
//
// A hold is judged false when the string that caused it is ordinary as the
// other shared corpora show: a name that occurs in at least OrdinaryDocs
// documents of the corpora other than the never-leave one, or a run of
// words whose words all do. Identifiers and long numbers are distinctive by their form
// and count as true. The reference is independent of the word list the
// check itself uses.
//
// True holds are measured by planting: secrets of each kind (an
// identifier, a long number, a made-up name) are written into passages of
// the never-leave corpus, and questions of another set carry one each; and
// runs of words cut at random from its passages are quoted in questions.
//
// The measurement is test code: `go test ./bench/privacy -run
// TestFalseAndTrueHolds -v` runs it and prints the report
// (docs/web-and-privacy.md quotes it).
package privacy
