package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/ui/components/pager"
	"github.com/prefrag/prefrag/ui/trajectory"
)

// trajView shows a trajectory in a scrollable pane with a document cursor:
// the ask screen uses it for the live run, the stepper for a replay.
type trajView struct {
	sh       *shared
	keys     trajKeys
	renderer *trajectory.Renderer
	pager    pager.Model
	traj     *trajectory.Trajectory

	expanded map[string]bool
	selected string
	out      trajectory.Output

	width  int
	upto   int
	detail bool
	// empty is shown when there is no trajectory.
	empty []string

	// claim is the current claim (of any answer shown; none by default);
	// reading is whether its cited passage is open over the trajectory.
	claim   trajectory.ClaimRef
	reading bool
	pkeys   passageKeys
	passage pager.Model
}

func newTrajView(sh *shared) *trajView {
	return &trajView{
		sh:       sh,
		keys:     newTrajKeys(),
		renderer: trajectory.NewRenderer(sh.st),
		pager:    pager.New(),
		pkeys:    newPassageKeys(),
		passage:  pager.New(),
		expanded: map[string]bool{},
		upto:     -1,
	}
}

// set shows t from the top (or following the bottom for a live run).
func (v *trajView) set(t *trajectory.Trajectory, follow bool) {
	if v.traj != nil && v.traj != t {
		v.renderer = trajectory.NewRenderer(v.sh.st)
	}
	v.traj = t
	v.expanded = map[string]bool{}
	v.selected = ""
	v.claim, v.reading = trajectory.ClaimRef{}, false
	v.pager.SetFollow(follow)
	v.refresh()
	if !follow {
		v.pager.Top()
	}
}

func (v *trajView) restyle() {
	v.renderer.SetStyles(v.sh.st)
	v.refresh()
}

func (v *trajView) setSize(w, h int) {
	v.pager.SetHeight(h)
	v.passage.SetHeight(h)
	if w != v.width {
		v.width = w
		v.refresh()
		v.renderPassage(false)
	}
}

// refresh re-renders the trajectory into the pager.
func (v *trajView) refresh() {
	if v.traj == nil {
		v.out = trajectory.Output{}
		v.pager.SetLines(v.empty)
		return
	}
	v.out = v.renderer.Render(v.traj, v.viewState())
	if v.out.ClaimLine < 0 && !v.claim.None() {
		// The claim's answer is no longer shown (the stepper went back).
		v.claim, v.reading = trajectory.ClaimRef{}, false
		v.out = v.renderer.Render(v.traj, v.viewState())
	}
	if _, ok := v.out.DocLine[v.selected]; !ok {
		v.selected = ""
	}
	v.pager.SetLines(v.out.Lines)
}

func (v *trajView) viewState() trajectory.View {
	return trajectory.View{
		Width: v.width, Expanded: v.expanded, Selected: v.selected,
		Upto: v.upto, ShowFinal: v.upto < 0, Detail: v.detail, Claim: v.claim,
	}
}

func (v *trajView) setEmpty(lines []string) {
	v.empty = lines
	if v.traj == nil {
		v.pager.SetLines(lines)
	}
}

// update handles navigation keys and the mouse wheel; it reports whether
// it used the message.
func (v *trajView) update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.scroller().ScrollBy(-3)
		case tea.MouseWheelDown:
			v.scroller().ScrollBy(3)
		default:
			return false
		}
		return true
	case tea.KeyPressMsg:
		if v.reading {
			v.updatePassage(msg)
			return true
		}
		switch {
		case key.Matches(msg, v.keys.NextClaim):
			v.moveClaim(1)
		case key.Matches(msg, v.keys.PrevClaim):
			v.moveClaim(-1)
		case key.Matches(msg, v.keys.Open):
			v.openPassage()
		case key.Matches(msg, v.keys.Next):
			v.moveDoc(1)
		case key.Matches(msg, v.keys.Prev):
			v.moveDoc(-1)
		case key.Matches(msg, v.keys.Toggle):
			if v.selected == "" {
				return false
			}
			v.expanded[v.selected] = !v.expanded[v.selected]
			v.refresh()
			v.pager.ShowLine(v.out.DocLine[v.selected], 2)
		case key.Matches(msg, v.keys.PageDown):
			v.pager.PageDown()
		case key.Matches(msg, v.keys.PageUp):
			v.pager.PageUp()
		case key.Matches(msg, v.keys.Top):
			v.pager.Top()
		case key.Matches(msg, v.keys.Bottom):
			v.pager.Bottom()
		default:
			return false
		}
		return true
	}
	return false
}

// moveDoc moves the document cursor; without documents it scrolls. The
// first move picks the first document in view.
func (v *trajView) moveDoc(dir int) {
	docs := v.out.Docs
	if len(docs) == 0 {
		v.pager.ScrollBy(dir)
		return
	}
	idx := -1
	for i, k := range docs {
		if k == v.selected {
			idx = i
		}
	}
	top, bottom := v.pager.Offset(), v.pager.Offset()+v.pager.Height()
	switch {
	case idx < 0 || v.out.DocLine[docs[idx]] < top || v.out.DocLine[docs[idx]] >= bottom:
		// Nothing selected in view: start from what is on screen.
		idx = -1
		if dir > 0 {
			for i, k := range docs {
				if v.out.DocLine[k] >= top {
					idx = i
					break
				}
			}
			if idx < 0 {
				idx = len(docs) - 1
			}
		} else {
			for i := len(docs) - 1; i >= 0; i-- {
				if v.out.DocLine[docs[i]] < bottom {
					idx = i
					break
				}
			}
			if idx < 0 {
				idx = 0
			}
		}
	default:
		idx = min(max(idx+dir, 0), len(docs)-1)
	}
	v.selected = docs[idx]
	v.refresh()
	v.pager.ShowLine(v.out.DocLine[v.selected], 2)
}

func (v *trajView) view() string {
	if v.reading {
		return v.passage.View()
	}
	return v.pager.View()
}

// scroller is the pager in front: the passage when open.
func (v *trajView) scroller() *pager.Model {
	if v.reading {
		return &v.passage
	}
	return &v.pager
}
