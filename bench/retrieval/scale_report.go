package retrieval

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prefrag/prefrag/internal/textsafe"
)

// WriteText prints the scale report as one table, an engine a row.
func (r *ScaleReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("prefrag bench retrieval --scale %d — data %s\n", r.Passages, textsafe.ForTerminal(r.DataDir))
	p("%s\n", r.Env)
	if r.Load != "" {
		p("%s\n", r.Load)
	}
	p("corpus: %d passages (%d real multi-hop paragraphs, the rest resampled from them, seed %d), %.0f words on average, %.0f MiB of .jsonl\n",
		r.Passages, r.Real, r.Seed, r.AvgWords, mib(r.CorpusBytes))
	p("queries: %d HotpotQA questions, top-10, stored title and text fetched; each build and each query session in its own process\n\n", r.Queries)
	p("system\tbuild s\tpassages/s\tmerge s\tbuild CPU\tbuild RSS MiB (heap + files)\tsize MiB\tsegments\tcold ms\tp50/p99 ms (1 proc)\tp50/p99 ms (2 procs)\tquery RSS MiB (heap + files)\tlive heap MiB\n")
	for _, s := range r.Rows {
		p("%s\t%.1f\t%.0f\t%.1f\t%.2f\t%.0f (%.0f + %.0f)\t%.0f\t%d\t%.0f\t%.1f / %.1f\t%.1f / %.1f\t%.0f (%.0f + %.0f)\t%.0f\n", s.System, s.BuildSeconds, s.PassagesPerSec,
			s.MergeSeconds, s.BuildCPU, s.BuildRSSMiB, s.BuildAnonMiB, s.BuildFileMiB, mib(s.SizeBytes), s.Segments, s.ColdMs, s.P50ms1, s.P99ms1, s.P50ms2, s.P99ms2, s.QueryRSSMiB, s.QueryAnonMiB, s.QueryFileMiB, s.QueryHeapMiB)
	}
	if len(r.Rows) > 0 && len(r.Rows[0].BuildsSeconds) > 1 {
		p("\nbuilds taking turns, %d each; a row has its fastest build and its highest peak RSS:\n", len(r.Rows[0].BuildsSeconds))
		for _, s := range r.Rows {
			p("  %s:", s.System)
			for _, b := range s.BuildsSeconds {
				p(" %.1fs", b)
			}
			p("\n")
		}
	}
	if r.Vectors != nil {
		r.Vectors.writeText(p, r.Rows[0])
	}
	p("\nprefrag builds at %.2f× stock Bleve's rate\n", r.BuildRatio)
	p("(%.0fs, %.0fs generating the corpus)\n", r.Duration, r.GenerateS)
	return tw.Flush()
}

// WriteJSON prints the report as one JSON object.
func (r *ScaleReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
