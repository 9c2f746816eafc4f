package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// sessionsScreen lists stored sessions newest first, filters them by text
// and opens one in the stepper.
type sessionsScreen struct {
	sh    *shared
	keys  sessionsKeys
	lkeys listKeys
	fkeys filterKeys

	list    []SessionSummary
	err     error
	loaded  bool
	loading bool
	stale   bool
	req     int

	cursor int
	offset int
	marked map[string]bool

	filter    textinput.Model
	filtering bool

	goBack        bool
	width, height int
}

type (
	sessionsMsg struct {
		req  int
		list []SessionSummary
		err  error
	}
	openSessionMsg struct{ id string }
)

// rowHeight is the number of lines per session in the list.
const rowHeight = 2

func newSessionsScreen(sh *shared) *sessionsScreen {
	s := &sessionsScreen{sh: sh, keys: newSessionsKeys(), lkeys: newListKeys(), fkeys: newFilterKeys(), marked: map[string]bool{}}
	s.filter = textinput.New()
	s.filter.Prompt = "/ "
	s.filter.Placeholder = "words in the question or the answer"
	s.filter.CharLimit = 200
	return s
}

func (s *sessionsScreen) setSize(w, h int) {
	s.width, s.height = w, h
	s.filter.SetWidth(w - 4)
}

func (s *sessionsScreen) isTyping() bool { return s.filtering }

func (s *sessionsScreen) back() bool {
	b := s.goBack
	s.goBack = false
	return b
}

func (s *sessionsScreen) owns(msg tea.Msg) bool {
	_, ok := msg.(sessionsMsg)
	return ok
}

// enter is called when the screen is shown: it loads the list the first
// time and after a run changed it.
func (s *sessionsScreen) enter() tea.Cmd {
	if s.loaded && !s.stale {
		return nil
	}
	return s.reload()
}

func (s *sessionsScreen) reload() tea.Cmd {
	src := s.sh.deps.Sessions
	if src == nil {
		s.loaded, s.err = true, fmt.Errorf("no session store is configured")
		return nil
	}
	s.req++
	s.loading, s.stale = true, false
	req, ctx, filter := s.req, s.sh.ctx, strings.TrimSpace(s.filter.Value())
	return func() tea.Msg {
		list, err := src.List(ctx, filter)
		return sessionsMsg{req: req, list: list, err: err}
	}
}

func (s *sessionsScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sessionsMsg:
		if msg.req != s.req {
			return nil // an older filter's answer
		}
		s.loading, s.loaded, s.err = false, true, msg.err
		if msg.err == nil {
			s.list = msg.list
			if s.sh.shortIDs == nil {
				s.sh.shortIDs = map[string]string{}
			}
			for _, ss := range msg.list {
				if ss.ShortID != "" {
					s.sh.shortIDs[ss.ID] = ss.ShortID
				}
			}
		}
		s.cursor = min(s.cursor, max(len(s.list)-1, 0))
		s.clampOffset()
		return nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			s.cursor = min(s.cursor+1, max(len(s.list)-1, 0))
		case tea.MouseWheelUp:
			s.cursor = max(s.cursor-1, 0)
		}
		s.clampOffset()
		return nil
	case tea.PasteMsg:
		if s.filtering {
			return s.updateFilter(msg)
		}
	case tea.KeyPressMsg:
		if s.filtering {
			return s.updateFilter(msg)
		}
		return s.updateList(msg)
	}
	return nil
}

func (s *sessionsScreen) updateFilter(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, s.fkeys.Apply):
			s.filtering = false
			s.filter.Blur()
			return nil
		case key.Matches(k, s.fkeys.Clear):
			s.filtering = false
			s.filter.Blur()
			s.filter.SetValue("")
			return s.reload()
		}
	}
	before := s.filter.Value()
	var cmd tea.Cmd
	s.filter, cmd = s.filter.Update(msg)
	if s.filter.Value() != before {
		s.cursor, s.offset = 0, 0
		return tea.Batch(cmd, s.reload())
	}
	return cmd
}

func (s *sessionsScreen) updateList(msg tea.KeyPressMsg) tea.Cmd {
	if c, ok := s.lkeys.move(msg, s.cursor, len(s.list), s.pageSize()); ok {
		s.cursor = c
		s.clampOffset()
		return nil
	}
	switch {
	case key.Matches(msg, s.keys.Back):
		s.goBack = true
	case key.Matches(msg, s.keys.Filter):
		s.filtering = true
		return s.filter.Focus()
	case key.Matches(msg, s.keys.Reload):
		return s.reload()
	case key.Matches(msg, s.keys.Mark):
		if cur, ok := s.current(); ok {
			s.marked[cur.ID] = !s.marked[cur.ID]
			if !s.marked[cur.ID] {
				delete(s.marked, cur.ID)
			}
			s.cursor = min(s.cursor+1, max(len(s.list)-1, 0))
			s.clampOffset()
		}
	case key.Matches(msg, s.keys.Export):
		ids := s.markedIDs()
		if len(ids) == 0 {
			if cur, ok := s.current(); ok {
				ids = []string{cur.ID}
			}
		}
		if len(ids) > 0 {
			s.sh.open(openExportMsg{ids: ids})
		}
	case key.Matches(msg, s.keys.Open):
		if cur, ok := s.current(); ok {
			s.sh.open(openSessionMsg{id: cur.ID})
		}
	}
	return nil
}

// markedIDs are the marked sessions in list order.
func (s *sessionsScreen) markedIDs() []string {
	var ids []string
	for _, ss := range s.list {
		if s.marked[ss.ID] {
			ids = append(ids, ss.ID)
		}
	}
	return ids
}

func (s *sessionsScreen) current() (SessionSummary, bool) {
	if s.cursor < 0 || s.cursor >= len(s.list) {
		return SessionSummary{}, false
	}
	return s.list[s.cursor], true
}

// listHeight is the number of lines for rows.
func (s *sessionsScreen) listHeight() int {
	h := s.height - 2 // header and blank line
	if s.filtering || s.filter.Value() != "" {
		h--
	}
	return max(h, rowHeight)
}

func (s *sessionsScreen) pageSize() int { return max(s.listHeight()/rowHeight, 1) }

func (s *sessionsScreen) clampOffset() {
	page := s.pageSize()
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+page {
		s.offset = s.cursor - page + 1
	}
	s.offset = max(min(s.offset, len(s.list)-page), 0)
}

func (s *sessionsScreen) view() string {
	st := s.sh.st
	var out []string
	head := st.Bold.Render(fmt.Sprintf(" Sessions (%d)", len(s.list)))
	if n := len(s.marked); n > 0 {
		head += st.Marked.Render(fmt.Sprintf(" · %d marked", n))
	}
	if s.loading {
		head += st.Dim.Render(" · loading…")
	}
	out = append(out, truncateTo(head, s.width), "")
	if s.filtering || s.filter.Value() != "" {
		out = append(out, " "+s.filter.View())
	}
	switch {
	case s.err != nil:
		out = append(out, st.Error.Render(truncateTo(" ✗ "+oneLine(s.err.Error()), s.width)))
		return strings.Join(out, "\n")
	case s.loaded && len(s.list) == 0 && s.filter.Value() != "":
		out = append(out, st.Dim.Render(truncateTo(" No session matches “"+oneLine(s.filter.Value())+"”.", s.width)))
		return strings.Join(out, "\n")
	case s.loaded && len(s.list) == 0:
		out = append(out, st.Dim.Render(" No sessions yet. Ask a question on the Ask screen (1): every run is kept here."))
		return strings.Join(out, "\n")
	}
	now := s.sh.now()
	end := min(s.offset+s.pageSize(), len(s.list))
	for i := s.offset; i < end; i++ {
		out = append(out, s.row(s.list[i], i == s.cursor, now)...)
	}
	return strings.Join(out, "\n")
}

// row renders one session: the question, then date, label, model, status
// and the start of the answer.
func (s *sessionsScreen) row(ss SessionSummary, selected bool, now time.Time) []string {
	st := s.sh.st
	mark := "  "
	if s.marked[ss.ID] {
		mark = st.Marked.Render("* ")
	}
	if selected {
		mark = st.RowSelected.Render("›") + " "
		if s.marked[ss.ID] {
			mark = st.RowSelected.Render("›") + st.Marked.Render("*")
		}
	}
	qst := st.Row
	if selected {
		qst = st.RowSelected
	}
	q := truncateTo(oneLine(ss.Question), s.width-ansi.StringWidth(mark))
	first := mark + qst.Render(q)
	meta := []string{dateText(ss.Started, now)}
	if ss.Label != "" || ss.Status == "answered" {
		meta = append(meta, st.LabelBadge(ss.Label))
	}
	if ss.Model != "" {
		meta = append(meta, oneLine(ss.Model))
	}
	if ss.Status != "" && ss.Status != "answered" {
		meta = append(meta, st.Warn.Render(oneLine(ss.Status)))
	}
	second := "    " + strings.Join(meta, st.Dim.Render(" · "))
	if a := oneLine(ss.Answer); a != "" {
		second += st.Dim.Render(" · " + a)
	}
	return []string{first, truncateTo(second, s.width)}
}

func (s *sessionsScreen) bindings() []keyGroup {
	return []keyGroup{{"Sessions", s.keys.bindings()}, {"Lists", s.lkeys.bindings()}, {"Filter input", s.fkeys.bindings()}}
}

func (s *sessionsScreen) shortHelp() []key.Binding {
	if s.filtering {
		return s.fkeys.bindings()
	}
	return []key.Binding{s.keys.Open, s.keys.Filter, s.keys.Mark, s.keys.Export, s.keys.Back}
}

// busy reports whether the list shown is about to change: keys wait
// for it (Model.holding).
func (s *sessionsScreen) busy() bool { return s.loading }
