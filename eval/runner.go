package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
)

// Backend answers one question with the given settings, delivering every
// event to emit. sessionID is the stored session's id, or "".
type Backend interface {
	Answer(ctx context.Context, q Question, s engine.RunConfig, emit engine.Emitter) (sessionID string, res engine.Result, err error)
}

// Runner evaluates strategies on a dataset, resuming where an earlier run
// into the same folder stopped.
type Runner struct {
	Dataset    *Dataset
	Strategies []string
	// Settings shared by every strategy (the strategy is set per run).
	Settings engine.RunConfig
	OutDir   string
	// Parallel questions at once (at least 1).
	Parallel int
	Backend  Backend
	Info     RunInfo
	Progress *Progress
}

// Report says what a run did.
type Report struct {
	Answered int
	Skipped  int // already in the records (resumed)
	Failed   []string
}

// ErrSettingsChanged is matched when an output folder holds results of the
// same dataset made with other settings.
var ErrSettingsChanged = errors.New("the output folder holds results made with other settings")

// Prepare checks the output folder against the run's settings and records
// them in run.json.
func (r *Runner) Prepare() error {
	if err := os.MkdirAll(r.OutDir, 0o755); err != nil {
		return err
	}
	infos, err := ReadRunInfos(r.OutDir)
	if err != nil {
		return err
	}
	if old, ok := infos[r.Info.Dataset]; ok {
		if diff := old.differences(r.Info); len(diff) > 0 {
			sort.Strings(diff)
			return fmt.Errorf("%w: %s in %s was run with %s; use another --out or the same settings",
				ErrSettingsChanged, r.Info.Dataset, r.OutDir, strings.Join(diff, ", "))
		}
	}
	infos[r.Info.Dataset] = r.Info
	b, _ := json.MarshalIndent(infos, "", "  ")
	return writeFileAtomic(filepath.Join(r.OutDir, "run.json"), append(b, '\n'))
}

// Run answers every question not yet recorded, strategy after strategy,
// Parallel questions at a time. It stops at the first sign that the LLM
// server cannot serve (every further question would fail the same way) and
// on cancellation; other failures are reported and the question is left
// for the next run.
func (r *Runner) Run(ctx context.Context) (Report, error) {
	var rep Report
	type pending struct {
		strategy string
		done     map[string]bool
		accSum   float64
		accN     int
	}
	var plan []pending
	total := 0
	for _, name := range r.Strategies {
		recs, err := ReadRecords(RecordFile(r.OutDir, name))
		if err != nil {
			return rep, err
		}
		p := pending{strategy: name, done: map[string]bool{}}
		for _, rec := range recs {
			if rec.Dataset == r.Dataset.Name {
				p.done[rec.ID] = true
				p.accSum += rec.Acc
				p.accN++
			}
		}
		for _, q := range r.Dataset.Questions {
			if p.done[q.ID] {
				rep.Skipped++
			} else {
				total++
			}
		}
		plan = append(plan, p)
	}
	r.Progress.begin(r.Dataset.Name, total)
	defer r.Progress.end()
	for i, p := range plan {
		var todo []Question
		for _, q := range r.Dataset.Questions {
			if !p.done[q.ID] {
				todo = append(todo, q)
			}
		}
		r.Progress.strategy(p.strategy, i+1, len(plan), p.accSum, p.accN, len(todo))
		if len(todo) == 0 {
			continue
		}
		if err := r.runStrategy(ctx, p.strategy, todo, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (r *Runner) runStrategy(ctx context.Context, strategy string, todo []Question, rep *Report) error {
	w, err := openRecordWriter(RecordFile(r.OutDir, strategy))
	if err != nil {
		return err
	}
	defer w.Close()
	s := r.Settings
	s.Strategy = strategy
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	jobs := make(chan Question)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(r.Parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range jobs {
				rec, err := r.answer(ctx, q, s)
				mu.Lock()
				switch {
				case err == nil:
					if werr := w.write(rec); werr != nil {
						stop(werr)
					} else {
						rep.Answered++
						r.Progress.done(rec.Acc)
					}
				case ctx.Err() != nil:
				case fatalForRun(err):
					stop(err)
				default:
					msg := fmt.Sprintf("%s %s: %s", strategy, q.ID, textsafe.ForTerminal(err.Error()))
					rep.Failed = append(rep.Failed, msg)
					r.Progress.note("failed: " + msg)
					r.Progress.skip()
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, q := range todo {
		select {
		case jobs <- q:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return ctx.Err()
}

// fatalForRun reports errors that every further question would hit too.
func fatalForRun(err error) bool {
	return errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, engine.ErrInvalidSettings)
}

// answer runs and scores one question.
func (r *Runner) answer(ctx context.Context, q Question, s engine.RunConfig) (Record, error) {
	var events []engine.Event
	emit := func(ev engine.Event) {
		if _, token := ev.Payload.(engine.Token); !token {
			events = append(events, ev)
		}
	}
	t0 := time.Now()
	session, res, err := r.Backend.Answer(ctx, q, s, emit)
	wall := time.Since(t0)
	if err != nil {
		if errors.Is(err, engine.ErrCancelled) && ctx.Err() != nil {
			return Record{}, ctx.Err()
		}
		return Record{}, err
	}
	metric := MetricQA
	if r.Dataset.YesNo {
		metric = MetricYesNo
	}
	sc := Score(res.Answer, q.Gold, r.Dataset.YesNo)
	rec := Record{Dataset: r.Dataset.Name, ID: q.ID, Index: q.Index, Question: q.Text, Strategy: s.Strategy,
		Prediction: res.Answer, Gold: q.Gold, Acc: sc.Acc, EM: sc.EM, F1: sc.F1, Metric: metric,
		Label: res.Label, Forced: res.Forced, Counts: res.Counts, WallMillis: wall.Milliseconds(),
		SupportRecall: supportRecall(q, events), Model: s.Model, Session: session}
	rec.Events = make([]json.RawMessage, 0, len(events))
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			return Record{}, err
		}
		rec.Events = append(rec.Events, b)
	}
	return rec, nil
}
