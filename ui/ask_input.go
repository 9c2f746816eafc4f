package ui

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/internal/plural"
)

// questionLimit is the most characters the question box holds. Text typed
// or pasted beyond it is left out, and a notice says how much.
const questionLimit = 20000

// typedFlushEvery is how long typed characters wait before they enter the
// question box. A paste that arrives without bracketed paste is one key
// message per character; the textarea re-wraps and re-renders its whole
// content on every insertion, so inserting 240,000 characters one at a
// time took minutes. Buffered, a burst costs one insertion per tick.
const typedFlushEvery = 15 * time.Millisecond

// typedFlushMsg moves the typed characters into the question box.
type typedFlushMsg struct{}

// typedBuffer holds characters typed into the question box that are not in
// the textarea yet.
type typedBuffer struct {
	text    strings.Builder
	runes   int
	room    int  // characters the box can still take (valid when roomOK)
	roomOK  bool // room is up to date with the textarea's content
	ticking bool // a typedFlushMsg is on its way
	dropped int  // characters left out since the last notice
	// droppedTotal is every character left out since the box was sent.
	droppedTotal int
}

// plainText reports whether a key press only types characters (no
// binding of the ask screen or of the textarea applies to it).
func (a *askScreen) plainText(msg tea.KeyPressMsg) bool {
	if msg.Text == "" || msg.Mod&^tea.ModShift != 0 {
		return false
	}
	if key.Matches(msg, a.ikeys.Send, a.ikeys.Newline, a.ikeys.Focus, a.ikeys.Cancel) {
		return false
	}
	return !a.input.HasSelection()
}

// buffer queues typed text: constant work per key, whatever the box holds.
func (a *askScreen) buffer(s string) tea.Cmd {
	b := &a.typed
	if !b.roomOK {
		b.room, b.roomOK = questionLimit-utf8.RuneCountInString(a.input.Value()), true
	}
	n := utf8.RuneCountInString(s)
	if free := b.room - b.runes; n > free {
		free = max(free, 0)
		b.dropped += n - free
		s, n = firstRunes(s, free), free
	}
	b.text.WriteString(s)
	b.runes += n
	if b.ticking {
		return nil
	}
	b.ticking = true
	return tea.Tick(typedFlushEvery, func(time.Time) tea.Msg { return typedFlushMsg{} })
}

// flushTyped inserts the buffered characters into the textarea (one
// insertion for the whole burst) and says when some were left out.
func (a *askScreen) flushTyped() {
	b := &a.typed
	if b.runes > 0 {
		s := b.text.String()
		b.text.Reset()
		b.runes = 0
		a.insert(s)
	}
	a.reportDropped()
}

// insert puts text into the question box at the cursor, as a paste.
func (a *askScreen) insert(s string) {
	a.inputBoxValid = false
	a.typed.roomOK = false
	if a.input.Focused() {
		a.input, _ = a.input.Update(tea.PasteMsg{Content: s})
		return
	}
	a.input.InsertString(s)
}

// paste inserts a bracketed paste, cut to the room left in the box.
func (a *askScreen) paste(s string) {
	a.flushTyped()
	room := max(questionLimit-utf8.RuneCountInString(a.input.Value()), 0)
	if n := utf8.RuneCountInString(s); n > room {
		a.typed.dropped += n - room
		s = firstRunes(s, room)
	}
	if s != "" {
		a.insert(s)
	}
	a.reportDropped()
}

// inputChanged marks the cached room as stale after any other edit.
func (a *askScreen) inputChanged() { a.typed.roomOK = false }

// reportDropped shows how many characters were left out since the box was
// last sent.
func (a *askScreen) reportDropped() {
	b := &a.typed
	if b.dropped == 0 {
		return
	}
	b.droppedTotal += b.dropped
	b.dropped = 0
	a.note(fmt.Sprintf("Text cut at %s characters (the question box's limit): %s characters left out.",
		plural.Thousands(questionLimit), plural.Thousands(b.droppedTotal)), true)
}

// sent forgets what was cut from a question that has been sent.
func (a *askScreen) sent() {
	a.typed.droppedTotal = 0
	a.typed.roomOK = false
}

func firstRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// showWelcome puts the welcome text in the empty trajectory pane, rendered
// again only when what it says can have changed (it was rendered after
// every message, keys included: most of the cost of a typed character).
func (a *askScreen) showWelcome() {
	sh := a.sh
	sig := fmt.Sprintf("%d|%s|%s|%v|%d|%v|%p", a.width, sh.preferred(), sh.webPolicy(), sh.corporaLoaded, len(sh.corpora), sh.corporaErr, sh.st)
	if sig == a.welcomeSig {
		return
	}
	a.welcomeSig = sig
	a.tv.setEmpty(a.welcome())
}

// noticeView is the notice line, rendered again only when it changed (the
// frame is composed after every key).
func (a *askScreen) noticeView() string {
	sig := fmt.Sprintf("%s|%v|%d|%p", a.notice, a.noticeErr, a.width, a.sh.st)
	if sig != a.noticeSig {
		nst := a.sh.st.Dim
		if a.noticeErr {
			nst = a.sh.st.Error
		}
		a.noticeSig, a.noticeLine = sig, nst.Render(truncateTo(a.notice, a.width))
	}
	return a.noticeLine
}
