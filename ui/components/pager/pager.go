// Package pager is a vertical scroller over pre-rendered lines. Unlike the
// Bubbles viewport it measures nothing: the lines it gets are already cut to
// the width (the trajectory renderer guarantees it), so setting thousands of
// lines on every streamed token costs a slice assignment.
package pager

import "strings"

// Model is a window of Height lines over Lines.
type Model struct {
	lines  []string
	offset int
	height int
	// follow keeps the view at the bottom as lines are added, until the
	// user scrolls up.
	follow bool
}

// New returns a pager that follows new lines.
func New() Model { return Model{follow: true} }

// SetLines replaces the content. When following, the view moves to the
// bottom; otherwise the offset is kept (clamped).
func (m *Model) SetLines(lines []string) {
	m.lines = lines
	if m.follow {
		m.offset = m.maxOffset()
		return
	}
	m.offset = min(m.offset, m.maxOffset())
}

// Lines returns the content.
func (m *Model) Lines() []string { return m.lines }

// SetHeight sets the number of visible lines.
func (m *Model) SetHeight(h int) {
	m.height = max(h, 0)
	if m.follow {
		m.offset = m.maxOffset()
	}
	m.offset = min(m.offset, m.maxOffset())
}

// Height is the number of visible lines.
func (m *Model) Height() int { return m.height }

// Offset is the index of the first visible line.
func (m *Model) Offset() int { return m.offset }

// Following reports whether the view sticks to the bottom.
func (m *Model) Following() bool { return m.follow }

// SetFollow turns bottom-following on or off; on also jumps to the bottom.
func (m *Model) SetFollow(on bool) {
	m.follow = on
	if on {
		m.offset = m.maxOffset()
	}
}

func (m *Model) maxOffset() int { return max(len(m.lines)-m.height, 0) }

// ScrollBy moves the view n lines (negative is up). Scrolling up stops
// following; reaching the bottom starts again.
func (m *Model) ScrollBy(n int) {
	m.offset = min(max(m.offset+n, 0), m.maxOffset())
	m.follow = m.offset == m.maxOffset()
}

// PageDown and PageUp move by one screen, HalfDown and HalfUp by half.
func (m *Model) PageDown() { m.ScrollBy(max(m.height-1, 1)) }
func (m *Model) PageUp()   { m.ScrollBy(-max(m.height-1, 1)) }
func (m *Model) HalfDown() { m.ScrollBy(max(m.height/2, 1)) }
func (m *Model) HalfUp()   { m.ScrollBy(-max(m.height/2, 1)) }

// Top and Bottom jump to either end.
func (m *Model) Top() { m.offset, m.follow = 0, m.maxOffset() == 0 }
func (m *Model) Bottom() {
	m.offset, m.follow = m.maxOffset(), true
}

// ShowLine scrolls the least needed so line i is visible, with up to
// context lines after it when they exist.
func (m *Model) ShowLine(i, context int) {
	if i < m.offset {
		m.offset = i
	} else if last := i + context; last >= m.offset+m.height {
		m.offset = min(last-m.height+1, i)
	}
	m.offset = min(max(m.offset, 0), m.maxOffset())
	m.follow = m.offset == m.maxOffset() && m.follow
}

// StartAt puts line i at the top of the view (as far as the content goes).
func (m *Model) StartAt(i int) {
	m.offset = min(max(i, 0), m.maxOffset())
	m.follow = false
}

// View renders exactly Height lines (padding with empty ones).
func (m *Model) View() string {
	if m.height == 0 {
		return ""
	}
	end := min(m.offset+m.height, len(m.lines))
	var b strings.Builder
	n := 0
	for i := m.offset; i < end; i++ {
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.lines[i])
		n++
	}
	for ; n < m.height; n++ {
		if n > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Percent is how far down the view is, 0 to 100.
func (m *Model) Percent() int {
	if mo := m.maxOffset(); mo > 0 {
		return m.offset * 100 / mo
	}
	return 100
}
