package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/components/pager"
	"github.com/prefrag/prefrag/ui/trajectory"
)

type corporaMode int

const (
	modeList corporaMode = iota
	modeAdd
	modeIndexing
	modeQuery
	modeResults
)

// searchK is how many passages a corpus search shows.
const searchK = 10

// corporaScreen lists the corpora, pins one, adds folders with a progress
// bar and searches a corpus directly.
type corporaScreen struct {
	sh    *shared
	keys  corporaKeys
	lkeys listKeys
	ikeys indexKeys
	rkeys resultKeys
	fkeys formKeys

	mode   corporaMode
	cursor int

	// add form
	name, path textinput.Model
	field      int

	// indexing
	index    *stream
	cancel   context.CancelFunc
	target   string
	paths    []string
	pinAfter bool
	prog     IndexProgress
	started  time.Time
	barWidth int

	// search
	query    textinput.Model
	searched string
	results  []sources.Document
	expanded map[int]bool
	selected int
	resPager pager.Model
	docLine  []int
	renderer *trajectory.Renderer

	message    string
	messageErr bool
	goBack     bool

	width, height int
}

type (
	// startIndexMsg starts an ingest (from the first-run dialog or the add
	// form); guide selects the bundled guide instead of paths.
	startIndexMsg struct {
		corpus   string
		paths    []string
		guide    bool
		pinAfter bool
	}
	pinMsg struct {
		name string
		err  error
		// after is the message of the ingest that led to the pin.
		after string
	}
	searchMsg struct {
		corpus, query string
		docs          []sources.Document
		err           error
	}
	reloadCorporaMsg struct{}
)

func newCorporaScreen(sh *shared) *corporaScreen {
	c := &corporaScreen{sh: sh, keys: newCorporaKeys(), lkeys: newListKeys(), ikeys: newIndexKeys(),
		rkeys: newResultKeys(), fkeys: newFormKeys(), expanded: map[int]bool{}, resPager: pager.New()}
	c.name, c.path, c.query = textinput.New(), textinput.New(), textinput.New()
	c.name.Prompt, c.path.Prompt, c.query.Prompt = "corpus  ", "folder  ", "search  "
	c.name.CharLimit, c.path.CharLimit, c.query.CharLimit = 64, 4096, 500
	c.query.Placeholder = "words to look for"
	c.renderer = trajectory.NewRenderer(sh.st)
	return c
}

func (c *corporaScreen) setSize(w, h int) {
	c.width, c.height = w, h
	for _, in := range []*textinput.Model{&c.name, &c.path, &c.query} {
		in.SetWidth(w - 12)
	}
	c.barWidth = max(min(w-8, 60), 10)
	c.resPager.SetHeight(max(h-3, 1))
	c.renderResults()
}

func (c *corporaScreen) isTyping() bool { return c.mode == modeAdd || c.mode == modeQuery }

func (c *corporaScreen) back() bool {
	b := c.goBack
	c.goBack = false
	return b
}

func (c *corporaScreen) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case pinMsg, searchMsg:
		return true
	}
	return false
}

// enter is called when the screen is shown.
func (c *corporaScreen) enter() tea.Cmd {
	c.sh.open(reloadCorporaMsg{})
	return nil
}

// listed is called when a new corpus list arrived.
func (c *corporaScreen) listed() {
	c.cursor = min(c.cursor, max(len(c.sh.corpora)-1, 0))
}

func (c *corporaScreen) selectedCorpus() string {
	if c.cursor < len(c.sh.corpora) {
		return c.sh.corpora[c.cursor].Name
	}
	return ""
}

func (c *corporaScreen) say(msg string, isErr bool) { c.message, c.messageErr = msg, isErr }

func (c *corporaScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pinMsg:
		if msg.err != nil {
			c.say("Cannot pin "+msg.name+": "+oneLine(msg.err.Error()), true)
			return nil
		}
		c.sh.pinned(msg.name)
		text := msg.name + " is now the preferred corpus: questions search it first."
		if msg.after != "" {
			text = msg.after + " " + msg.name + " is pinned as the preferred corpus — press 1 to ask a question."
		}
		c.say(text, false)
		c.sh.open(reloadCorporaMsg{})
		return nil
	case searchMsg:
		if msg.corpus != c.selectedCorpus() || msg.query != c.searched {
			return nil
		}
		if msg.err != nil {
			c.say("Search failed: "+oneLine(msg.err.Error()), true)
			c.mode = modeList
			return nil
		}
		c.results, c.expanded, c.selected = msg.docs, map[int]bool{}, 0
		c.mode = modeResults
		c.resPager.SetFollow(false)
		c.renderResults()
		c.resPager.Top()
		return nil
	case tea.MouseWheelMsg:
		if c.mode == modeResults {
			if msg.Button == tea.MouseWheelUp {
				c.resPager.ScrollBy(-3)
			} else if msg.Button == tea.MouseWheelDown {
				c.resPager.ScrollBy(3)
			}
		}
		return nil
	case tea.PasteMsg:
		return c.updateInput(msg)
	case tea.KeyPressMsg:
		switch c.mode {
		case modeList:
			return c.updateList(msg)
		case modeAdd, modeQuery:
			return c.updateInput(msg)
		case modeIndexing:
			if key.Matches(msg, c.ikeys.Cancel) && c.cancel != nil {
				c.cancel()
				c.say("Cancelling… files already indexed are kept; adding the folder again resumes.", false)
			}
		case modeResults:
			return c.updateResults(msg)
		}
	}
	return nil
}

func (c *corporaScreen) updateList(msg tea.KeyPressMsg) tea.Cmd {
	if cur, ok := c.lkeys.move(msg, c.cursor, len(c.sh.corpora), max(c.height-4, 1)); ok {
		c.cursor = cur
		return nil
	}
	corp := c.sh.deps.Corpora
	switch {
	case key.Matches(msg, c.keys.Back):
		c.goBack = true
	case corp == nil:
		c.say("No corpus service is configured.", true)
	case key.Matches(msg, c.keys.Reload):
		c.sh.open(reloadCorporaMsg{})
	case key.Matches(msg, c.keys.Pin):
		name := c.selectedCorpus()
		if name == "" {
			return nil
		}
		ctx := c.sh.ctx
		return func() tea.Msg { return pinMsg{name: name, err: corp.Pin(ctx, name)} }
	case key.Matches(msg, c.keys.Add):
		name := c.selectedCorpus()
		if name == "" || name == GuideCorpus {
			name = "default"
		}
		c.name.SetValue(name)
		c.path.SetValue(c.sh.opts.WorkDir)
		c.path.CursorEnd()
		c.name.CursorEnd()
		c.mode, c.field = modeAdd, 0
		c.path.Blur()
		return c.name.Focus()
	case key.Matches(msg, c.keys.Search):
		if c.selectedCorpus() == "" {
			return nil
		}
		c.mode = modeQuery
		c.query.SetValue("")
		return c.query.Focus()
	case key.Matches(msg, c.keys.Guide):
		return c.startIndex(startIndexMsg{corpus: GuideCorpus, guide: true})
	}
	return nil
}

func (c *corporaScreen) updateInput(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, c.fkeys.Cancel):
			c.mode = modeList
			c.name.Blur()
			c.path.Blur()
			c.query.Blur()
			return nil
		case c.mode == modeAdd && (key.Matches(k, c.fkeys.Next) || key.Matches(k, c.fkeys.Prev)):
			c.field = 1 - c.field
			if c.field == 0 {
				c.path.Blur()
				return c.name.Focus()
			}
			c.name.Blur()
			return c.path.Focus()
		case key.Matches(k, c.fkeys.Submit):
			if c.mode == modeQuery {
				return c.search()
			}
			name, path := strings.TrimSpace(c.name.Value()), strings.TrimSpace(c.path.Value())
			if name == "" || path == "" {
				c.say("Both a corpus name and a folder are needed.", true)
				return nil
			}
			c.name.Blur()
			c.path.Blur()
			return c.startIndex(startIndexMsg{corpus: name, paths: []string{expandHome(path)}, pinAfter: len(c.sh.corpora) == 0})
		}
	}
	var cmd tea.Cmd
	switch {
	case c.mode == modeQuery:
		c.query, cmd = c.query.Update(msg)
	case c.field == 0:
		c.name, cmd = c.name.Update(msg)
	default:
		c.path, cmd = c.path.Update(msg)
	}
	return cmd
}

func (c *corporaScreen) search() tea.Cmd {
	q := strings.TrimSpace(c.query.Value())
	name := c.selectedCorpus()
	corp := c.sh.deps.Corpora
	if q == "" || name == "" || corp == nil {
		return nil
	}
	c.query.Blur()
	c.searched = q
	c.mode = modeList
	c.say("Searching "+name+"…", false)
	ctx := c.sh.ctx
	return func() tea.Msg {
		docs, err := corp.Search(ctx, name, q, searchK)
		return searchMsg{corpus: name, query: q, docs: docs, err: err}
	}
}

func (c *corporaScreen) updateResults(msg tea.KeyPressMsg) tea.Cmd {
	if cur, ok := c.lkeys.move(msg, c.selected, len(c.results), 1); ok {
		c.selected = cur
		c.renderResults()
		if c.selected < len(c.docLine) {
			c.resPager.ShowLine(c.docLine[c.selected], 2)
		}
		return nil
	}
	switch {
	case key.Matches(msg, c.rkeys.Back):
		c.mode = modeList
		c.message = ""
	case key.Matches(msg, c.rkeys.Again):
		c.mode = modeQuery
		c.query.SetValue(c.searched)
		c.query.CursorEnd()
		return c.query.Focus()
	case key.Matches(msg, c.rkeys.Toggle):
		c.expanded[c.selected] = !c.expanded[c.selected]
		c.renderResults()
		if c.selected < len(c.docLine) {
			c.resPager.ShowLine(c.docLine[c.selected], 2)
		}
	}
	return nil
}

func (c *corporaScreen) renderResults() {
	if c.renderer == nil || c.mode != modeResults {
		return
	}
	lines, docLine := c.renderer.Documents(c.results, c.width, c.expanded, c.selected)
	c.docLine = docLine
	c.resPager.SetLines(lines)
}

// startIndex begins an ingest in the background.
func (c *corporaScreen) startIndex(req startIndexMsg) tea.Cmd {
	corp := c.sh.deps.Corpora
	if corp == nil {
		c.say("No corpus service is configured.", true)
		return nil
	}
	if c.mode == modeIndexing {
		c.say("An ingest is already running — esc cancels it.", true)
		return nil
	}
	ctx, cancel := context.WithCancel(c.sh.ctx)
	s := c.sh.newStream()
	c.index, c.cancel, c.mode = s, cancel, modeIndexing
	c.target, c.paths, c.pinAfter = req.corpus, req.paths, req.pinAfter
	c.prog, c.started = IndexProgress{}, c.sh.now()
	c.message = ""
	run := func(progress func(IndexProgress)) (IndexReport, error) {
		if req.guide {
			return corp.IndexGuide(ctx, progress)
		}
		return corp.Index(ctx, req.corpus, req.paths, progress)
	}
	name := req.corpus
	return func() tea.Msg {
		startIndex(s, run, name)
		return s.next()()
	}
}

// handleIndex applies a batch from the ingest stream.
func (c *corporaScreen) handleIndex(b batchMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, m := range b.msgs {
		switch m := m.(type) {
		case indexProgressMsg:
			c.prog = m.p
		case indexDoneMsg:
			cmds = append(cmds, c.indexDone(m))
		}
	}
	if !b.done {
		cmds = append(cmds, c.index.next())
	} else if c.mode == modeIndexing {
		c.mode = modeList
	}
	return tea.Batch(cmds...)
}

func (c *corporaScreen) indexDone(m indexDoneMsg) tea.Cmd {
	c.mode = modeList
	if c.cancel != nil {
		c.cancel()
	}
	r := m.rep
	var sb strings.Builder
	switch {
	case m.err != nil && errors.Is(m.err, context.Canceled):
		fmt.Fprintf(&sb, "Cancelled: %d of %s indexed into %s (%s); add the folder again to resume.", r.Indexed, plural.N(r.Files, "file"), m.corpus, passages(r.Passages))
	case m.err != nil:
		c.say("Indexing "+m.corpus+" failed: "+oneLine(m.err.Error()), true)
		c.sh.open(reloadCorporaMsg{})
		return nil
	default:
		fmt.Fprintf(&sb, "Indexed %s: %s read, %d unchanged, %d removed, %s added in %s.",
			m.corpus, plural.N(r.Indexed, "file"), r.Unchanged, r.Removed, passages(r.Passages), clockText(r.Duration))
		if r.Exports > 0 {
			fmt.Fprintf(&sb, " Skipped %s prefrag exported (earlier answers are not sources).", plural.N(r.Exports, "file"))
		}
		if r.Files == 0 {
			sb.WriteString(" No supported files (" + supportedFiles + ") were found there.")
		}
		if r.Vectors != "" {
			sb.WriteString(" " + r.Vectors)
		}
	}
	if n := len(r.Failed); n > 0 {
		fmt.Fprintf(&sb, " %d could not be read, e.g. %s.", n, oneLine(r.Failed[0]))
	}
	c.say(sb.String(), m.err != nil || len(r.Failed) > 0)
	c.sh.open(reloadCorporaMsg{})
	if c.pinAfter && m.err == nil && r.Passages > 0 {
		corp, ctx, name, after := c.sh.deps.Corpora, c.sh.ctx, m.corpus, c.message
		return func() tea.Msg { return pinMsg{name: name, err: corp.Pin(ctx, name), after: after} }
	}
	return nil
}

// expandHome turns a leading ~ into the home directory.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := userHome(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}
