package pager

import (
	"fmt"
	"strings"
	"testing"
)

func lines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i)
	}
	return out
}

func TestPager(t *testing.T) {
	tests := []struct {
		name       string
		do         func(m *Model)
		wantOffset int
		wantFollow bool
	}{
		{"follows new lines", func(m *Model) { m.SetLines(lines(30)) }, 20, true},
		{"scroll up stops following", func(m *Model) { m.SetLines(lines(30)); m.ScrollBy(-3); m.SetLines(lines(40)) }, 17, false},
		{"back at bottom follows again", func(m *Model) { m.SetLines(lines(30)); m.ScrollBy(-3); m.ScrollBy(3); m.SetLines(lines(40)) }, 30, true},
		{"page up clamps at top", func(m *Model) { m.SetLines(lines(15)); m.PageUp(); m.PageUp() }, 0, false},
		{"top then page down", func(m *Model) { m.SetLines(lines(30)); m.Top(); m.PageDown() }, 9, false},
		{"show line below the view", func(m *Model) { m.SetLines(lines(50)); m.Top(); m.ShowLine(25, 2) }, 18, false},
		{"show line above the view", func(m *Model) { m.SetLines(lines(50)); m.ShowLine(3, 2) }, 3, false},
		{"start at", func(m *Model) { m.SetLines(lines(50)); m.StartAt(12) }, 12, false},
		{"start at past the end clamps", func(m *Model) { m.SetLines(lines(50)); m.StartAt(48) }, 40, false},
		{"short content", func(m *Model) { m.SetLines(lines(4)) }, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			m.SetHeight(10)
			tt.do(&m)
			if m.Offset() != tt.wantOffset || m.Following() != tt.wantFollow {
				t.Fatalf("offset %d follow %v, want %d %v", m.Offset(), m.Following(), tt.wantOffset, tt.wantFollow)
			}
		})
	}
}

func TestViewIsExactlyHeight(t *testing.T) {
	m := New()
	m.SetHeight(5)
	m.SetLines(lines(2))
	if got := strings.Count(m.View(), "\n") + 1; got != 5 {
		t.Fatalf("view has %d lines, want 5", got)
	}
	m.SetLines(lines(9))
	if v := m.View(); v != "4\n5\n6\n7\n8" {
		t.Fatalf("view = %q", v)
	}
}
