package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// allKeyGroups lists every binding, the current context first.
func (m *Model) allKeyGroups() []keyGroup {
	var groups []keyGroup
	if m.dialog != nil {
		groups = append(groups, m.dialog.bindings()...)
	}
	groups = append(groups, m.active().bindings()...)
	groups = append(groups, keyGroup{"Everywhere (not while typing, except ctrl+c)", m.gkeys.bindings()})
	seen := map[string]bool{}
	for _, g := range groups {
		seen[g.title] = true
	}
	others := []keyGroup{}
	others = append(others, keyGroup{"Question input", m.ask.ikeys.bindings()})
	others = append(others, keyGroup{"Ask screen", m.ask.tkeys.bindings()})
	others = append(others, keyGroup{"Trajectory", m.ask.tv.keys.bindings()})
	others = append(others, keyGroup{"Cited passage", m.ask.tv.pkeys.bindings()})
	others = append(others, m.sessions.bindings()...)
	others = append(others, m.stepper.bindings()...)
	others = append(others, m.corpora.bindings()...)
	others = append(others, keyGroup{"Web consent", newConsentKeys().bindings()})
	others = append(others, keyGroup{"Help", m.hkeys.bindings()})
	for _, g := range others {
		if !seen[g.title] {
			seen[g.title] = true
			groups = append(groups, g)
		}
	}
	return groups
}

// helpView renders every binding, grouped, scrollable.
func (m *Model) helpView(height int) string {
	st := m.sh.st
	var lines []string
	lines = append(lines, st.Bold.Render(" Keys")+st.Dim.Render(" — ? esc or q closes · j/k scroll"))
	for _, g := range m.allKeyGroups() {
		lines = append(lines, "", " "+st.DialogTitle.Render(g.title))
		block := m.help.FullHelpView([][]key.Binding{g.keys})
		for _, l := range strings.Split(block, "\n") {
			lines = append(lines, "   "+l)
		}
	}
	maxOff := max(len(lines)-height, 0)
	m.helpPage.offset = min(m.helpPage.offset, maxOff)
	lines = lines[m.helpPage.offset:]
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		lines[i] = truncateTo(l, m.width)
	}
	return lipgloss.JoinVertical(lipgloss.Left, lines...)
}
