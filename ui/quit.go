package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// confirmQuitMsg asks the root to confirm quitting: `q` was pressed while
// a run is in progress.
type confirmQuitMsg struct{}

// quitDialog asks before `q` ends the app during a run: the run would be
// cancelled (its partial session is kept). Ctrl+C still quits at once.
type quitDialog struct {
	sh   *shared
	keys quitKeys
}

type quitKeys struct {
	Yes key.Binding
	No  key.Binding
}

func newQuitDialog(sh *shared) *quitDialog {
	return &quitDialog{sh: sh, keys: quitKeys{
		Yes: key.NewBinding(key.WithKeys("y", "q"), key.WithHelp("y", "quit, cancelling the run")),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "keep running")),
	}}
}

func (d *quitDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Yes):
		return tea.Quit, true
	case key.Matches(k, d.keys.No):
		return nil, true
	}
	return nil, false
}

func (d *quitDialog) view(width int) string {
	st := d.sh.st
	w := min(width-4, 60)
	inner := w - 4
	lines := []string{st.DialogTitle.Render("Quit prefrag?")}
	for _, l := range wrapText("A run is in progress. Quitting cancels it; its partial session is saved.", inner) {
		lines = append(lines, st.Text.Render(l))
	}
	lines = append(lines, "", st.Dim.Render(truncateTo("y quit · n/esc keep running", inner)))
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

func (d *quitDialog) bindings() []keyGroup {
	return []keyGroup{{"Quit during a run", []key.Binding{d.keys.Yes, d.keys.No}}}
}

func (d *quitDialog) shortHelp() []key.Binding { return []key.Binding{d.keys.Yes, d.keys.No} }
