package ui

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/llm"
	"github.com/prefrag/prefrag/ui/styles"
)

// shared is the state every screen reads: the services, the settings, the
// look, the corpora and the LLM's health. Only the Bubble Tea goroutine
// writes it, except policy, which a run's consent function reads.
type shared struct {
	ctx  context.Context
	quit chan struct{}
	deps Deps
	opts Options
	now  func() time.Time
	st   *styles.Styles

	settings engine.RunConfig
	policy   atomic.Value // string: the web policy in force

	corpora       []CorpusInfo
	corporaLoaded bool
	corporaErr    error

	healthErr     error
	healthChecked bool
	// healthSeq counts what runs have said about the LLM (it answered, or
	// it is unreachable or lacks the model); a health check started before
	// the latest of those has older news and does not overwrite it.
	healthSeq int

	nextStream int
	// webChanges counts the web policy changes (w): a follow-up asked
	// after one loosens its thread's privacy explicitly (thread.go).
	webChanges int

	// shortIDs are the short ids the session list gave, by id.
	shortIDs map[string]string

	// opens are what a screen or a dialog asked the root to open or switch
	// to (a dialog, a screen, a run) while handling the current message.
	// The root applies them in the same Update, before the next message:
	// had they come back as a command's message, the keys typed in
	// between would have gone to what was shown before.
	opens []tea.Msg
	// flash is a one-off message the status line shows until the next
	// key (e.g. where an export was written, after its dialog closed).
	flash string
}

func newShared(ctx context.Context, deps Deps, opts Options) *shared {
	sh := &shared{ctx: ctx, quit: make(chan struct{}), deps: deps, opts: opts, settings: opts.Settings}
	sh.now = opts.Now
	if sh.now == nil {
		sh.now = time.Now
	}
	if sh.settings.Web == "" {
		sh.settings.Web = engine.WebAuto
	}
	sh.policy.Store(sh.settings.Web)
	sh.st = styles.New(true, opts.NoColor)
	return sh
}

// shortID is id as the session list printed it (unique among the stored
// sessions), else its first 8 characters, made safe to show: a session
// stored before imports were checked may have any id.
func (sh *shared) shortID(id string) string {
	if s := sh.shortIDs[id]; s != "" {
		return textsafe.Literal(s)
	}
	if r := []rune(id); len(r) > 8 {
		id = string(r[:8])
	}
	return textsafe.Literal(id)
}

// open asks the root to apply msg (one of the messages its update opens
// a dialog or a screen with) right after the current message.
func (sh *shared) open(msg tea.Msg) { sh.opens = append(sh.opens, msg) }

func (sh *shared) webPolicy() string { return sh.policy.Load().(string) }

// cycleWeb moves the web policy auto → ask → never → auto. It applies to
// the next question and, through the consent function, to the run in
// progress.
func (sh *shared) cycleWeb() string {
	next := map[string]string{engine.WebAuto: engine.WebAsk, engine.WebAsk: engine.WebNever, engine.WebNever: engine.WebAuto}[sh.webPolicy()]
	if next == "" {
		next = engine.WebAuto
	}
	sh.settings.Web, sh.settings.WebChosen = next, true
	sh.policy.Store(next)
	sh.webChanges++
	return next
}

// runSettings are the settings for the next question.
func (sh *shared) runSettings() engine.RunConfig {
	s := sh.settings
	s.Web = sh.webPolicy()
	s.Corpora = slices.Clone(sh.settings.Corpora)
	return s
}

// preferred is the corpus searched first: the first one in the settings,
// else the pinned one.
func (sh *shared) preferred() string {
	if len(sh.settings.Corpora) > 0 {
		return sh.settings.Corpora[0]
	}
	for _, c := range sh.corpora {
		if c.Pinned {
			return c.Name
		}
	}
	return ""
}

// webNeedsOptIn reports whether the next question searches no local corpus
// (none named, none pinned) and so, as a headless ask, sends nothing to the
// web either: prefrag was not started with --web-only (nor web_only set).
func (sh *shared) webNeedsOptIn() bool {
	return sh.corporaLoaded && sh.corporaErr == nil && sh.preferred() == "" &&
		!sh.settings.WebOnly && sh.webPolicy() != engine.WebNever
}

// pinned updates the settings after the user pinned name: when the run
// names corpora explicitly, name moves to the front.
func (sh *shared) pinned(name string) {
	for i := range sh.corpora {
		sh.corpora[i].Pinned = sh.corpora[i].Name == name
	}
	if len(sh.settings.Corpora) == 0 {
		return
	}
	out := []string{name}
	for _, c := range sh.settings.Corpora {
		if c != name {
			out = append(out, c)
		}
	}
	sh.settings.Corpora = out
}

func (sh *shared) newStream() *stream {
	sh.nextStream++
	return newStream(sh.nextStream, sh.quit)
}

// llmAdvice turns an LLM failure into what to do about it.
func llmAdvice(err error, s engine.RunConfig) string {
	model := s.Model
	if model == "" {
		model = "qwen2.5:7b-instruct"
	}
	// The advice is the backend's, from llm's table.
	b := llm.BackendOf(s.LLM)
	var mnf *llm.ModelNotFoundError
	switch {
	case errors.As(err, &mnf) || errors.Is(err, llm.ErrModelNotFound):
		return b.AdviceMissingModel(model) + demoHint
	case errors.Is(err, llm.ErrUnreachable):
		return b.AdviceUnreachable(model) + demoHint
	}
	return ""
}

// demoHint ends the advice of a missing model: the first hour works without
// one.
const demoHint = " No model yet? `prefrag demo` shows the whole loop with a scripted one."
