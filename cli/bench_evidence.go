package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/prefrag/prefrag/bench/evidence"
	"github.com/prefrag/prefrag/internal/textsafe"
)

const benchEvidenceUsage = "bench evidence --file F [--systems baseline,aligner] [--limit N] [--json]"

// benchEvidenceOptions are `prefrag bench evidence`'s.
type benchEvidenceOptions struct {
	File    string // HotpotQA or 2WikiMultiHopQA questions
	Systems []string
	Limit   int
	Out     outputFlags
}

func parseBenchEvidence(e *env, args []string) (*benchEvidenceOptions, error) {
	fs := flag.NewFlagSet("bench evidence", flag.ContinueOnError)
	o := &benchEvidenceOptions{}
	fs.StringVar(&o.File, "file", "", "HotpotQA or 2WikiMultiHopQA questions: a JSON array or JSON Lines with question, answer, supporting_facts, context")
	systems := fs.String("systems", strings.Join(evidence.Systems(), ","), "comma-separated systems: baseline (naive lexical overlap), aligner")
	fs.IntVar(&o.Limit, "limit", 0, "use only the first N questions (0: all)")
	out := bindJSON(fs, "print one JSON object")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpFlags(e.stdout, fs, benchEvidenceUsage)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	o.Out = *out
	if len(pos) > 0 {
		return nil, usagef("bench evidence takes no positional arguments (got %q)", pos[0])
	}
	if o.File == "" {
		return nil, usagef("bench evidence needs --file (e.g. ../shared/data/multihop/migres-dev200/hotpot.json)")
	}
	if o.Limit < 0 {
		return nil, usagef("--limit must not be negative")
	}
	o.Systems, err = evidenceSystems(*systems)
	return o, err
}

// evidenceSystems parses a comma-separated list of the evidence
// benchmark's systems.
func evidenceSystems(list string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if !slices.Contains(evidence.Systems(), n) {
			return nil, usagef("unknown system %q (one of %s)", n, strings.Join(evidence.Systems(), ", "))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, usagef("no system named")
	}
	return names, nil
}

// runBenchEvidence measures the evidence aligner on HotpotQA or
// 2WikiMultiHopQA questions: question plus gold answer is one claim citing
// each gold paragraph; the quoted sentences are scored against
// supporting_facts.
func runBenchEvidence(e *env, o *benchEvidenceOptions) error {
	ds, err := evidence.LoadFile(o.File)
	if err != nil {
		return usagef("%v", err)
	}
	if o.Limit > 0 && o.Limit < len(ds.Questions) {
		ds.Questions = ds.Questions[:o.Limit]
	}
	rows, err := evidence.Run(e.ctx, ds, o.Systems)
	if err != nil {
		return err
	}
	if o.Out.JSON {
		b, _ := json.Marshal(struct {
			File      string `json:"file"`
			Questions int    `json:"questions"`
			Skipped   int    `json:"skipped"`
			BadFacts  int    `json:"bad_facts"`
			// BadFactRecords: skipped records whose supporting facts all
			// name no sentence of their context.
			BadFactRecords int            `json:"bad_fact_records"`
			Rows           []evidence.Row `json:"rows"`
		}{o.File, len(ds.Questions), ds.Skipped, ds.BadFacts, ds.BadFactRecords, rows})
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	printBenchEvidence(e, o.File, ds, rows)
	return nil
}

// printBenchEvidence prints the evidence benchmark's table.
func printBenchEvidence(e *env, file string, ds *evidence.Dataset, rows []evidence.Row) {
	w := e.stdout
	fmt.Fprintf(w, "evidence benchmark: %s, %d questions (question + gold answer as one claim citing the gold paragraphs)", textsafe.ForTerminal(file), len(ds.Questions))
	if n := ds.Skipped - ds.BadFactRecords; n > 0 {
		fmt.Fprintf(w, "; %d records without question, answer, context or supporting facts skipped", n)
	}
	if ds.BadFactRecords > 0 {
		fmt.Fprintf(w, "; %d records skipped because no supporting fact of theirs names a sentence of their context", ds.BadFactRecords)
	}
	fmt.Fprintln(w)
	if ds.BadFacts > 0 {
		fmt.Fprintf(w, "%d supporting facts name no sentence of their context (first: %s)\n", ds.BadFacts, textsafe.OneLine(ds.FirstBadFact))
	}
	fmt.Fprintf(w, "%-9s %6s %6s %6s %8s %6s %9s %9s %10s %14s\n", "system", "P", "R", "F1", "micro F1", "exact", "gold sup", "distr sup", "distr weak", "µs/claim p50")
	for _, r := range rows {
		fmt.Fprintf(w, "%-9s %6.3f %6.3f %6.3f %8.3f %6.3f %9.3f %9.3f %10.3f %14.1f\n", r.System, r.Precision, r.Recall, r.F1, r.MicroF1,
			r.ExactMatch, r.GoldSupported, r.DistractorSupported, r.DistractorWeak, r.MedianUS)
	}
	fmt.Fprintln(w, "P/R/F1: supporting sentences, averaged over questions; exact: questions with exactly the supporting sentences;")
	fmt.Fprintln(w, "gold/distr sup: share of gold/distractor paragraphs marked supported (each distractor cited next to the gold ones);")
	fmt.Fprintln(w, "µs/claim: wall time to index the question's paragraphs and align the claim")
}
