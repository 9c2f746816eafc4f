package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
)

// Prefs saves what the user chose in the workspace to the config file.
type Prefs interface {
	// SaveWeb records the web policy (auto, ask or never) as the user's
	// choice.
	SaveWeb(policy string) error
}

// webChoiceDialog is the first-run question of which queries may go to
// the web, shown until the user has chosen a web policy (config file or
// --web; Options.AskWebChoice). Until then the policy is "ask". The
// choice is saved to the config file; esc decides later (ask, this run).
type webChoiceDialog struct {
	sh     *shared
	keys   formKeys
	choice int
	// firstRun opens the corpus first-run dialog after this one.
	firstRun bool
}

var webChoices = []struct{ policy, text string }{
	{engine.WebAuto, "search the web whenever the judge finds your documents not enough."},
	{engine.WebAsk, "show each query and ask before it leaves this machine."},
	{engine.WebNever, "never send anything to the web; answer from your documents only."},
}

type (
	// openFirstRunMsg opens the corpus first-run dialog.
	openFirstRunMsg struct{}
	// webSavedMsg reports the saving of the web choice.
	webSavedMsg struct {
		policy string
		err    error
	}
)

func newWebChoiceDialog(sh *shared, firstRun bool) *webChoiceDialog {
	return &webChoiceDialog{sh: sh, keys: newFormKeys(), choice: 1, firstRun: firstRun}
}

func (d *webChoiceDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	n := len(webChoices)
	switch {
	case key.Matches(k, d.keys.Next):
		d.choice = (d.choice + 1) % n
	case key.Matches(k, d.keys.Prev):
		d.choice = (d.choice + n - 1) % n
	case key.Matches(k, d.keys.Submit):
		policy := webChoices[d.choice].policy
		d.sh.settings.Web, d.sh.settings.WebChosen = policy, true
		d.sh.policy.Store(policy)
		d.next()
		return d.save(policy), true
	case key.Matches(k, d.keys.Cancel):
		d.next()
		return nil, true
	}
	return nil, false
}

// save records the choice off the update loop.
func (d *webChoiceDialog) save(policy string) tea.Cmd {
	p := d.sh.deps.Prefs
	if p == nil {
		return nil
	}
	return func() tea.Msg { return webSavedMsg{policy: policy, err: p.SaveWeb(policy)} }
}

// next opens the corpus first-run dialog when there is no corpus; the
// root opens it as this dialog closes, so the next key goes to it.
func (d *webChoiceDialog) next() {
	if d.firstRun {
		d.sh.open(openFirstRunMsg{})
	}
}

func (d *webChoiceDialog) view(width int) string {
	st := d.sh.st
	w := min(width-4, 72)
	inner := w - 4
	var lines []string
	add := func(text string, render func(...string) string) {
		for _, l := range wrapText(text, inner) {
			lines = append(lines, render(l))
		}
	}
	lines = append(lines, st.DialogTitle.Render("May questions go to the web?"))
	add("prefrag searches your documents first. When they are not enough, a search query (built from your question) can be sent to a web search engine. Choose once; it is saved to the config file:", st.Text.Render)
	lines = append(lines, "")
	for i, c := range webChoices {
		mark, style := "  ", st.Text
		if i == d.choice {
			mark, style = "› ", st.Accent
		}
		for _, l := range wrapHanging(mark+c.policy+" — ", c.text, inner) {
			lines = append(lines, style.Render(l))
		}
	}
	lines = append(lines, "")
	add("w changes the policy for the questions of a session; web = \"…\" in the config file changes the saved choice.", st.Dim.Render)
	lines = append(lines, st.Dim.Render(truncateTo("↑/↓ choose · enter save · esc decide later (ask until then)", inner)))
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

func (d *webChoiceDialog) bindings() []keyGroup {
	return []keyGroup{{"Web policy", []key.Binding{d.keys.Next, d.keys.Prev, d.keys.Submit, d.keys.Cancel}}}
}

func (d *webChoiceDialog) shortHelp() []key.Binding {
	return []key.Binding{d.keys.Next, d.keys.Prev, d.keys.Submit, d.keys.Cancel}
}
