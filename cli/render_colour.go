package cli

import "charm.land/lipgloss/v2"

// Colours for a terminal (textRenderer.st set): the TUI's badges and judge
// colours from ui/styles. Without st every helper is the plain text that
// scripts and pipes get.

// badge is "LOCAL notes" / "WEB duckduckgo".
func (r textRenderer) badge(source string) string {
	if r.st == nil {
		return badge(source)
	}
	return r.st.SourceBadge(line(source))
}

// tag is badge in a list: "[LOCAL notes]" plain, the coloured badge on a
// terminal.
func (r textRenderer) tag(source string) string {
	if r.st == nil {
		return "[" + badge(source) + "]"
	}
	return r.st.SourceBadge(line(source))
}

// label is "(CORRECT)" plain, the TUI's label badge on a terminal.
func (r textRenderer) label(label string) string {
	if r.st == nil {
		return "(" + line(label) + ")"
	}
	return r.st.LabelBadge(line(label))
}

func (r textRenderer) judgeOK() *lipgloss.Style {
	if r.st == nil {
		return nil
	}
	return &r.st.JudgeOK
}

func (r textRenderer) judgeSwitch() *lipgloss.Style {
	if r.st == nil {
		return nil
	}
	return &r.st.JudgeSwitch
}

func (r textRenderer) paint(st *lipgloss.Style, text string) string {
	if st == nil {
		return text
	}
	return st.Render(text)
}
