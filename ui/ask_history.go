package ui

// The question box's history: the questions sent in this workspace, newest
// last. Up in an empty box recalls the previous one (again: the one
// before), Down goes back towards the newest and then to an empty box, as a
// shell does. Once the recalled text is edited, Up and Down move the
// cursor again.

// questionHistory is what the box recalls.
type questionHistory struct {
	sent []string
	// at is the entry shown (len(sent) when none); shown is its text as
	// put in the box, to tell a recalled entry from an edited one.
	at    int
	shown string
}

// add records a sent question (a repeat of the last one once) and stops
// browsing.
func (h *questionHistory) add(q string) {
	if n := len(h.sent); n == 0 || h.sent[n-1] != q {
		h.sent = append(h.sent, q)
	}
	h.at, h.shown = len(h.sent), ""
}

// browsing says whether the box shows a recalled entry, unchanged.
func (h *questionHistory) browsing(box string) bool {
	return h.at < len(h.sent) && box == h.shown
}

// older is the entry before the one shown (the last one from an empty
// box); ok is false when there is none to go to.
func (h *questionHistory) older(box string) (string, bool) {
	if box != "" && !h.browsing(box) {
		return "", false
	}
	if box == "" {
		h.at = len(h.sent)
	}
	if h.at == 0 {
		return "", false
	}
	h.at--
	h.shown = h.sent[h.at]
	return h.shown, true
}

// newer is the entry after the one shown, "" past the newest.
func (h *questionHistory) newer(box string) (string, bool) {
	if !h.browsing(box) {
		return "", false
	}
	h.at++
	if h.at == len(h.sent) {
		h.shown = ""
		return "", true
	}
	h.shown = h.sent[h.at]
	return h.shown, true
}

// recall puts an entry of the history in the box when msg asks for one;
// it says whether it did.
func (a *askScreen) recall(older bool) bool {
	box := a.input.Value()
	text, ok := a.history.newer(box)
	if older {
		text, ok = a.history.older(box)
	}
	if !ok {
		return false
	}
	a.input.SetValue(text)
	a.input.MoveToEnd()
	a.inputBoxValid = false
	return true
}
