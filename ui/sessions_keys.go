package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// listKeys move a cursor in a list (sessions, corpora, search results).
type listKeys struct {
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
}

func newListKeys() listKeys {
	return listKeys{
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "last")),
	}
}

func (k listKeys) bindings() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom}
}

// move applies a list key to cursor in a list of n items showing page
// items at a time; ok is false when msg is not a list key.
func (k listKeys) move(msg tea.KeyPressMsg, cursor, n, page int) (int, bool) {
	switch {
	case key.Matches(msg, k.Down):
		cursor++
	case key.Matches(msg, k.Up):
		cursor--
	case key.Matches(msg, k.PageDown):
		cursor += max(page, 1)
	case key.Matches(msg, k.PageUp):
		cursor -= max(page, 1)
	case key.Matches(msg, k.Top):
		cursor = 0
	case key.Matches(msg, k.Bottom):
		cursor = n - 1
	default:
		return cursor, false
	}
	return min(max(cursor, 0), max(n-1, 0)), true
}

// sessionsKeys apply on the sessions screen.
type sessionsKeys struct {
	Open   key.Binding
	Filter key.Binding
	Mark   key.Binding
	Export key.Binding
	Reload key.Binding
	Back   key.Binding
}

func newSessionsKeys() sessionsKeys {
	return sessionsKeys{
		Open:   key.NewBinding(key.WithKeys("enter", "l", "right"), key.WithHelp("enter", "open")),
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Mark:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark")),
		Export: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "export")),
		Reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "back")),
	}
}

func (k sessionsKeys) bindings() []key.Binding {
	return []key.Binding{k.Open, k.Filter, k.Mark, k.Export, k.Reload, k.Back}
}

// filterKeys apply while typing a filter.
type filterKeys struct {
	Apply key.Binding
	Clear key.Binding
}

func newFilterKeys() filterKeys {
	return filterKeys{
		Apply: key.NewBinding(key.WithKeys("enter", "tab"), key.WithHelp("enter", "keep filter")),
		Clear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
	}
}

func (k filterKeys) bindings() []key.Binding { return []key.Binding{k.Apply, k.Clear} }
