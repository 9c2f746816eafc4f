// Package ui is prefrag's terminal workspace (`prefrag` with no arguments):
// ask a question and watch every Thought / Action / Observation as it
// happens, see which source each observation came from and why the selector
// switched to the web, answer the web-consent dialog, manage corpora, browse
// and step through stored sessions, export them.
//
// The UI renders engine events; it never calls an LLM or a source itself.
// Everything it needs from the rest of prefrag comes through the small
// interfaces below, which the app package adapts the real engine, store and
// corpora to. Run is the only entry point the binary needs.
package ui

import (
	"context"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
)

// Runner runs one question.
type Runner interface {
	// Run answers question with settings s. It calls emit for every event,
	// token events included, in order, from any goroutine; emit may block
	// briefly while the UI catches up. Under web policy "ask" it calls
	// consent (which blocks until the user answers or ctx ends) before any
	// web request. Cancelling ctx stops the run: the engine still emits its
	// final event (cancelled) and the session stays stored. The error is
	// nil for an answered run, also a forced one.
	Run(ctx context.Context, question string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error
}

// Sessions reads and exports stored sessions.
type Sessions interface {
	// List returns sessions newest first; filter, when not empty, keeps
	// those whose question or answer contain its words.
	List(ctx context.Context, filter string) ([]SessionSummary, error)
	// Events returns a session's stored events in order (no token events).
	Events(ctx context.Context, id string) ([]engine.Event, error)
	// Formats are the export formats, in the order the dialog offers them
	// (store/export's table); there is at least one.
	Formats() []ExportFormat
	// Export writes the sessions to path in format (the Name of one of
	// Formats) and returns the path written. An existing path is not
	// overwritten unless force is set: the error then matches fs.ErrExist.
	Export(ctx context.Context, ids []string, format, path string, force bool) (string, error)
	// Verdict records the analyst's verdict ("correct" or "incorrect") on
	// the selection judge's decision stored as event seq of session id; it
	// goes with the judge's inputs into the preference-pair export.
	Verdict(ctx context.Context, id string, seq int, verdict string) error
}

// ExportFormat is one format the export dialog offers.
type ExportFormat struct {
	Name string // what Export takes
	Ext  string // the file extension, dot included
	Help string // a few words on what the file holds
	// PerSession: several sessions are written one file each, into a
	// folder (the path the dialog proposes is then a folder).
	PerSession bool
}

// Verdicts on a judge decision.
const (
	VerdictCorrect   = "correct"
	VerdictIncorrect = "incorrect"
)

// SessionSummary is one line of the sessions screen.
type SessionSummary struct {
	ID       string
	Question string
	Answer   string
	Label    string
	// Status is running, answered, failed, cancelled or interrupted.
	Status   string
	Model    string
	Started  time.Time
	Finished time.Time // zero while running
	// ShortID is the id as `sessions list` prints it (its shortest unique
	// prefix); "" lets the UI shorten it.
	ShortID string
}

// Corpora manages the local corpora.
type Corpora interface {
	// List returns every corpus; exactly one may be Pinned.
	List(ctx context.Context) ([]CorpusInfo, error)
	// Pin makes name the preferred corpus, persistently.
	Pin(ctx context.Context, name string) error
	// Index adds files and folders to corpus name (creating it), calling
	// progress from any goroutine as it goes. Cancelling ctx stops it and
	// keeps what was done.
	Index(ctx context.Context, name string, paths []string, progress func(IndexProgress)) (IndexReport, error)
	// Search is a plain BM25 search of one corpus.
	Search(ctx context.Context, name, query string, k int) ([]sources.Document, error)
	// IndexGuide indexes the user guide embedded in the binary (package
	// guide) as corpus GuideCorpus.
	IndexGuide(ctx context.Context, progress func(IndexProgress)) (IndexReport, error)
}

// GuideCorpus is the name of the corpus holding the bundled user guide.
const GuideCorpus = "guide"

// CorpusInfo describes one corpus.
type CorpusInfo struct {
	Name      string
	Documents int64
	Passages  int64
	SizeBytes int64
	Updated   time.Time
	Pinned    bool
	// Problem, when set, says why the corpus cannot be read (damaged
	// index files) and what to do; its counts are then unknown.
	Problem string
}

// IndexProgress is a snapshot of a running ingest.
type IndexProgress struct {
	FilesDone  int
	FilesTotal int
	Passages   int64
	File       string // the file being read, "" between files
	Elapsed    time.Duration
	Rate       float64 // passages per second so far
	// Embedding is set while the passages are embedded (after the files
	// are read): then Rate is passages embedded per second, EmbedDone
	// counts the passages with a vector of EmbedTotal.
	Embedding             bool
	EmbedDone, EmbedTotal int64
}

// IndexReport says what an ingest did.
type IndexReport struct {
	Files     int // supported files found
	Indexed   int // files read and (re)indexed
	Unchanged int
	Removed   int
	// Exports counts files skipped because prefrag exported them.
	Exports   int
	Passages  int64 // added by this run
	Documents int64
	Failed    []string // one line per file that could not be read
	Duration  time.Duration
	// Vectors says what was embedded, "" when the corpus has none.
	Vectors string
}

// Health checks the LLM server.
type Health interface {
	// Check returns nil when the server answers and has the model; the
	// error's message is shown as is (typed errors from package llm are
	// recognised to add install instructions).
	Check(ctx context.Context) error
}

// Deps are the services the UI works with. Runner and Health may be nil
// (no LLM configured): browsing sessions and corpora still works.
type Deps struct {
	Runner   Runner
	Sessions Sessions
	Corpora  Corpora
	Health   Health
	// Prefs saves the first-run web choice; nil saves nothing.
	Prefs Prefs
}

// Options tune the UI.
type Options struct {
	// Settings are the run settings (flags and config); the UI changes only
	// the web policy and the corpus order (when the user pins a corpus).
	Settings engine.RunConfig
	// WorkDir is the default folder to index on first run and the folder
	// a relative export path is taken from; "" means the current directory.
	WorkDir string
	// ExportDir is the folder the export dialog proposes (prefrag's data
	// directory, never a folder the user indexes); "" means WorkDir.
	ExportDir string
	// NoColor drops every colour (NO_COLOR); Run sets it from the
	// environment when false.
	NoColor bool
	// Now is the clock; nil means time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// AskWebChoice is set when the user has not chosen a web policy yet
	// (no web key in the config file, no --web): the first-run dialog
	// offers auto / ask / never, and the policy is "ask" until then.
	AskWebChoice bool
	// Label, when set, is shown on every screen, in the tab bar (prefrag
	// demo: "scripted demo").
	Label string
	// Draft is put in the question box at start (Enter asks it); History
	// are questions Up recalls, oldest first (prefrag demo: its sample
	// questions).
	Draft   string
	History []string
	// Input and Output default to the terminal.
	Input  io.Reader
	Output io.Writer
}

// Run shows the TUI until the user quits or ctx ends. A run in progress is
// cancelled on the way out (its session stays stored).
func Run(ctx context.Context, deps Deps, opts Options) error {
	if !opts.NoColor {
		opts.NoColor = os.Getenv("NO_COLOR") != ""
	}
	if opts.WorkDir == "" {
		if wd, err := os.Getwd(); err == nil {
			opts.WorkDir = wd
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, deps, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	m.shutdown()
	if err != nil && ctx.Err() != nil {
		// Quitting because ctx ended is not a failure of the UI.
		return nil
	}
	return err
}
