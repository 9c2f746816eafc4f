package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/eval/enginebench"
	"github.com/prefrag/prefrag/internal/testdouble/evaltest"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
)

// TestEvalOnHotpotQA runs `prefrag eval` on 20 questions of a QA file (the
// project's own, and the shared HotpotQA pool where it exists) with the
// fake LLM answering as a gold-answering oracle, on a corpus pooled from
// the same file with half of the supporting paragraphs held out (served by
// the search-engine stand-in), then checks every number of the two tables
// against the per-question records, and that a second run resumes without
// asking the model anything.
func TestEvalOnHotpotQA(t *testing.T) {
	for _, data := range qaFiles(t) {
		t.Run(eval.DatasetName(data), func(t *testing.T) { evalOnQAFile(t, data) })
	}
}

// evalStrategiesRun are the strategies TestEvalOnHotpotQA evaluates.
var evalStrategiesRun = []string{engine.StrategyNoRetrieval, engine.StrategyVanillaLocal, engine.StrategyVanillaMix, engine.StrategyReActMix, engine.StrategyPrefRAG, engine.StrategyPrefRAGGated}

// evalQuestions is how many questions TestEvalOnHotpotQA asks.
const evalQuestions = 20

func evalOnQAFile(t *testing.T, data string) {
	fake := poolQAFile(t, data)
	out := filepath.Join(t.TempDir(), "results")
	args := []string{"eval", "--data", data, "--corpus", "hotpot20", "--limit", strconv.Itoa(evalQuestions),
		"--strategies", strings.Join(evalStrategiesRun, ","), "--llm-url", strings.Replace(fake.URL(), "http://", "http://evaluser:s3cret@", 1), "--model", fakellm.DefaultModel,
		"--out", out, "--parallel", "2"}
	md := firstEvalRun(t, args, out)
	checkNoSecretIn(t, out)
	quality, byStrategy := checkEvalTables(t, md, out)
	checkPrefRAGBeatsNoRetrieval(t, md, quality, byStrategy)
	checkGateSummary(t, md, byStrategy[engine.StrategyPrefRAGGated], evalQuestions)
	checkEvalReruns(t, fake, args, out, md)
}

// poolQAFile points prefrag at a fresh home, pools corpus hotpot20 from
// the first questions of data with half the supporting paragraphs held
// out, and starts the fake LLM as an oracle for those questions.
func poolQAFile(t *testing.T, data string) *fakellm.Server {
	t.Setenv("PREFRAG_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PREFRAG_CONFIG", "")
	ds, err := eval.LoadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	// The oracle knows every fourth answer without documents (the retrieval
	// gate of prefrag-gated then answers directly).
	fake := fakellm.New(t, evaltest.OracleResponder(enginebench.NewOracle(ds.Questions[:evalQuestions], 1).Know(4)))
	cfg, err := config.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, cfg: cfg, ctx: context.Background()}
	qa := &indexQAFlags{file: data, holdout: 0.5, holdoutSeed: 1, limit: evalQuestions}
	if err := runIndexFromQA(e, "hotpot20", qa, false); err != nil {
		t.Fatalf("index --from-qa: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "from 20 questions") || !strings.Contains(stdout.String(), "held out") {
		t.Errorf("index output: %s", stdout.String())
	}
	return fake
}

// firstEvalRun runs the evaluation, checks what it says on stderr and that
// stdout is the summary, and returns the summary.
func firstEvalRun(t *testing.T, args []string, out string) string {
	var stdout, stderr bytes.Buffer
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("eval exited %d\nstderr:\n%s", code, stderr.String())
	}
	// No web policy was chosen: the stand-in is on this machine, so the
	// evaluation still searches it (it does not act as --web never).
	if strings.Contains(stderr.String(), "acts as --web never") {
		t.Errorf("with a held-out stand-in and no web choice the evaluation turned the web off:\n%s", stderr.String())
	}
	for _, want := range []string{"holds out 50% of the supporting paragraphs", "stand-in at http://127.0.0.1:", "prefrag (5/6) · 100/120 questions", "prefrag-gated (6/6) · 120/120 questions"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(md) {
		t.Error("stdout is not the summary")
	}
	return string(md)
}

// checkNoSecretIn checks that no file of the results folder holds the LLM
// URL's password.
func checkNoSecretIn(t *testing.T, out string) {
	files := []string{"summary.md", "summary.json", "run.json"}
	for _, s := range evalStrategiesRun {
		files = append(files, s+".jsonl")
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || bytes.Contains(b, []byte("s3cret")) {
			t.Errorf("%s holds the LLM URL's password (or cannot be read: %v)", f, err)
		}
	}
}

// checkEvalTables checks every strategy's rows of Table 1 and Table 7
// against its per-question records; it returns Table 1 and the records.
func checkEvalTables(t *testing.T, md, out string) (map[string][]string, map[string][]eval.Record) {
	quality := tableRows(t, md, "### Answer quality (Table 1)")
	counts := tableRows(t, md, "### Retrieval counts (Table 7)")
	byStrategy := map[string][]eval.Record{}
	for _, s := range evalStrategiesRun {
		recs := readRecordsFile(t, filepath.Join(out, s+".jsonl"))
		if len(recs) != evalQuestions {
			t.Fatalf("%s.jsonl has %d records, want %d", s, len(recs), evalQuestions)
		}
		byStrategy[s] = recs
		label := eval.StrategyLabel(s) + " (`" + s + "`)"
		q, ok := quality[label]
		if !ok {
			t.Fatalf("no Table 1 row %q in\n%s", label, md)
		}
		wantQ, wantCounts := recomputeRows(t, s, recs)
		if strings.Join(q, " ") != strings.Join(wantQ, " ") {
			t.Errorf("%s Table 1 row %q, recomputed %q", s, q, wantQ)
		}
		if strings.Join(counts[label], " ") != strings.Join(wantCounts, " ") {
			t.Errorf("%s Table 7 row %q, recomputed %q", s, counts[label], wantCounts)
		}
	}
	return quality, byStrategy
}

// recomputeRows recomputes strategy s's rows of Table 1 and Table 7 from
// its per-question records, independently of the package's aggregation.
func recomputeRows(t *testing.T, s string, recs []eval.Record) (quality, counts []string) {
	var acc, em, f1 float64
	var local, web, usedLocal, used int
	for _, r := range recs {
		if r.ID == "" || r.Question == "" || r.Strategy != s || len(r.Gold) == 0 || len(r.Events) == 0 {
			t.Fatalf("incomplete record %+v", r)
		}
		sc := eval.Score(r.Prediction, r.Gold, false)
		if sc.Acc != r.Acc || sc.EM != r.EM || sc.F1 != r.F1 {
			t.Errorf("%s %s: stored scores %v/%v/%v, recomputed %+v", s, r.ID, r.Acc, r.EM, r.F1, sc)
		}
		acc += r.Acc
		em += r.EM
		f1 += r.F1
		local += r.Counts.LocalRetrievals
		web += r.Counts.WebRetrievals
		usedLocal += r.Counts.UsedLocalRetrievals
		used += r.Counts.UsedRetrievals
	}
	pct := func(sum float64) float64 { return eval.Round2(100 * sum / float64(len(recs))) }
	a, f, x := pct(acc), pct(f1), pct(em)
	quality = []string{strconv.Itoa(len(recs)), fmt.Sprintf("%.2f", a), fmt.Sprintf("%.2f", f), fmt.Sprintf("%.2f", x), fmt.Sprintf("%.2f", eval.Round2((a+f+x)/3))}
	counts = []string{strconv.Itoa(local), strconv.Itoa(web), strconv.Itoa(local + web), strconv.Itoa(usedLocal), strconv.Itoa(used)}
	return quality, counts
}

// checkPrefRAGBeatsNoRetrieval: PrefRAG's accuracy is above no
// retrieval's, it switched to the stand-in web, and the summary has the
// delta rows.
func checkPrefRAGBeatsNoRetrieval(t *testing.T, md string, quality map[string][]string, byStrategy map[string][]eval.Record) {
	accOf := func(s string) float64 {
		v, _ := strconv.ParseFloat(quality[eval.StrategyLabel(s)+" (`"+s+"`)"][1], 64)
		return v
	}
	if accOf(engine.StrategyPrefRAG) <= accOf(engine.StrategyNoRetrieval) {
		t.Errorf("PrefRAG Acc %v not above no retrieval %v", accOf(engine.StrategyPrefRAG), accOf(engine.StrategyNoRetrieval))
	}
	var prefWeb int
	for _, r := range byStrategy[engine.StrategyPrefRAG] {
		prefWeb += r.Counts.WebRetrievals
	}
	if prefWeb == 0 {
		t.Error("PrefRAG never switched to the stand-in web although half the supporting paragraphs are held out")
	}
	if !strings.Contains(md, "Δ PrefRAG → No retrieval") {
		t.Error("no delta rows")
	}
}

// checkEvalReruns: a second run resumes without asking the model
// anything, --report rewrites the summary from the records alone, and
// other settings into the same folder are refused.
func checkEvalReruns(t *testing.T, fake *fakellm.Server, args []string, out, md string) {
	var stdout, stderr bytes.Buffer
	before := len(fake.Generations())
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("second eval exited %d\n%s", code, stderr.String())
	}
	if after := len(fake.Generations()); after != before {
		t.Errorf("the resumed run made %d generation requests", after-before)
	}
	if got := readRecordsFile(t, filepath.Join(out, "prefrag.jsonl")); len(got) != evalQuestions {
		t.Errorf("after resuming prefrag.jsonl has %d records", len(got))
	}

	os.Remove(filepath.Join(out, "summary.md"))
	stdout.Reset()
	if code := Main([]string{"eval", "--report", "--out", out}, strings.NewReader(""), &stdout, &stderr); code != ExitOK || stdout.String() != md {
		t.Errorf("--report: exit %d, output differs from the first summary: %v", code, stdout.String() != md)
	}

	stderr.Reset()
	changed := append(append([]string{}, args...), "-k", "3")
	if code := Main(changed, strings.NewReader(""), &stdout, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "other settings") {
		t.Errorf("changed settings: exit %d, %s", code, stderr.String())
	}
}

func TestEvalUsageErrors(t *testing.T) {
	t.Setenv("PREFRAG_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PREFRAG_CONFIG", "")
	qa := filepath.Join(t.TempDir(), "qa.jsonl")
	os.WriteFile(qa, []byte(`{"question": "Q?", "answer": "A"}`+"\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "needs a QA file"},
		{[]string{"eval", "--data", qa, "--strategies", "prefrag,nope"}, "unknown strategy"},
		{[]string{"eval", "--data", qa, "--parallel", "0"}, "--parallel"},
		{[]string{"eval", "--data", qa, "--holdout-supporting", "2"}, "between 0 and 1"},
		{[]string{"eval", "--data", qa, "extra"}, "no positional"},
		{[]string{"eval", "--report", "--out", filepath.Join(t.TempDir(), "none")}, "no results folder"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := Main(c.args, strings.NewReader(""), &stdout, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
	// An unreachable LLM fails fast with exit 1.
	var stdout, stderr bytes.Buffer
	args := []string{"eval", "--data", qa, "--web", "never", "--llm-url", fakellm.ClosedURL(t), "--out", t.TempDir()}
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != ExitFailure || !strings.Contains(stderr.String(), "cannot reach") {
		t.Errorf("unreachable LLM: exit %d, %q", code, stderr.String())
	}
}

// tableRows reads the Markdown table under heading: label → cells.
func tableRows(t *testing.T, md, heading string) map[string][]string {
	t.Helper()
	i := strings.Index(md, heading)
	if i < 0 {
		t.Fatalf("no %q in\n%s", heading, md)
	}
	rows := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(md[i+len(heading):]))
	started := false
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows[cells[0]] = cells[1:]
	}
	return rows
}

func readRecordsFile(t *testing.T, path string) []eval.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []eval.Record
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r eval.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}
