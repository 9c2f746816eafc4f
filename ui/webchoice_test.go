package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"

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

// TestFirstRunOptionsHangTheirLines: on a narrow terminal the first-run
// web choice's options that wrap keep their later lines under the option's
// text (a hanging indent), not at the dialog's margin, and no line is
// wider than the terminal.
func TestFirstRunOptionsHangTheirLines(t *testing.T) {
	sh := newShared(context.Background(), Deps{}, Options{NoColor: true})
	for _, width := range []int{40, 48, 60} {
		frame := ansi.Strip(newWebChoiceDialog(sh, true).view(width))
		var body []string // each line inside the border, from its first column
		for _, l := range strings.Split(frame, "\n") {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: line wider than the terminal: %q", width, l)
			}
			l = strings.TrimSuffix(strings.TrimRight(l, " "), "│")
			if rest, ok := strings.CutPrefix(l, "│"); ok {
				body = append(body, strings.TrimRight(rest, " "))
			}
		}
		wrapped := 0
		for _, c := range webChoices {
			first := -1
			for i, l := range body {
				if strings.Contains(l, c.policy+" — ") {
					first = i
					break
				}
			}
			if first < 0 {
				t.Fatalf("width %d: no line for %s:\n%s", width, c.policy, frame)
			}
			l := body[first]
			col := ansi.StringWidth(l[:strings.Index(l, " — ")+len(" — ")])
			for _, next := range body[first+1:] {
				if strings.TrimSpace(next) == "" || strings.Contains(next, " — ") {
					break
				}
				wrapped++
				text := strings.TrimLeft(next, " ")
				if indent := ansi.StringWidth(next) - ansi.StringWidth(text); indent != col {
					t.Errorf("width %d: %s's line %q is indented %d, not under its text (%d)", width, c.policy, next, indent, col)
				}
			}
		}
		if width == 40 && wrapped == 0 {
			t.Errorf("width 40: no option wrapped, the test tests nothing:\n%s", frame)
		}
	}
}
