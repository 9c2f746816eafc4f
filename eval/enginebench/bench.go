package enginebench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/eval"
	"github.com/prefrag/prefrag/eval/memindex"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/sources"
)

// Config describes a measurement.
type Config struct {
	// Questions with their paragraphs: the paragraphs are pooled into the
	// in-memory sources.
	Questions []eval.Question
	// Settings of the runs; zero means engine.DefaultRunConfig() with the
	// web policy auto. Strategy empty means prefrag.
	Settings engine.RunConfig
	// Hops is how many searches the oracle makes before answering
	// (default 2).
	Hops int
	// Holdout moves this fraction of the supporting paragraphs from the
	// local source to the web source (default 0.5; negative: none).
	Holdout float64
	// NoTokens turns off streaming token deltas to the engine.
	NoTokens bool
	// Know makes the oracle know every Know-th answer without documents
	// (the retrieval gate then answers directly); 0: none.
	Know int
}

// Bench runs questions through the engine and accumulates the figures.
// It is not safe for concurrent use.
type Bench struct {
	cfg   Config
	eng   *engine.Engine
	model *timedModel
	srcs  []*timedSource
	s     engine.RunConfig

	runs     int
	calls    engine.Counts
	wall     time.Duration
	events   int
	reuse    reuseStats
	memStart runtime.MemStats
	started  bool
}

// New builds the sources and the engine.
func New(cfg Config) (*Bench, error) {
	if len(cfg.Questions) == 0 {
		return nil, errors.New("enginebench: no questions")
	}
	if cfg.Hops == 0 {
		cfg.Hops = 2
	}
	if cfg.Holdout == 0 {
		cfg.Holdout = 0.5
	}
	s := cfg.Settings
	if s.K == 0 {
		s = engine.DefaultRunConfig()
		s.Model = "oracle"
	}
	if s.Strategy == "" {
		s.Strategy = engine.StrategyPrefRAG
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	pool := eval.PoolParagraphs(cfg.Questions)
	h := eval.Holdout{Fraction: max(cfg.Holdout, 0), Seed: 1}
	kept, _ := eval.SplitPool(pool, h)
	localIx, err := memindex.New(toDocs(kept))
	if err != nil {
		return nil, err
	}
	webIx, err := memindex.New(toDocs(eval.StandInParagraphs(pool, h)))
	if err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, s: s, model: &timedModel{oracle: NewOracle(cfg.Questions, cfg.Hops).Know(cfg.Know), tokens: !cfg.NoTokens}}
	b.srcs = []*timedSource{
		{name: sources.CorpusName("bench").String(), kind: sources.KindLocal, ix: localIx},
		{name: sources.WebName("bench").String(), kind: sources.KindWeb, ix: webIx},
	}
	list := []engine.Source{b.srcs[0], b.srcs[1]}
	if b.eng, err = engine.New(engine.Config{LLM: b.model, Sources: list}); err != nil {
		return nil, err
	}
	return b, nil
}

func toDocs(ps []eval.Paragraph) []memindex.Doc {
	out := make([]memindex.Doc, len(ps))
	for i, p := range ps {
		out[i] = memindex.Doc{ID: p.ID, Title: p.Title, Text: p.Text}
	}
	return out
}

// RunQuestion answers question i (modulo the set) once.
func (b *Bench) RunQuestion(ctx context.Context, i int) error {
	if !b.started {
		runtime.ReadMemStats(&b.memStart)
		b.started = true
	}
	q := b.cfg.Questions[i%len(b.cfg.Questions)]
	b.model.startQuestion()
	t0 := time.Now()
	res, err := b.eng.Run(ctx, engine.Request{SessionID: "bench", Question: q.Text, Settings: b.s.Settings, Wiring: b.s.Wiring, Emit: b.count})
	b.wall += time.Since(t0)
	if err != nil {
		return fmt.Errorf("question %s: %w", q.ID, err)
	}
	b.runs++
	b.add(res.Counts)
	b.reuse.add(b.model.prompts, b.model.outputs)
	return nil
}

func (b *Bench) count(ev engine.Event) { b.events++ }

func (b *Bench) add(c engine.Counts) {
	b.calls.LLMCalls += c.LLMCalls
	b.calls.StepCalls += c.StepCalls
	b.calls.JudgeCalls += c.JudgeCalls
	b.calls.ForcedCalls += c.ForcedCalls
	b.calls.LocalRetrievals += c.LocalRetrievals
	b.calls.WebRetrievals += c.WebRetrievals
	b.calls.Refinements += c.Refinements
}

// reset forgets what was measured so far (after a warm-up).
func (b *Bench) reset() {
	b.runs, b.calls, b.wall, b.events, b.reuse, b.started = 0, engine.Counts{}, 0, 0, reuseStats{}, false
	b.model.spent = 0
	for _, s := range b.srcs {
		s.spent = 0
	}
}

// Result is what a measurement found.
type Result struct {
	Strategy  string `json:"strategy"`
	Questions int    `json:"questions"` // distinct questions in the set
	Runs      int    `json:"runs"`      // questions answered
	LLMCalls  int    `json:"llm_calls"`
	StepCalls int    `json:"step_calls"`
	Judge     int    `json:"judge_calls"`
	Forced    int    `json:"forced_calls"`
	Local     int    `json:"local_retrievals"`
	Web       int    `json:"web_retrievals"`
	Events    int    `json:"events"`
	// Refinements counts observation refinements (context budget).
	Refinements int `json:"refinements"`

	Wall      time.Duration `json:"wall_ns"`
	Model     time.Duration `json:"model_ns"`
	Retrieval time.Duration `json:"retrieval_ns"`
	// Overhead is Wall minus Model and Retrieval: the engine's own time
	// (prompt rendering, parsing, events, token deltas, bookkeeping).
	Overhead            time.Duration `json:"overhead_ns"`
	OverheadPerCall     time.Duration `json:"overhead_per_llm_call_ns"`
	OverheadPerQuestion time.Duration `json:"overhead_per_question_ns"`

	AllocsPerQuestion float64 `json:"allocs_per_question"`
	BytesPerQuestion  float64 `json:"bytes_per_question"`
	AllocsPerCall     float64 `json:"allocs_per_llm_call"`

	// PrefixReuse is, over consecutive reasoning prompts of a question, the
	// share of the previous prompt that the next one repeats byte for byte
	// at its start (mean and minimum): 1 means append-only.
	PrefixReuse    float64 `json:"prefix_reuse"`
	PrefixReuseMin float64 `json:"prefix_reuse_min"`
	// CachedShare is the share of each new reasoning prompt that a prompt
	// cache holding the previous prompt and its output can serve (mean).
	CachedShare float64 `json:"cached_share"`
	Transitions int     `json:"transitions"`
}

// Result summarises everything run so far. Allocation figures cover the
// whole process during the runs (the in-process model and the in-memory
// searches included).
func (b *Bench) Result() Result {
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	r := Result{Strategy: b.s.Strategy, Questions: len(b.cfg.Questions), Runs: b.runs,
		LLMCalls: b.calls.LLMCalls, StepCalls: b.calls.StepCalls, Judge: b.calls.JudgeCalls, Forced: b.calls.ForcedCalls,
		Local: b.calls.LocalRetrievals, Web: b.calls.WebRetrievals, Events: b.events, Refinements: b.calls.Refinements,
		Wall: b.wall, Model: b.model.spent}
	for _, s := range b.srcs {
		r.Retrieval += s.spent
	}
	r.Overhead = r.Wall - r.Model - r.Retrieval
	if r.LLMCalls > 0 {
		r.OverheadPerCall = r.Overhead / time.Duration(r.LLMCalls)
	}
	if r.Runs > 0 {
		r.OverheadPerQuestion = r.Overhead / time.Duration(r.Runs)
		r.AllocsPerQuestion = float64(end.Mallocs-b.memStart.Mallocs) / float64(r.Runs)
		r.BytesPerQuestion = float64(end.TotalAlloc-b.memStart.TotalAlloc) / float64(r.Runs)
	}
	if r.LLMCalls > 0 {
		r.AllocsPerCall = float64(end.Mallocs-b.memStart.Mallocs) / float64(r.LLMCalls)
	}
	r.PrefixReuse, r.PrefixReuseMin, r.CachedShare, r.Transitions = b.reuse.result()
	return r
}

// Measure runs every question once and returns the figures.
func Measure(ctx context.Context, cfg Config) (Result, error) {
	b, err := New(cfg)
	if err != nil {
		return Result{}, err
	}
	// One warm-up pass over a few questions fills caches and pools.
	for i := 0; i < min(3, len(cfg.Questions)); i++ {
		if err := b.RunQuestion(ctx, i); err != nil {
			return Result{}, err
		}
	}
	b.reset()
	for i := range cfg.Questions {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if err := b.RunQuestion(ctx, i); err != nil {
			return Result{}, err
		}
	}
	return b.Result(), nil
}

// timedModel wraps the oracle: the time to compute a reply is the model's,
// streaming its tokens into the engine is the engine's.
type timedModel struct {
	oracle *Oracle
	tokens bool

	mu      sync.Mutex
	spent   time.Duration
	prompts []string // reasoning prompts of the current question
	outputs []string
}

func (m *timedModel) startQuestion() {
	m.mu.Lock()
	m.prompts, m.outputs = m.prompts[:0], m.outputs[:0]
	m.mu.Unlock()
}

func (m *timedModel) Generate(ctx context.Context, req llm.Request, onToken llm.TokenFunc) (llm.Response, error) {
	t0 := time.Now()
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	text := cutAtStop(m.oracle.Reply(req.Prompt, len(req.Schema) > 0), req.Stop)
	if req.Purpose == llm.PurposeRefine {
		text = refineNote(req.Prompt)
	}
	resp := llm.Response{Text: text, Model: "oracle", PromptTokens: approxTokens(req.Prompt), OutputTokens: approxTokens(text), DoneReason: "stop"}
	spent := time.Since(t0)
	m.mu.Lock()
	m.spent += spent
	if req.Purpose == llm.PurposeStep || req.Purpose == llm.PurposeForced {
		m.prompts = append(m.prompts, req.Prompt)
		m.outputs = append(m.outputs, text)
	}
	m.mu.Unlock()
	if m.tokens && onToken != nil {
		streamWords(text, onToken)
	}
	return resp, nil
}

// timedSource is an in-memory BM25 source that times its searches.
type timedSource struct {
	name  string
	kind  sources.Kind
	ix    *memindex.Index
	mu    sync.Mutex
	spent time.Duration
}

func (s *timedSource) Name() string       { return s.name }
func (s *timedSource) Kind() sources.Kind { return s.kind }

func (s *timedSource) Search(ctx context.Context, query string, k int) ([]sources.Document, error) {
	t0 := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hits := s.ix.Search(query, k)
	docs := make([]sources.Document, len(hits))
	for i, h := range hits {
		docs[i] = sources.Document{ID: h.Doc.ID, Title: h.Doc.Title, Text: h.Doc.Text, Source: s.name, Score: h.Score}
	}
	s.mu.Lock()
	s.spent += time.Since(t0)
	s.mu.Unlock()
	return docs, nil
}

// reuseStats accumulates prompt-prefix reuse between consecutive reasoning
// prompts.
type reuseStats struct {
	sumReuse, minReuse, sumCached float64
	n                             int
}

func (r *reuseStats) add(prompts, outputs []string) {
	for i := 1; i < len(prompts); i++ {
		prev, cur := prompts[i-1], prompts[i]
		if len(prev) == 0 || len(cur) == 0 {
			continue
		}
		reuse := float64(commonPrefix(prev, cur)) / float64(len(prev))
		cached := float64(commonPrefix(prev+outputs[i-1], cur)) / float64(len(cur))
		if r.n == 0 || reuse < r.minReuse {
			r.minReuse = reuse
		}
		r.sumReuse += reuse
		r.sumCached += cached
		r.n++
	}
}

func (r *reuseStats) result() (mean, minimum, cached float64, n int) {
	if r.n == 0 {
		return 0, 0, 0, 0
	}
	return r.sumReuse / float64(r.n), r.minReuse, r.sumCached / float64(r.n), r.n
}

// commonPrefix is the length in bytes of the common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
