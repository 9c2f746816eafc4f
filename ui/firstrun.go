package ui

import (
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// firstRunDialog appears when there is no corpus at all: index a folder
// the user types (nothing is preselected: the current directory may be a
// home directory) or the bundled guide, so a first question can be asked
// right away.
type firstRunDialog struct {
	sh     *shared
	keys   formKeys
	choice int
	path   textinput.Model
	hint   bool // Enter was pressed with no folder typed
}

var firstRunChoices = []string{"Index a folder", "Index the bundled user guide", "Not now"}

// firstRunCorpus is the corpus a first-run folder goes into.
const firstRunCorpus = "default"

func newFirstRunDialog(sh *shared) *firstRunDialog {
	d := &firstRunDialog{sh: sh, keys: newFormKeys()}
	d.path = textinput.New()
	d.path.Prompt = ""
	d.path.CharLimit = 4096
	d.path.Placeholder = "a folder to index, e.g. ~/notes"
	d.path.Focus()
	return d
}

func (d *firstRunDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if d.choice == 0 {
			var cmd tea.Cmd
			d.path, cmd = d.path.Update(msg)
			return cmd, false
		}
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, d.keys.Cancel):
			return nil, true
		case key.Matches(msg, d.keys.Next):
			d.choose(d.choice + 1)
			return nil, false
		case key.Matches(msg, d.keys.Prev):
			d.choose(d.choice + len(firstRunChoices) - 1)
			return nil, false
		case key.Matches(msg, d.keys.Submit):
			switch d.choice {
			case 0:
				path := expandHome(strings.TrimSpace(d.path.Value()))
				if path == "" {
					d.hint = true
					return nil, false
				}
				if !filepath.IsAbs(path) && d.sh.opts.WorkDir != "" {
					path = filepath.Join(d.sh.opts.WorkDir, path)
				}
				d.sh.open(startIndexMsg{corpus: firstRunCorpus, paths: []string{path}, pinAfter: true})
				return nil, true
			case 1:
				d.sh.open(startIndexMsg{corpus: GuideCorpus, guide: true, pinAfter: true})
				return nil, true
			}
			return nil, true
		}
		if d.choice == 0 {
			var cmd tea.Cmd
			d.path, cmd = d.path.Update(msg)
			return cmd, false
		}
	}
	return nil, false
}

func (d *firstRunDialog) choose(i int) {
	d.choice = i % len(firstRunChoices)
	if d.choice == 0 {
		d.path.Focus()
	} else {
		d.path.Blur()
	}
}

func (d *firstRunDialog) view(width int) string {
	st := d.sh.st
	w := min(width-4, 72)
	inner := w - 4
	d.path.SetWidth(inner - 4)
	var lines []string
	add := func(text string, render func(...string) string) {
		for _, l := range wrapText(text, inner) {
			lines = append(lines, render(l))
		}
	}
	lines = append(lines, st.DialogTitle.Render("Welcome to prefrag"))
	add("There is no corpus yet. prefrag answers from your own documents first and goes to the web only when they are not enough. Index something now:", st.Text.Render)
	lines = append(lines, "")
	for i, c := range firstRunChoices {
		mark, style := "  ", st.Text
		if i == d.choice {
			mark, style = "› ", st.Accent
		}
		for _, l := range wrapHanging(mark, c, inner) {
			lines = append(lines, style.Render(l))
		}
		if i == 0 {
			lines = append(lines, "    "+d.path.View())
			if d.hint && d.choice == 0 && strings.TrimSpace(d.path.Value()) == "" {
				lines = append(lines, st.Warn.Render(truncateTo("    Type a folder first (. is the current directory).", inner)))
			}
		}
	}
	lines = append(lines, "")
	add("The folder goes into corpus “default”, the guide into “guide”; either is pinned as the preferred corpus. Supported: "+supportedFiles+".", st.Dim.Render)
	lines = append(lines, st.Dim.Render(truncateTo("↑/↓ choose · enter confirm · esc not now", inner)))
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

func (d *firstRunDialog) bindings() []keyGroup {
	return []keyGroup{{"First run", []key.Binding{d.keys.Next, d.keys.Prev, d.keys.Submit, d.keys.Cancel}}}
}

func (d *firstRunDialog) shortHelp() []key.Binding {
	return []key.Binding{d.keys.Next, d.keys.Prev, d.keys.Submit, d.keys.Cancel}
}
