package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/prefrag/prefrag/sources/local"
)

// Scale corpus: the real paragraphs of the multi-hop pools, then passages
// resampled from them, up to the asked size.
const (
	scaleMinWords = 100
	scaleMaxWords = 140
	// scaleQueries is the pool whose questions time the queries.
	scaleQueries = "migres-hotpotqa"
)

// scaleSources reads every multi-hop pool under dataDir: their paragraphs,
// without duplicates across pools, and the questions of scaleQueries.
func scaleSources(dataDir string) ([]Doc, []Query, error) {
	var docs []Doc
	var queries []Query
	seen := make(map[string]bool)
	for _, f := range multihopFiles {
		ds, err := LoadPool(dataDir, f.name, f.path, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", f.name, err)
		}
		for _, d := range ds.Docs {
			k := d.Title + "\x00" + d.Text
			if !seen[k] {
				seen[k] = true
				docs = append(docs, d)
			}
		}
		if f.name == scaleQueries {
			queries = ds.Queries
		}
	}
	if len(docs) == 0 || len(queries) == 0 {
		return nil, nil, fmt.Errorf("no paragraphs or questions under %s/multihop", dataDir)
	}
	return docs, queries, nil
}

// corpusStats describe a generated corpus.
type corpusStats struct {
	Passages  int
	Real      int
	Words     int64
	SizeBytes int64
}

// writeScaleCorpus writes n passages to path as .jsonl, one at a time (the
// corpus is never in memory): the real paragraphs first (ids r0000001…),
// then synthetic ones (ids s0000001…) of 100 to 140 words resampled from
// them with seed. Paragraphs longer than local.JSONLSplitWords words are
// left out, so that every line is one passage for both engines.
func writeScaleCorpus(ctx context.Context, path string, real []Doc, n int, seed uint64) (corpusStats, error) {
	var st corpusStats
	f, err := os.Create(path)
	if err != nil {
		return st, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	put := func(d Doc) error {
		st.Passages++
		st.Words += int64(len(strings.Fields(d.Text)))
		return enc.Encode(d)
	}
	for i := 0; i < len(real) && st.Passages < n; i++ {
		d := real[i]
		if len(strings.Fields(d.Text)) > local.JSONLSplitWords {
			continue // prefrag would split it: keep one passage a line
		}
		d.ID = fmt.Sprintf("r%07d", i+1)
		if err := put(d); err != nil {
			return st, err
		}
	}
	st.Real = st.Passages
	sy := newSynthesizer(real, seed, scaleMinWords, scaleMaxWords)
	for i := 1; st.Passages < n && sy != nil; i++ {
		if i%10000 == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		if err := put(sy.next(fmt.Sprintf("s%07d", i))); err != nil {
			return st, err
		}
	}
	if err := w.Flush(); err != nil {
		return st, err
	}
	if err := f.Close(); err != nil {
		return st, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return st, err
	}
	st.SizeBytes = info.Size()
	return st, nil
}

// readQueries reads the queries file a parent hands a child: one query a
// line.
func readQueries(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func writeQueries(path string, qs []Query) error {
	var sb strings.Builder
	for _, q := range qs {
		sb.WriteString(strings.Join(strings.Fields(q.Text), " "))
		sb.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}
