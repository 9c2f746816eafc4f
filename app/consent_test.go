package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prefrag/prefrag/config"
	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/internal/testdouble/fakellm"
	"github.com/prefrag/prefrag/internal/testdouble/fakesearch"
	"github.com/prefrag/prefrag/sources/catalog"
	"github.com/prefrag/prefrag/sources/local"
)

// openTestApp opens a fresh home whose web engine is a fake SearXNG.
func openTestApp(t *testing.T) (*App, *fakesearch.Server, *fakellm.Server) {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(func(k string) (string, bool) {
		switch k {
		case "PREFRAG_HOME":
			return home, true
		case "HOME":
			return home, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	search := fakesearch.New(fakesearch.Options{Docs: []fakesearch.Doc{{Title: "Merger", Text: "A merger was announced.", URL: "https://example.org/merger"}}})
	t.Cleanup(search.Close)
	llm := fakellm.New(t, &fakellm.Script{Steps: []string{
		"Thought: search\nAction: Search_Engine\nAction Input: our secret merger plan",
		"Thought: done\nFinal Answer: unknown\nSelf-Evaluation: INCORRECT",
		"Thought: done\nFinal Answer: still unknown\nSelf-Evaluation: CORRECT",
	}, Judges: []string{`{"analysis": "nothing useful", "status": false}`}})
	cfg.SearXNGURL = search.URL()
	cfg.Settings.WebEngine = "searxng"
	cfg.Settings.LLMURL = llm.URL()
	cfg.Settings.Model = "fake-model"
	cfg.Settings.JudgeModel = "fake-model"
	a, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, search, llm
}

func indexCorpus(t *testing.T, a *App, name string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "n.md"), []byte("# Notes\n\nThe merger plan is confidential.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Index(context.Background(), a.Cfg.CorporaDir(), name, []string{src}, local.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Which corpora a run searches when none is named: the pinned one, else
// none — never one picked on the user's behalf.
func TestResolveCorpora(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, a *App)
		given      []string
		want       string
		wantChoice string
	}{
		{"no corpus at all", func(*testing.T, *App) {}, nil, "", engine.CorporaNoneExist},
		{"first corpus is pinned", func(t *testing.T, a *App) { indexCorpus(t, a, "notes") }, nil, "notes", engine.CorporaPinned},
		{"--corpus wins", func(t *testing.T, a *App) { indexCorpus(t, a, "notes") }, []string{"other"}, "other", engine.CorporaGiven},
		{"after rm of the pinned corpus none is promoted", func(t *testing.T, a *App) {
			indexCorpus(t, a, "notes")
			indexCorpus(t, a, "default")
			if err := catalog.Delete(a.Cfg.CorporaDir(), "notes"); err != nil {
				t.Fatal(err)
			}
		}, nil, "", engine.CorporaNonePinned},
		{"unpinned: the only corpus is not searched silently", func(t *testing.T, a *App) {
			indexCorpus(t, a, "default")
			if _, err := catalog.Unpin(a.Cfg.CorporaDir()); err != nil {
				t.Fatal(err)
			}
		}, nil, "", engine.CorporaNonePinned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _ := openTestApp(t)
			tt.setup(t, a)
			s := a.Cfg.Settings
			s.Corpora = tt.given
			names, choice, err := a.ResolveCorpora(s)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(names, ",") != tt.want || choice != tt.wantChoice {
				t.Errorf("ResolveCorpora = %v, %q; want %q, %q", names, choice, tt.want, tt.wantChoice)
			}
		})
	}
}

// A recorded run with no local corpus sends nothing to the web unless it
// opted in; the session's config and its notice say what was searched.
func TestAskWithoutCorpusNeedsWebOptIn(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(t *testing.T, a *App)
		webOnly     bool
		wantWeb     bool
		wantChoice  string
		wantNotices []string
	}{
		{"no corpus, auto", func(*testing.T, *App) {}, false, false, engine.CorporaNoneExist, []string{"there is none yet", "--web-only"}},
		{"no corpus, opted in", func(*testing.T, *App) {}, true, true, engine.CorporaNoneExist, []string{"searching the web only (web:searxng)"}},
		{"pinned corpus deleted, another exists", func(t *testing.T, a *App) {
			indexCorpus(t, a, "notes")
			indexCorpus(t, a, "default")
			if err := catalog.Delete(a.Cfg.CorporaDir(), "notes"); err != nil {
				t.Fatal(err)
			}
		}, false, false, engine.CorporaNonePinned, []string{"none is pinned", "prefrag corpora pin NAME", "--web-only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, search, _ := openTestApp(t)
			tt.setup(t, a)
			s := a.Cfg.Settings
			s.Web = engine.WebAuto // a user who chose auto
			s.WebOnly = tt.webOnly
			var evs []engine.Event
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := a.Ask(ctx, AskRequest{Question: "What is our secret merger plan?", Settings: s, Emit: func(ev engine.Event) { evs = append(evs, ev) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := search.Requests() > 0; got != tt.wantWeb {
				t.Errorf("web requests = %d (%v), want any: %v", search.Requests(), search.Queries(), tt.wantWeb)
			}
			if res.Result.Counts.LocalRetrievals != 0 {
				t.Errorf("a local corpus was searched: %+v", res.Result.Counts)
			}
			if cfg := evs[0].Payload.(engine.SessionStart).Config; cfg == nil || cfg.CorpusChoice != tt.wantChoice || len(cfg.Corpora) != 0 {
				t.Errorf("session config = %+v", cfg)
			}
			notice, ok := evs[1].Payload.(engine.Notice)
			if !ok || notice.Fatal {
				t.Fatalf("second event = %+v, want a notice", evs[1])
			}
			for _, want := range tt.wantNotices {
				if !strings.Contains(notice.Message, want) {
					t.Errorf("notice %q lacks %q", notice.Message, want)
				}
			}
		})
	}
}
