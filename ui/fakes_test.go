package ui

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/scripted"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/store/export"
)

// testStart is the fixed time every test clock starts at.
var testStart = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: testStart} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// scriptRunner is the scripted engine: it emits the scripted session's
// events (tokens included). Under web policy "ask" it asks consent before
// the first web retrieval. With pauseAt > 0 it waits before that event
// until resume is closed or the run is cancelled; a cancelled run ends with
// a cancelled final event, as the engine's does.
type scriptRunner struct {
	events  []engine.Event
	pauseAt int
	// fail is returned after the events.
	fail   error
	resume chan struct{}
	paused chan struct{}

	mu        sync.Mutex
	questions []string
	settings  []engine.RunConfig
	consents  []engine.Consent
}

func newScriptRunner() *scriptRunner {
	return &scriptRunner{events: scripted.Events(testStart), resume: make(chan struct{}), paused: make(chan struct{}, 1)}
}

// pauseBefore makes the run wait before the first event matching match.
func (r *scriptRunner) pauseBefore(match func(engine.Event) bool) {
	for i, ev := range r.events {
		if match(ev) {
			r.pauseAt = i
			return
		}
	}
	panic("no event to pause at")
}

func (r *scriptRunner) Run(ctx context.Context, q string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error {
	r.mu.Lock()
	r.questions = append(r.questions, q)
	r.settings = append(r.settings, s)
	r.mu.Unlock()
	asked := false
	for i, ev := range r.events {
		if r.pauseAt > 0 && i == r.pauseAt {
			r.paused <- struct{}{}
			select {
			case <-r.resume:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			emit(engine.Event{Session: scripted.SessionID, Seq: 99, Time: ev.Time, Payload: engine.Final{Answer: "Kafka was born in Prague (partial answer).", Cancelled: true, Counts: &engine.Counts{LLMCalls: 2}}})
			return fmt.Errorf("%w: %w", engine.ErrCancelled, ctx.Err())
		}
		if rt, ok := ev.Payload.(engine.Retrieval); ok && strings.HasPrefix(rt.Source, "web:") && s.Web == engine.WebAsk && !asked {
			asked = true
			c, err := consent(ctx, engine.ConsentRequest{Step: ev.Step, Query: rt.Query, Source: rt.Source, Kind: sources.KindWeb,
				Analysis: "The new documents repeat what was already observed about Kafka and say nothing about rivers."})
			r.mu.Lock()
			r.consents = append(r.consents, c)
			r.mu.Unlock()
			if err != nil {
				return err
			}
		}
		if ss, ok := ev.Payload.(engine.SessionStart); ok {
			ss.Question = q
			ev.Payload = ss
		}
		emit(ev)
	}
	return r.fail
}

func (r *scriptRunner) last() (string, engine.RunConfig, []engine.Consent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.questions) == 0 {
		return "", engine.RunConfig{}, nil
	}
	return r.questions[len(r.questions)-1], r.settings[len(r.settings)-1], append([]engine.Consent(nil), r.consents...)
}

// fakeSessions serves the scripted session and two more.
type fakeSessions struct {
	mu       sync.Mutex
	list     []SessionSummary
	filters  []string
	exports  []exportCall
	exists   map[string]bool
	verdicts map[int]string
	// events are the stored events of sessions other than the scripted one.
	events map[string][]engine.Event
	// formats, when set, replace store/export's table.
	formats []ExportFormat
}

type exportCall struct {
	ids    []string
	format string
	path   string
	force  bool
}

func newFakeSessions() *fakeSessions {
	return &fakeSessions{exists: map[string]bool{}, list: []SessionSummary{
		{ID: scripted.SessionID, Question: scripted.Question, Answer: "The Vltava (German: Moldau) flows through Prague, the birthplace of Franz Kafka.",
			Label: "CORRECT", Status: "answered", Model: "qwen2.5:7b-instruct", Started: testStart.Add(-2 * time.Hour), Finished: testStart.Add(-2*time.Hour + 18*time.Second)},
		{ID: "5e8a91c0-1111-4a2b-8c3d-000000000002", Question: "When was the Charles Bridge built?", Answer: "Its construction started in 1357.",
			Label: "PARTIALLY CORRECT", Status: "answered", Model: "qwen2.5:7b-instruct", Started: testStart.Add(-26 * time.Hour)},
		{ID: "0c4d77aa-2222-4b3c-9d4e-000000000003", Question: "Who published Kafka's works after his death?", Answer: "",
			Status: "cancelled", Model: "llama3.1:8b", Started: testStart.AddDate(0, -2, 0)},
	}}
}

func (f *fakeSessions) List(_ context.Context, filter string) ([]SessionSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filters = append(f.filters, filter)
	var out []SessionSummary
	for _, s := range f.list {
		text := strings.ToLower(s.Question + " " + s.Answer)
		ok := true
		for _, w := range strings.Fields(strings.ToLower(filter)) {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeSessions) Events(_ context.Context, id string) ([]engine.Event, error) {
	f.mu.Lock()
	evs, ok := f.events[id]
	f.mu.Unlock()
	if ok {
		return evs, nil
	}
	if id != scripted.SessionID {
		return nil, fmt.Errorf("session %s not found", id)
	}
	return scripted.Stored(testStart), nil
}

// Formats is store/export's table, as cli/tui.go passes it.
func (f *fakeSessions) Formats() []ExportFormat {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.formats != nil {
		return f.formats
	}
	out := make([]ExportFormat, len(export.Formats))
	for i, x := range export.Formats {
		out[i] = ExportFormat{Name: x.Name, Ext: x.Ext, Help: x.Help, PerSession: x.PerSession}
	}
	return out
}

func (f *fakeSessions) Export(_ context.Context, ids []string, format, path string, force bool) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exports = append(f.exports, exportCall{ids, format, path, force})
	if f.exists[path] && !force {
		return "", fmt.Errorf("export: %s: %w", path, fs.ErrExist)
	}
	return path, nil
}

func (f *fakeSessions) Verdict(_ context.Context, id string, seq int, verdict string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.verdicts == nil {
		f.verdicts = map[int]string{}
	}
	f.verdicts[seq] = verdict
	return nil
}

func (f *fakeSessions) calls() []exportCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]exportCall(nil), f.exports...)
}

// fakeCorpora keeps corpora in memory; Index reports progress and waits
// on step, so a test can look at the progress bar.
type fakeCorpora struct {
	mu      sync.Mutex
	list    []CorpusInfo
	pins    []string
	indexed []string
	guide   int
	step    chan IndexProgress
	queries []string
}

func newFakeCorpora(empty bool) *fakeCorpora {
	f := &fakeCorpora{step: make(chan IndexProgress)}
	if !empty {
		f.list = []CorpusInfo{
			{Name: "wiki", Documents: 5233, Passages: 10402, SizeBytes: 12_900_000, Updated: testStart.Add(-3 * time.Hour), Pinned: true},
			{Name: "notes", Documents: 118, Passages: 932, SizeBytes: 840_000, Updated: testStart.AddDate(0, 0, -9)},
		}
	}
	return f
}

func (f *fakeCorpora) List(context.Context) ([]CorpusInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]CorpusInfo(nil), f.list...), nil
}

func (f *fakeCorpora) Pin(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pins = append(f.pins, name)
	for i := range f.list {
		f.list[i].Pinned = f.list[i].Name == name
	}
	return nil
}

func (f *fakeCorpora) ingest(ctx context.Context, name string, progress func(IndexProgress)) (IndexReport, error) {
	for {
		select {
		case p, ok := <-f.step:
			if !ok {
				f.mu.Lock()
				found := false
				for i := range f.list {
					if f.list[i].Name == name {
						found = true
						f.list[i].Passages += 120
					}
				}
				if !found {
					f.list = append(f.list, CorpusInfo{Name: name, Documents: 12, Passages: 120, SizeBytes: 96_000, Updated: testStart})
				}
				f.mu.Unlock()
				return IndexReport{Files: 12, Indexed: 12, Passages: 120, Documents: 12, Duration: 4 * time.Second}, nil
			}
			progress(p)
		case <-ctx.Done():
			return IndexReport{Files: 12, Indexed: 5, Passages: 50}, ctx.Err()
		}
	}
}

func (f *fakeCorpora) Index(ctx context.Context, name string, paths []string, progress func(IndexProgress)) (IndexReport, error) {
	f.mu.Lock()
	f.indexed = append(f.indexed, name+"="+strings.Join(paths, ","))
	f.mu.Unlock()
	return f.ingest(ctx, name, progress)
}

func (f *fakeCorpora) IndexGuide(ctx context.Context, progress func(IndexProgress)) (IndexReport, error) {
	f.mu.Lock()
	f.guide++
	f.mu.Unlock()
	return f.ingest(ctx, GuideCorpus, progress)
}

func (f *fakeCorpora) Search(_ context.Context, name, query string, k int) ([]sources.Document, error) {
	f.mu.Lock()
	f.queries = append(f.queries, name+":"+query)
	f.mu.Unlock()
	evs := scripted.Stored(testStart)
	var out []sources.Document
	for _, ev := range evs {
		if rt, ok := ev.Payload.(engine.Retrieval); ok && rt.Source == "local:"+name {
			for _, d := range rt.Docs {
				dup := false
				for _, o := range out {
					dup = dup || o.ID == d.ID
				}
				if !dup && len(out) < k {
					out = append(out, d)
				}
			}
		}
	}
	return out, nil
}

func (f *fakeCorpora) state() (pins, indexed []string, guide int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.pins...), append([]string(nil), f.indexed...), f.guide
}

// fakeHealth returns err.
type fakeHealth struct{ err error }

func (h fakeHealth) Check(context.Context) error { return h.err }
