package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prefrag/prefrag/engine"
)

// Summary aggregates records per dataset and strategy.
type Summary struct {
	Datasets []DatasetSummary `json:"datasets"`
}

// DatasetSummary is one dataset's table.
type DatasetSummary struct {
	Name  string `json:"name"`
	YesNo bool   `json:"yes_no"`
	Rows  []Row  `json:"rows"`
}

// Row is one strategy on one dataset. Acc, F1, EM and Avg are percentages
// with two decimals; counts are totals over the questions.
type Row struct {
	Strategy  string  `json:"strategy"`
	Questions int     `json:"questions"`
	Acc       float64 `json:"acc"`
	F1        float64 `json:"f1"`
	EM        float64 `json:"em"`
	Avg       float64 `json:"avg"`

	TotalLocal int `json:"total_local_num"`
	TotalWeb   int `json:"total_web_num"`
	Total      int `json:"total_num"`
	UsedLocal  int `json:"used_local_num"`
	Used       int `json:"used_num"`

	LLMCalls     int   `json:"llm_calls"`
	StepCalls    int   `json:"step_calls"`
	JudgeCalls   int   `json:"judge_calls"`
	ForcedCalls  int   `json:"forced_calls"`
	PromptTokens int   `json:"prompt_tokens"`
	CachedTokens int   `json:"cached_prompt_tokens"`
	OutputTokens int   `json:"output_tokens"`
	Forced       int   `json:"forced_answers"`
	WallP50      int64 `json:"wall_p50_ms"`
	WallP90      int64 `json:"wall_p90_ms"`
	// SupportRecall is the mean supporting-paragraph recall in %, over the
	// SupportN questions that mark supporting paragraphs.
	SupportRecall float64 `json:"support_recall"`
	SupportN      int     `json:"support_n"`
	// Refinements counts observation refinements under the context budget.
	Refinements int `json:"refinements"`
	// NoRetrieval counts the questions answered without any retrieval (the
	// retrieval gate's direct answers; every question of no-retrieval);
	// NoRetrievalShare is their share in %. ProxyCalls are the gate's calls.
	NoRetrieval      int     `json:"answered_without_retrieval"`
	NoRetrievalShare float64 `json:"answered_without_retrieval_pct"`
	ProxyCalls       int     `json:"proxy_calls"`
}

// StrategyLabel is the paper's name of a strategy (the strategy table's
// label), the name itself when it has none.
func StrategyLabel(name string) string {
	if st, ok := engine.LookupStrategy(name); ok && st.Label != "" {
		return st.Label
	}
	return name
}

// strategyRank is the paper's row order (the strategy table's); names not
// in the table follow.
func strategyRank(name string) int {
	table := engine.Strategies()
	for i, st := range table {
		if st.Name == name {
			return i
		}
	}
	return len(table)
}

// Summarize aggregates records. Sums run in question order, as the
// reference sums its per-question scores.
func Summarize(records []Record) Summary {
	type key struct{ dataset, strategy string }
	groups := map[key][]Record{}
	yesNo := map[string]bool{}
	var datasets []string
	for _, r := range records {
		k := key{r.Dataset, r.Strategy}
		if _, ok := yesNo[r.Dataset]; !ok {
			datasets = append(datasets, r.Dataset)
			yesNo[r.Dataset] = true
		}
		if r.Metric != MetricYesNo {
			yesNo[r.Dataset] = false
		}
		groups[k] = append(groups[k], r)
	}
	sort.Strings(datasets)
	var s Summary
	for _, d := range datasets {
		ds := DatasetSummary{Name: d, YesNo: yesNo[d]}
		for k, recs := range groups {
			if k.dataset == d {
				ds.Rows = append(ds.Rows, summarizeRows(k.strategy, recs))
			}
		}
		sort.Slice(ds.Rows, func(i, j int) bool {
			a, b := ds.Rows[i].Strategy, ds.Rows[j].Strategy
			if strategyRank(a) != strategyRank(b) {
				return strategyRank(a) < strategyRank(b)
			}
			return a < b
		})
		s.Datasets = append(s.Datasets, ds)
	}
	return s
}

func summarizeRows(strategy string, recs []Record) Row {
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Index < recs[j].Index })
	row := Row{Strategy: strategy, Questions: len(recs)}
	var acc, em, f1, recall float64
	walls := make([]int64, 0, len(recs))
	for _, r := range recs {
		acc += r.Acc
		em += r.EM
		f1 += r.F1
		c := r.Counts
		row.TotalLocal += c.LocalRetrievals
		row.TotalWeb += c.WebRetrievals
		row.UsedLocal += c.UsedLocalRetrievals
		row.Used += c.UsedRetrievals
		row.LLMCalls += c.LLMCalls
		row.StepCalls += c.StepCalls
		row.JudgeCalls += c.JudgeCalls
		row.ForcedCalls += c.ForcedCalls
		row.PromptTokens += c.PromptTokens
		row.CachedTokens += c.CachedPromptTokens
		row.OutputTokens += c.OutputTokens
		row.Refinements += c.Refinements
		if r.Forced {
			row.Forced++
		}
		if r.SupportRecall != nil {
			recall += *r.SupportRecall
			row.SupportN++
		}
		walls = append(walls, r.WallMillis)
		row.addGate(c)
	}
	row.Total = row.TotalLocal + row.TotalWeb
	row.Acc, row.EM, row.F1 = Percent(acc, len(recs)), Percent(em, len(recs)), Percent(f1, len(recs))
	row.Avg = Round2((row.Acc + row.F1 + row.EM) / 3)
	row.SupportRecall = Percent(recall, row.SupportN)
	row.NoRetrievalShare = Percent(float64(row.NoRetrieval), len(recs))
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	row.WallP50, row.WallP90 = nearestRank(walls, 0.5), nearestRank(walls, 0.9)
	return row
}

// nearestRank is the p-quantile of sorted values by the nearest-rank
// method (the smallest value with at least p of the values at or below it).
func nearestRank(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// WriteSummary reads the records under dir and writes summary.md and
// summary.json next to them. infos describe the runs per dataset (from
// run.json); they may be nil.
func WriteSummary(dir string, infos map[string]RunInfo) (Summary, string, error) {
	recs, err := LoadResults(dir)
	if err != nil {
		return Summary{}, "", err
	}
	s := Summarize(recs)
	md := s.Markdown(infos)
	if err := writeFileAtomic(filepath.Join(dir, "summary.md"), []byte(md)); err != nil {
		return s, md, err
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := writeFileAtomic(filepath.Join(dir, "summary.json"), append(b, '\n')); err != nil {
		return s, md, err
	}
	return s, md, nil
}

// Markdown renders the summary: an overview laid out like the paper's
// Table 1 when there are several datasets, then per dataset the answer
// quality (Table 1), the retrieval counts (Table 7) with PrefRAG's deltas
// against every baseline, and the cost of each strategy.
func (s Summary) Markdown(infos map[string]RunInfo) string {
	var b strings.Builder
	b.WriteString("# prefrag evaluation\n\n")
	b.WriteString("Acc., F1 and EM are percentages (100 × mean, two decimals) computed as the PrefRAG reference code does; Avg. is their mean. ")
	b.WriteString("Retrieval counts are totals over the questions, as in the paper's Table 7. Δ rows are PrefRAG minus the baseline.\n")
	if len(s.Datasets) == 0 {
		b.WriteString("\nNo results yet.\n")
		return b.String()
	}
	if len(s.Datasets) > 1 {
		s.writeOverview(&b)
	}
	for _, d := range s.Datasets {
		d.write(&b, infos[d.Name])
	}
	return b.String()
}

func (s Summary) writeOverview(b *strings.Builder) {
	b.WriteString("\n## Overview (Table 1 layout)\n\n| Method |")
	sep := "|---|"
	for _, d := range s.Datasets {
		if d.YesNo {
			fmt.Fprintf(b, " %s Acc. |", cell(d.Name))
			sep += "---:|"
			continue
		}
		fmt.Fprintf(b, " %s Acc. | F1 | EM | Avg. |", cell(d.Name))
		sep += "---:|---:|---:|---:|"
	}
	b.WriteString("\n" + sep + "\n")
	var names []string
	seen := map[string]bool{}
	for _, d := range s.Datasets {
		for _, r := range d.Rows {
			if !seen[r.Strategy] {
				seen[r.Strategy] = true
				names = append(names, r.Strategy)
			}
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return strategyRank(names[i]) < strategyRank(names[j]) })
	for _, n := range names {
		fmt.Fprintf(b, "| %s |", rowLabel(n))
		for _, d := range s.Datasets {
			r, ok := d.row(n)
			switch {
			case !ok && d.YesNo:
				b.WriteString(" – |")
			case !ok:
				b.WriteString(" – | – | – | – |")
			case d.YesNo:
				fmt.Fprintf(b, " %.2f |", r.Acc)
			default:
				fmt.Fprintf(b, " %.2f | %.2f | %.2f | %.2f |", r.Acc, r.F1, r.EM, r.Avg)
			}
		}
		b.WriteString("\n")
	}
}

func (d DatasetSummary) row(strategy string) (Row, bool) {
	for _, r := range d.Rows {
		if r.Strategy == strategy {
			return r, true
		}
	}
	return Row{}, false
}

func rowLabel(strategy string) string {
	return fmt.Sprintf("%s (`%s`)", StrategyLabel(strategy), strategy)
}

func (d DatasetSummary) write(b *strings.Builder, info RunInfo) {
	fmt.Fprintf(b, "\n## %s\n\n", cell(d.Name))
	if line := info.describe(); line != "" {
		b.WriteString(line + "\n\n")
	}
	if d.YesNo {
		b.WriteString("A yes/no dataset: accuracy counts a gold answer between word boundaries in the prediction.\n\n")
	}
	pref, hasPref := d.row(engine.StrategyPrefRAG)

	b.WriteString("### Answer quality (Table 1)\n\n")
	if d.YesNo {
		b.WriteString("| Method | Questions | Acc. |\n|---|---:|---:|\n")
	} else {
		b.WriteString("| Method | Questions | Acc. | F1 | EM | Avg. |\n|---|---:|---:|---:|---:|---:|\n")
	}
	for _, r := range d.Rows {
		if d.YesNo {
			fmt.Fprintf(b, "| %s | %d | %.2f |\n", rowLabel(r.Strategy), r.Questions, r.Acc)
		} else {
			fmt.Fprintf(b, "| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", rowLabel(r.Strategy), r.Questions, r.Acc, r.F1, r.EM, r.Avg)
		}
	}
	if hasPref {
		for _, r := range d.Rows {
			if r.Strategy == engine.StrategyPrefRAG {
				continue
			}
			label := "Δ PrefRAG → " + StrategyLabel(r.Strategy)
			if d.YesNo {
				fmt.Fprintf(b, "| %s | | %s |\n", label, deltaPct(pref.Acc-r.Acc))
			} else {
				fmt.Fprintf(b, "| %s | | %s | %s | %s | %s |\n", label, deltaPct(pref.Acc-r.Acc), deltaPct(pref.F1-r.F1), deltaPct(pref.EM-r.EM), deltaPct(pref.Avg-r.Avg))
			}
		}
	}

	b.WriteString("\n### Retrieval counts (Table 7)\n\n")
	b.WriteString("| Method | Total Local Num | Total Web Num | Total Num | Used Local Num | Used Num |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range d.Rows {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d |\n", rowLabel(r.Strategy), r.TotalLocal, r.TotalWeb, r.Total, r.UsedLocal, r.Used)
	}
	if hasPref {
		for _, r := range d.Rows {
			if r.Strategy == engine.StrategyPrefRAG || r.Total == 0 {
				continue
			}
			fmt.Fprintf(b, "| Δ PrefRAG → %s | %s | %s | %s | %s | %s |\n", StrategyLabel(r.Strategy),
				deltaInt(pref.TotalLocal-r.TotalLocal), deltaInt(pref.TotalWeb-r.TotalWeb), deltaInt(pref.Total-r.Total),
				deltaInt(pref.UsedLocal-r.UsedLocal), deltaInt(pref.Used-r.Used))
		}
	}

	b.WriteString("\n### Cost\n\n")
	b.WriteString("| Method | LLM calls | step | judge | forced | prompt tokens | cached prompt tokens | output tokens | wall p50 (ms) | wall p90 (ms) | forced answers | supporting recall (%) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range d.Rows {
		recall := "–"
		if r.SupportN > 0 {
			recall = fmt.Sprintf("%.2f", r.SupportRecall)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", rowLabel(r.Strategy),
			r.LLMCalls, r.StepCalls, r.JudgeCalls, r.ForcedCalls, r.PromptTokens, r.CachedTokens, r.OutputTokens,
			r.WallP50, r.WallP90, r.Forced, recall)
	}
	d.writeRefinements(b)
	gateTable(b, d.Rows)
}

// deltaPct writes a difference of percentages as the paper does: its
// magnitude with ↑ or ↓.
func deltaPct(v float64) string {
	v = Round2(v)
	switch {
	case v > 0:
		return fmt.Sprintf("%.2f↑", v)
	case v < 0:
		return fmt.Sprintf("%.2f↓", -v)
	}
	return "0.00"
}

func deltaInt(v int) string {
	switch {
	case v > 0:
		return fmt.Sprintf("%d↑", v)
	case v < 0:
		return fmt.Sprintf("%d↓", -v)
	}
	return "0"
}

// cell keeps a value from breaking a Markdown table.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", "\\|")
}

// ReadRunInfos reads run.json of an output folder, keyed by dataset (empty
// when absent).
func ReadRunInfos(dir string) (map[string]RunInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if os.IsNotExist(err) {
		return map[string]RunInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	infos := map[string]RunInfo{}
	if err := json.Unmarshal(b, &infos); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "run.json"), err)
	}
	return infos, nil
}
