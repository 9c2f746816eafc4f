package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/prefrag/prefrag/app"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/guide"
	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
	"github.com/prefrag/prefrag/store"
	"github.com/prefrag/prefrag/store/export"
	"github.com/prefrag/prefrag/ui"
)

// tuiOptions are the interactive workspace's: the run settings are
// applied to the configuration, with the workspace's answer style.
type tuiOptions struct{}

// parseTUI reads `prefrag [ask flags]`.
func parseTUI(e *env, args []string) (*tuiOptions, error) {
	fs := flag.NewFlagSet("prefrag", flag.ContinueOnError)
	e.cfg.Settings.AnswerStyle = e.cfg.TUIAnswerStyle
	rf, _ := bindRunFlags(fs, e.cfg)
	markOutputFlags(fs, "the interactive app")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		helpRunFlags(e, fs, "[ask flags]")
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("unexpected argument %q: to ask from the command line use `prefrag ask %q`", pos[0], pos[0])
	}
	if err := rf.Apply(); err != nil {
		return nil, err
	}
	if err := refuseOutputFlags(rf, "the interactive app (`prefrag` alone)", "has no event output"); err != nil {
		return nil, err
	}
	return &tuiOptions{}, resolveNeverLeave(e)
}

// runTUI opens the interactive workspace with the settings of `ask`.
func runTUI(e *env, _ *tuiOptions) error {
	if err := needTerminal(e.stdin, e.stdout); err != nil {
		return err
	}
	a, err := openApp(e)
	if err != nil {
		return err
	}
	defer a.Close()
	// With no --corpus the settings name none: each question searches the
	// corpus pinned at that moment (the app shows it), or none at all.
	deps := ui.Deps{
		Runner:   tuiRunner{a},
		Sessions: tuiSessions{a},
		Corpora:  tuiCorpora{a},
		Health:   tuiHealth{a},
		Prefs:    e.cfg,
	}
	e.cfg.Settings.WebChosen = e.cfg.WebChosen()
	return ui.Run(e.ctx, deps, ui.Options{Settings: e.cfg.Settings, AskWebChoice: !e.cfg.WebChosen(), ExportDir: e.cfg.ExportsDir()})
}

type tuiRunner struct{ a *app.App }

func (r tuiRunner) Run(ctx context.Context, question string, s engine.RunConfig, consent engine.ConsentFunc, emit func(engine.Event)) error {
	_, err := r.a.Ask(ctx, app.AskRequest{Question: question, Settings: s, Emit: emit, Consent: consent})
	if errors.Is(err, engine.ErrCancelled) {
		return nil // the final event says so; the session is stored
	}
	var fe *engine.FatalError
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}

type tuiHealth struct{ a *app.App }

func (h tuiHealth) Check(ctx context.Context) error {
	step, judge, err := h.a.Models(h.a.Cfg.Settings)
	if err != nil {
		return err
	}
	return app.CheckModels(ctx, step, judge)
}

type tuiSessions struct{ a *app.App }

func (s tuiSessions) List(ctx context.Context, filter string) ([]ui.SessionSummary, error) {
	list, err := s.a.Store.ListSessions(ctx, store.Filter{Text: filter, Limit: 500})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	for i, x := range list {
		ids[i] = x.ID
	}
	short, err := s.a.Store.ShortIDs(ctx, ids, store.MinShortID)
	if err != nil {
		return nil, err
	}
	out := make([]ui.SessionSummary, len(list))
	for i, x := range list {
		out[i] = ui.SessionSummary{ID: x.ID, Question: threadQuestion(x, 1<<20), Answer: x.Answer, Label: x.Label,
			Status: x.Status, Model: x.Model, Started: x.Started, ShortID: short[x.ID]}
		if x.Finished != nil {
			out[i].Finished = *x.Finished
		}
	}
	return out, nil
}

func (s tuiSessions) Events(ctx context.Context, id string) ([]engine.Event, error) {
	rec, err := s.a.Store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return rec.Events, nil
}

// Formats are store/export's format table.
func (s tuiSessions) Formats() []ui.ExportFormat {
	out := make([]ui.ExportFormat, len(export.Formats))
	for i, f := range export.Formats {
		out[i] = ui.ExportFormat{Name: f.Name, Ext: f.Ext, Help: f.Help, PerSession: f.PerSession}
	}
	return out
}

func (s tuiSessions) Export(ctx context.Context, ids []string, format, path string, force bool) (string, error) {
	var recs []*store.Record
	for _, id := range ids {
		rec, err := s.a.Store.GetSession(ctx, id)
		if err != nil {
			return "", err
		}
		recs = append(recs, rec)
	}
	return export.Save(path, format, force, recs...)
}

func (s tuiSessions) Verdict(ctx context.Context, id string, seq int, verdict string) error {
	return s.a.Store.SetJudgeVerdict(ctx, id, seq, verdict)
}

type tuiCorpora struct{ a *app.App }

func (c tuiCorpora) List(ctx context.Context) ([]ui.CorpusInfo, error) {
	infos, err := catalog.List(c.a.Cfg.CorporaDir())
	if err != nil {
		return nil, err
	}
	out := make([]ui.CorpusInfo, len(infos))
	for i, in := range infos {
		out[i] = ui.CorpusInfo{Name: in.Name, Documents: in.Stats.Documents, Passages: in.Stats.Passages,
			SizeBytes: in.Stats.SizeBytes, Updated: in.Stats.Updated, Pinned: in.Pinned, Problem: in.Problem}
	}
	tuiRemoteHealth(ctx, c.a, infos, out)
	return out, nil
}

func (c tuiCorpora) Pin(ctx context.Context, name string) error {
	return catalog.Pin(c.a.Cfg.CorporaDir(), name)
}

func (c tuiCorpora) Index(ctx context.Context, name string, paths []string, progress func(ui.IndexProgress)) (ui.IndexReport, error) {
	if err := refuseRemoteIndex(c.a.Cfg.CorporaDir(), name); err != nil {
		return ui.IndexReport{}, err
	}
	opts := local.IndexOptions{Progress: func(p local.Progress) {
		if progress != nil {
			progress(ui.IndexProgress{FilesDone: p.FilesDone, FilesTotal: p.FilesTotal, Passages: p.Passages,
				File: textsafe.ForTerminal(p.File), Elapsed: p.Elapsed, Rate: p.Rate,
				Embedding: p.Phase == local.PhaseEmbedding, EmbedDone: p.EmbedDone, EmbedTotal: p.EmbedTotal})
		}
	}}
	// The configured embedding model, else the corpus's own, keeps its
	// vectors current.
	emb, err := c.a.IndexEmbedder(ctx, c.a.Cfg.Settings, name)
	if err != nil {
		return ui.IndexReport{}, fmt.Errorf("cannot embed corpus %s: %w", name, err)
	}
	if emb != nil {
		opts.Embed = emb
	}
	rep, err := catalog.Index(ctx, c.a.Cfg.CorporaDir(), name, paths, opts)
	out := ui.IndexReport{Files: rep.Files, Indexed: rep.Indexed, Unchanged: rep.Unchanged, Removed: rep.Removed, Exports: rep.Exports,
		Passages: rep.Passages, Documents: rep.Documents, Duration: rep.Duration, Vectors: vectorsLine(rep)}
	for _, f := range rep.Failed {
		out.Failed = append(out.Failed, f.String())
	}
	return out, err
}

func (c tuiCorpora) Search(ctx context.Context, name, query string, k int) ([]sources.Document, error) {
	// The same search a question does: by meaning too for a corpus with
	// vectors.
	corpus, err := c.a.OpenCorpus(ctx, name)
	if err != nil {
		return nil, err
	}
	defer corpus.Close()
	docs, err := corpus.Search(ctx, query, k)
	if errors.Is(err, sources.ErrDegraded) {
		return docs, nil
	}
	return docs, err
}

// IndexGuide writes the embedded user guide to a folder under the home and
// indexes it as the guide corpus (re-indexing skips unchanged pages).
func (c tuiCorpora) IndexGuide(ctx context.Context, progress func(ui.IndexProgress)) (ui.IndexReport, error) {
	dir := filepath.Join(c.a.Cfg.Home, "guide")
	if err := writeEmbedded(guide.FS(), dir); err != nil {
		return ui.IndexReport{}, fmt.Errorf("cannot write the guide to %s: %w", dir, err)
	}
	start := time.Now()
	rep, err := c.Index(ctx, ui.GuideCorpus, []string{dir}, progress)
	if rep.Duration == 0 {
		rep.Duration = time.Since(start)
	}
	return rep, err
}

// writeEmbedded writes the files of fsys (the guide, the demo's sample
// corpus) into dir, leaving files that already hold the same bytes alone
// so that a re-index finds them unchanged.
func writeEmbedded(fsys fs.FS, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if old, err := os.ReadFile(dst); err == nil && string(old) == string(b) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
