package ui

import "charm.land/bubbles/v2/key"

// consentKeys answer the web consent dialog.
type consentKeys struct {
	Once    key.Binding
	Session key.Binding
	Deny    key.Binding
	DenyRun key.Binding
	Next    key.Binding
	Prev    key.Binding
	Choose  key.Binding
}

func newConsentKeys() consentKeys {
	return consentKeys{
		Once:    key.NewBinding(key.WithKeys("a", "o"), key.WithHelp("a", "allow this query")),
		Session: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "allow for this run")),
		Deny:    key.NewBinding(key.WithKeys("d", "n", "esc"), key.WithHelp("d/esc", "deny this query")),
		DenyRun: key.NewBinding(key.WithKeys("x", "D"), key.WithHelp("x", "deny for this run")),
		Next:    key.NewBinding(key.WithKeys("tab", "right", "l"), key.WithHelp("tab/→", "next choice")),
		Prev:    key.NewBinding(key.WithKeys("shift+tab", "left", "h"), key.WithHelp("shift+tab/←", "previous choice")),
		Choose:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	}
}

func (k consentKeys) bindings() []key.Binding {
	return []key.Binding{k.Once, k.Session, k.Deny, k.DenyRun, k.Next, k.Choose}
}

// formKeys drive the small forms (export, first run, add folder).
type formKeys struct {
	Next    key.Binding
	Prev    key.Binding
	Left    key.Binding
	Right   key.Binding
	Submit  key.Binding
	Cancel  key.Binding
	Confirm key.Binding
	Refuse  key.Binding
}

func newFormKeys() formKeys {
	return formKeys{
		Next:    key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next")),
		Prev:    key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous")),
		Left:    key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous format")),
		Right:   key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next format")),
		Submit:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Confirm: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, overwrite")),
		Refuse:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "no")),
	}
}

func (k formKeys) bindings() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Left, k.Right, k.Submit, k.Cancel}
}
