package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/llm"
)

// scriptedBackend answers from a table, recording what it was asked.
type scriptedBackend struct {
	answers map[string]string // question text → prediction
	fail    map[string]error  // question text → error
	block   bool              // wait for cancellation after the first answer
	calls   atomic.Int64
	mu      sync.Mutex
	asked   []string
}

func (b *scriptedBackend) Answer(ctx context.Context, q Question, s engine.RunConfig, emit engine.Emitter) (string, engine.Result, error) {
	n := b.calls.Add(1)
	b.mu.Lock()
	b.asked = append(b.asked, s.Strategy+"/"+q.ID)
	b.mu.Unlock()
	if b.block && n > 1 {
		<-ctx.Done()
		return "", engine.Result{}, fmt.Errorf("%w: %w", engine.ErrCancelled, ctx.Err())
	}
	if err := b.fail[q.Text]; err != nil {
		return "", engine.Result{}, err
	}
	var ids []string
	for _, p := range q.Paragraphs {
		if p.Supporting {
			ids = append(ids, p.ID)
			break // one of the two supporting paragraphs
		}
	}
	emit(engine.Event{Payload: engine.SessionStart{Question: q.Text}})
	emit(engine.Event{Payload: engine.Token{Text: "ignored"}})
	emit(engine.Event{Step: 1, Payload: engine.Observation{Source: "local:x", DocIDs: ids}})
	c := engine.Counts{LLMCalls: 2, StepCalls: 2, LocalRetrievals: 1, UsedRetrievals: 1, UsedLocalRetrievals: 1}
	return "", engine.Result{Answer: b.answers[q.Text], Label: "CORRECT", Counts: c}, nil
}

func testDataset(n int) *Dataset {
	ds := &Dataset{Name: "toy", Path: "toy.jsonl", Format: FormatMuSiQue}
	for i := 0; i < n; i++ {
		q := Question{ID: fmt.Sprintf("q%d", i+1), Index: i, Text: fmt.Sprintf("Question %d?", i+1), Gold: []string{fmt.Sprintf("Answer %d", i+1)}}
		for j := 0; j < 3; j++ {
			title, text := fmt.Sprintf("T%d-%d", i, j), fmt.Sprintf("text %d %d", i, j)
			q.Paragraphs = append(q.Paragraphs, Paragraph{ID: ParagraphID(title, text), Title: title, Text: text, Supporting: j < 2})
		}
		ds.Questions = append(ds.Questions, q)
	}
	return ds
}

func newTestRunner(t *testing.T, ds *Dataset, b Backend, out string) *Runner {
	t.Helper()
	s := engine.DefaultRunConfig()
	s.Model = "m"
	r := &Runner{Dataset: ds, Strategies: []string{engine.StrategyVanillaLocal, engine.StrategyPrefRAG}, Settings: s,
		OutDir: out, Parallel: 3, Backend: b, Info: NewRunInfo(ds, s, Holdout{}, "h", config.SetupKeys())}
	if err := r.Prepare(); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunnerWritesScoredRecordsAndResumes(t *testing.T) {
	ds := testDataset(5)
	b := &scriptedBackend{answers: map[string]string{
		"Question 1?": "Answer 1", "Question 2?": "the answer 2.", "Question 3?": "no idea",
		"Question 4?": "Answer 4 and more", "Question 5?": "answer 5", "Question 6?": "Answer 6",
	}}
	out := t.TempDir()
	r := newTestRunner(t, ds, b, out)
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answered != 10 || rep.Skipped != 0 || len(rep.Failed) != 0 || b.calls.Load() != 10 {
		t.Fatalf("report %+v, %d calls", rep, b.calls.Load())
	}
	recs, err := ReadRecords(RecordFile(out, engine.StrategyPrefRAG))
	if err != nil || len(recs) != 5 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	byID := map[string]Record{}
	for _, rec := range recs {
		byID[rec.ID] = rec
		if rec.Dataset != "toy" || rec.Strategy != engine.StrategyPrefRAG || rec.Metric != MetricQA || rec.Model != "m" ||
			len(rec.Events) != 2 || rec.SupportRecall == nil || *rec.SupportRecall != 0.5 || rec.Counts.LLMCalls != 2 {
			t.Errorf("record %+v", rec)
		}
	}
	// q2: "the answer 2." contains "answer 2" lower-cased and normalises to
	// "answer 2"; q4 is contained but not exact: F1 = 2·(2/4·1)/(2/4+1).
	checks := map[string]Scores{"q1": {1, 1, 1}, "q2": {1, 1, 1}, "q3": {0, 0, 0}, "q4": {1, 0, 2.0 / 3}, "q5": {1, 1, 1}}
	for id, want := range checks {
		got := byID[id]
		if got.Acc != want.Acc || got.EM != want.EM || got.F1-want.F1 > 1e-12 || want.F1-got.F1 > 1e-12 {
			t.Errorf("%s scores %v/%v/%v, want %+v", id, got.Acc, got.EM, got.F1, want)
		}
	}

	// Nothing is left: a second run asks nothing.
	rep, err = newTestRunner(t, ds, b, out).Run(context.Background())
	if err != nil || rep.Skipped != 10 || rep.Answered != 0 || b.calls.Load() != 10 {
		t.Fatalf("resumed: %+v %v, %d calls", rep, err, b.calls.Load())
	}

	// A torn last line (a killed run) is cut and its question answered
	// again, with a sixth question added.
	f, _ := os.OpenFile(RecordFile(out, engine.StrategyPrefRAG), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"dataset":"toy","id":"q6","strat`)
	f.Close()
	rep, err = newTestRunner(t, testDataset(6), b, out).Run(context.Background())
	if err != nil || rep.Answered != 2 || rep.Skipped != 10 {
		t.Fatalf("after a torn line: %+v %v", rep, err)
	}
	recs, err = ReadRecords(RecordFile(out, engine.StrategyPrefRAG))
	if err != nil || len(recs) != 6 || recs[5].ID != "q6" {
		t.Fatalf("records after the torn line: %d %v", len(recs), err)
	}
}

func TestRunnerReportsFailuresAndRetriesThem(t *testing.T) {
	ds := testDataset(4)
	b := &scriptedBackend{answers: map[string]string{}, fail: map[string]error{
		"Question 2?": &engine.FatalError{Err: &llm.ServerError{Status: 500, Message: "boom"}},
	}}
	out := t.TempDir()
	r := newTestRunner(t, ds, b, out)
	var progress bytes.Buffer
	r.Progress = NewProgress(&progress, false)
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answered != 6 || len(rep.Failed) != 2 || !strings.Contains(rep.Failed[0], "q2") {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(progress.String(), "failed: ") || !strings.Contains(progress.String(), "8/8 questions") {
		t.Errorf("progress output:\n%s", progress.String())
	}
	b.fail = nil
	rep, err = newTestRunner(t, ds, b, out).Run(context.Background())
	if err != nil || rep.Answered != 2 || rep.Skipped != 6 {
		t.Fatalf("retry: %+v %v", rep, err)
	}
}

func TestRunnerStopsWhenTheLLMCannotServe(t *testing.T) {
	ds := testDataset(6)
	unreachable := &engine.FatalError{Err: &llm.UnreachableError{Backend: "ollama", Addr: "127.0.0.1:1", Err: errors.New("refused")}}
	b := &scriptedBackend{fail: map[string]error{}}
	for _, q := range ds.Questions {
		b.fail[q.Text] = unreachable
	}
	r := newTestRunner(t, ds, b, t.TempDir())
	_, err := r.Run(context.Background())
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if n := b.calls.Load(); n > int64(r.Parallel)+1 {
		t.Errorf("%d questions were tried after the server was found unreachable", n)
	}
}

func TestRunnerCancellationKeepsWhatWasAnswered(t *testing.T) {
	ds := testDataset(5)
	b := &scriptedBackend{answers: map[string]string{}, block: true}
	out := t.TempDir()
	r := newTestRunner(t, ds, b, out)
	r.Parallel = 1
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for b.calls.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	rep, err := r.Run(ctx)
	if !errors.Is(err, context.Canceled) || rep.Answered != 1 {
		t.Fatalf("rep %+v err %v", rep, err)
	}
	recs, _ := ReadRecords(RecordFile(out, engine.StrategyVanillaLocal))
	if len(recs) != 1 {
		t.Errorf("%d records kept", len(recs))
	}
}

func TestPrepareRefusesOtherSettings(t *testing.T) {
	ds := testDataset(1)
	out := t.TempDir()
	newTestRunner(t, ds, &scriptedBackend{}, out)
	s := engine.DefaultRunConfig()
	s.Model, s.K = "m", 3
	r := &Runner{Dataset: ds, OutDir: out, Info: NewRunInfo(ds, s, Holdout{Fraction: 0.5, Seed: 1}, "h", config.SetupKeys())}
	err := r.Prepare()
	if !errors.Is(err, ErrSettingsChanged) || !strings.Contains(err.Error(), "k 5 (now 3)") || !strings.Contains(err.Error(), "holdout unset") {
		t.Fatalf("err = %v", err)
	}
	// Another dataset in the same folder is fine.
	other := testDataset(1)
	other.Name = "other"
	r = &Runner{Dataset: other, OutDir: out, Info: NewRunInfo(other, s, Holdout{}, "h", config.SetupKeys())}
	if err := r.Prepare(); err != nil {
		t.Fatal(err)
	}
	infos, err := ReadRunInfos(out)
	if err != nil || len(infos) != 2 {
		t.Fatalf("run.json: %v %v", infos, err)
	}
}

func TestReadRecords(t *testing.T) {
	good := `{"dataset":"d","id":"a","strategy":"prefrag","acc":1}` + "\n"
	cases := []struct {
		name    string
		content string
		n       int
		bad     bool
	}{
		{"empty", "", 0, false},
		{"one", good, 1, false},
		{"torn last line", good + `{"dataset":"d","id":"b"`, 1, false},
		{"garbage in the middle", good + "not json\n" + good, 0, true},
		{"record without id", `{"strategy":"prefrag"}` + "\n", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := parseRecords(strings.NewReader(c.content))
			if (err != nil) != c.bad || len(recs) != c.n {
				t.Errorf("%d records, err %v", len(recs), err)
			}
		})
	}
	if recs, err := ReadRecords(t.TempDir() + "/missing.jsonl"); err != nil || recs != nil {
		t.Errorf("missing file: %v %v", recs, err)
	}
}

func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"dataset":"d","id":"a","strategy":"prefrag","acc":1,"events":[{"type":"final"}]}` + "\n"))
	f.Add([]byte("{\"id\":\"a\",\"strategy\":\"s\"}\n{\"id\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseRecords(bytes.NewReader(data))
		if err != nil && !errors.Is(err, ErrData) {
			t.Fatalf("error %v does not match ErrData", err)
		}
		for _, r := range recs {
			if r.ID == "" || r.Strategy == "" {
				t.Fatalf("record without id or strategy: %+v", r)
			}
		}
		Summarize(recs)
	})
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false)
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.begin("toy", 4)
	p.strategy("prefrag", 1, 1, 1, 1, 4) // one earlier answer, correct
	clock = clock.Add(2 * time.Second)
	p.done(0)
	p.mu.Lock()
	got := p.lineLocked()
	p.mu.Unlock()
	if got != "eval toy · prefrag (1/1) · 1/4 questions · 0.50 q/s · ETA 6s · Acc 50.00" {
		t.Errorf("line %q", got)
	}
	for i := 0; i < 3; i++ {
		p.done(1)
	}
	p.end()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// One line when the first answer came (the interval had passed since
	// the start), one when the strategy finished.
	if len(lines) != 2 || !strings.Contains(lines[1], "4/4 questions") || !strings.Contains(lines[1], "Acc 80.00") {
		t.Errorf("lines %q", lines)
	}
	var nilProgress *Progress
	nilProgress.begin("x", 1)
	nilProgress.done(1)
	nilProgress.note("x")
	nilProgress.end()
}
