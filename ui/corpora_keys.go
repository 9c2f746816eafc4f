package ui

import "charm.land/bubbles/v2/key"

// corporaKeys apply to the corpus list.
type corporaKeys struct {
	Pin    key.Binding
	Add    key.Binding
	Search key.Binding
	Guide  key.Binding
	Reload key.Binding
	Back   key.Binding
}

func newCorporaKeys() corporaKeys {
	return corporaKeys{
		Pin:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin as preferred")),
		Add:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add folder")),
		Search: key.NewBinding(key.WithKeys("/", "s", "enter"), key.WithHelp("/", "search corpus")),
		Guide:  key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "index the guide")),
		Reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "back")),
	}
}

func (k corporaKeys) bindings() []key.Binding {
	return []key.Binding{k.Pin, k.Add, k.Search, k.Guide, k.Reload, k.Back}
}

// indexKeys apply while a folder is being indexed.
type indexKeys struct {
	Cancel key.Binding
}

func newIndexKeys() indexKeys {
	return indexKeys{Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel indexing"))}
}

// resultKeys apply to the passages a corpus search found.
type resultKeys struct {
	Toggle key.Binding
	Again  key.Binding
	Back   key.Binding
}

func newResultKeys() resultKeys {
	return resultKeys{
		Toggle: key.NewBinding(key.WithKeys("enter", "space"), key.WithHelp("enter", "read whole passage")),
		Again:  key.NewBinding(key.WithKeys("/", "s"), key.WithHelp("/", "new search")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "back to the corpora")),
	}
}

func (k resultKeys) bindings() []key.Binding { return []key.Binding{k.Toggle, k.Again, k.Back} }
