package ui

import "charm.land/bubbles/v2/key"

// stepperKeys step through a stored session.
type stepperKeys struct {
	Next   key.Binding
	Prev   key.Binding
	First  key.Binding
	Last   key.Binding
	Reask  key.Binding
	Follow key.Binding
	Export key.Binding
	Agree  key.Binding
	Object key.Binding
	Back   key.Binding
}

func newStepperKeys() stepperKeys {
	return stepperKeys{
		Next:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next step")),
		Prev:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "prev step")),
		First:  key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first step")),
		Last:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last step")),
		Reask:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-ask")),
		Follow: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "continue: ask a follow-up")),
		Export: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "export")),
		Agree:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "judge was right")),
		Object: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "judge was wrong")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q/esc", "back")),
	}
}

func (k stepperKeys) bindings() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.First, k.Last, k.Reask, k.Follow, k.Export, k.Agree, k.Object, k.Back}
}
