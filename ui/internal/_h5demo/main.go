package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui"
	"github.com/prefrag/prefrag/ui/internal/scripted"
)

type runner struct{}

func (runner) Run(ctx context.Context, q string, s engine.Settings, consent engine.ConsentFunc, emit func(engine.Event)) error {
	asked := false
	for _, ev := range scripted.Events(time.Now()) {
		select {
		case <-ctx.Done():
			emit(engine.Event{Type: engine.EventFinal, Answer: "partial", Cancelled: true})
			return ctx.Err()
		default:
		}
		if ev.Type == engine.EventToken {
			time.Sleep(15 * time.Millisecond)
		} else {
			time.Sleep(150 * time.Millisecond)
		}
		if ev.Type == engine.EventRetrieval && ev.Source == "web:duckduckgo" && s.Web == "ask" && !asked {
			asked = true
			if _, err := consent(ctx, engine.ConsentRequest{Step: ev.Step, Query: ev.Query, Source: ev.Source, Analysis: "nothing new locally"}); err != nil {
				return err
			}
		}
		if ev.Type == engine.EventSession {
			ev.Question = q
		}
		emit(ev)
	}
	return nil
}

type sessions struct{}

func (sessions) List(context.Context, string) ([]ui.SessionSummary, error) {
	return []ui.SessionSummary{{ID: scripted.SessionID, Question: scripted.Question, Answer: "The Vltava", Label: "CORRECT", Status: "answered", Model: "m", Started: time.Now()}}, nil
}
func (sessions) Events(context.Context, string) ([]engine.Event, error) {
	return scripted.Stored(time.Now()), nil
}
func (sessions) Export(_ context.Context, ids []string, f, p string, force bool) (string, error) {
	return p, nil
}

type corpora struct{}

func (corpora) List(context.Context) ([]ui.CorpusInfo, error) {
	return []ui.CorpusInfo{{Name: "wiki", Documents: 10, Passages: 20, Pinned: true, Updated: time.Now()}}, nil
}
func (corpora) Pin(context.Context, string) error { return nil }
func (corpora) Index(ctx context.Context, n string, p []string, pr func(ui.IndexProgress)) (ui.IndexReport, error) {
	for i := 0; i <= 10; i++ {
		pr(ui.IndexProgress{FilesDone: i, FilesTotal: 10, Passages: int64(i * 7), Elapsed: time.Duration(i) * 300 * time.Millisecond})
		select {
		case <-ctx.Done():
			return ui.IndexReport{}, ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	return ui.IndexReport{Files: 10, Indexed: 10, Passages: 70}, nil
}
func (corpora) Search(context.Context, string, string, int) ([]sources.Document, error) { return nil, nil }
func (c corpora) IndexGuide(ctx context.Context, pr func(ui.IndexProgress)) (ui.IndexReport, error) {
	return c.Index(ctx, "guide", nil, pr)
}

func main() {
	st := scripted.Settings()
	st.Web = os.Getenv("WEB")
	if st.Web == "" {
		st.Web = "auto"
	}
	err := ui.Run(context.Background(), ui.Deps{Runner: runner{}, Sessions: sessions{}, Corpora: corpora{}}, ui.Options{Settings: st})
	fmt.Println("exit:", err)
}
