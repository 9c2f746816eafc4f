package retrieval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// WriteText prints the report as aligned tables: collection quality, pool
// quality, speed, then notes.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("prefrag bench retrieval — data %s\n", textsafe.ForTerminal(r.DataDir))
	p("%s\n", r.Env)
	if r.Load != "" {
		p("%s\n", r.Load)
	}
	p("bleve: the product's corpus (en analyzer, textbook BM25 k1 1.2 b 0.75 over title+text)\n")
	if r.FTS5 {
		p("fts5: SQLite FTS5 bm25() (k1 1.2 b 0.75), tokenize '%s', query words OR-ed\n", FTS5Tokenizer)
	}
	p("\n")

	var coll, pools []QualityRow
	for _, q := range r.Quality {
		if q.Kind == Pool.String() {
			pools = append(pools, q)
		} else {
			coll = append(coll, q)
		}
	}
	if len(coll) > 0 {
		p("Quality: test collections\n")
		p("dataset\tdocs\tqueries\tsystem\tnDCG@10\tnDCG@10 graded\trecall@100\n")
		for _, q := range coll {
			p("%s\t%d\t%d\t%s\t%s\t%s\t%s\n", q.Dataset, q.Docs, q.Queries, q.System,
				metric(q, MetricNDCG10), metric(q, MetricNDCG10Graded), metric(q, MetricRecall100))
		}
		p("\n")
	}
	if len(pools) > 0 {
		p("Quality: multi-hop paragraph pools (supporting-paragraph recall)\n")
		p("dataset\tparagraphs\tquestions\tsystem\trecall@5\trecall@10\n")
		for _, q := range pools {
			p("%s\t%d\t%d\t%s\t%s\t%s\n", q.Dataset, q.Docs, q.Queries, q.System, metric(q, MetricRecall5), metric(q, MetricRecall10))
		}
		p("\n")
	}
	if len(r.Speed) > 0 {
		p("Speed: index build and warm top-10 queries, in process\n")
		p("dataset\tsystem\tdocs\tpassages\tavg words\tbuild s\tdocs/s\tsize MB\tqueries\tp50 ms\tp99 ms\n")
		for _, s := range r.Speed {
			p("%s\t%s\t%d\t%d\t%.0f\t%.2f\t%.0f\t%.1f\t%d\t%.3f\t%.3f\n", s.Dataset, s.System, s.Docs, s.Passages,
				s.AvgWords, s.BuildSeconds, s.DocsPerSec, float64(s.SizeBytes)/(1<<20), s.Samples, s.P50ms, s.P99ms)
		}
		p("\n")
	}
	if len(r.Notes) > 0 {
		p("Notes:\n")
		for _, n := range r.Notes {
			p("- %s\n", textsafe.ForTerminal(n))
		}
	}
	p("(%.0fs)\n", r.Duration)
	return tw.Flush()
}

func metric(q QualityRow, name string) string {
	v, ok := q.Metrics[name]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.4f", v)
}

// WriteJSON prints the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ParseDatasets splits a comma-separated list of dataset names.
func ParseDatasets(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}
