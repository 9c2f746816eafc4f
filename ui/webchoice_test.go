package ui

import (
	"sync"
	"testing"

	"github.com/prefrag/prefrag/engine"
)

// savedPrefs records what the web-choice dialog saved.
type savedPrefs struct {
	mu  sync.Mutex
	web []string
}

func (p *savedPrefs) SaveWeb(policy string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.web = append(p.web, policy)
	return nil
}

func (p *savedPrefs) saved() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.web...)
}

// With no web policy chosen the first start asks which queries may go to
// the web (ask preselected), saves the choice, and then opens the corpus
// first-run dialog when there is no corpus; esc decides later (ask,
// nothing saved). The tmux test checks the status line shows the choice.
func TestFirstRunWebChoice(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want string
		save bool
	}{
		{"enter keeps ask", []string{"enter"}, engine.WebAsk, true},
		{"down to never", []string{"down", "enter"}, engine.WebNever, true},
		{"up to auto", []string{"up", "enter"}, engine.WebAuto, true},
		{"esc decides later", []string{"esc"}, engine.WebAsk, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefs := &savedPrefs{}
			h := newHarness(t, withEmptyCorpora(), withWeb(engine.WebAsk), func(h *harness, d *Deps) {
				h.opts.AskWebChoice = true
				d.Prefs = prefs
			})
			h.waitFor("May questions go to the web?", "auto — search the web", "ask — show each query", "never — never send")
			h.keys(tt.keys...)
			h.waitFor("Welcome to prefrag")
			waitUntil(t, func() bool { return len(prefs.saved()) > 0 || !tt.save })
			if got := prefs.saved(); tt.save && (len(got) != 1 || got[0] != tt.want) || !tt.save && len(got) != 0 {
				t.Errorf("saved %v, want %q (save %v)", got, tt.want, tt.save)
			}
		})
	}
}
