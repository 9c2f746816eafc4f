package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prefrag/prefrag/engine"
	"github.com/prefrag/prefrag/sources"
	"github.com/prefrag/prefrag/ui/internal/termtext"
)

// dialog is a modal box over the current screen: it gets every key until
// it closes.
type dialog interface {
	// update handles a message; done reports that the dialog closed.
	update(msg tea.Msg) (cmd tea.Cmd, done bool)
	view(width int) string
	bindings() []keyGroup
	shortHelp() []key.Binding
}

// consentDialog asks before a query leaves the machine (web policy "ask").
type consentDialog struct {
	sh     *shared
	req    engine.ConsentRequest
	reply  chan<- engine.Consent
	choice int
	keys   consentKeys
	stream int
}

// consentChoices are the dialog's buttons: allow or deny, this query or
// every further one of the run. A denied query is not asked again in the
// same run (the engine remembers it).
var consentChoices = []struct {
	label string
	c     engine.Consent
}{
	{"Allow this query", engine.ConsentOnce},
	{"Allow for this run", engine.ConsentSession},
	{"Deny this query", engine.ConsentDeny},
	{"Deny for this run", engine.ConsentDenyRun},
}

func newConsentDialog(sh *shared, m consentMsg, stream int) *consentDialog {
	return &consentDialog{sh: sh, req: m.req, reply: m.reply, keys: newConsentKeys(), stream: stream}
}

func (d *consentDialog) answer(c engine.Consent) {
	select {
	case d.reply <- c:
	default:
	}
}

func (d *consentDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Once):
		d.answer(engine.ConsentOnce)
	case key.Matches(k, d.keys.Session):
		d.answer(engine.ConsentSession)
	case key.Matches(k, d.keys.Deny):
		d.answer(engine.ConsentDeny)
	case key.Matches(k, d.keys.DenyRun):
		d.answer(engine.ConsentDenyRun)
	case key.Matches(k, d.keys.Next):
		d.choice = (d.choice + 1) % len(consentChoices)
		return nil, false
	case key.Matches(k, d.keys.Prev):
		d.choice = (d.choice + len(consentChoices) - 1) % len(consentChoices)
		return nil, false
	case key.Matches(k, d.keys.Choose):
		d.answer(consentChoices[d.choice].c)
	default:
		return nil, false
	}
	return nil, true
}

func (d *consentDialog) view(width int) string {
	st := d.sh.st
	w := min(width-4, 72)
	inner := w - 4
	var b []string
	add := func(text string, style func(...string) string) {
		for _, l := range wrapText(text, inner) {
			b = append(b, style(l))
		}
	}
	title := "Search the web?"
	if d.req.Source != "" && !sources.IsWeb(d.req.Source) {
		title = "Send this query to " + sourceText(d.req.Source) + "?"
	}
	b = append(b, st.DialogTitle.Render(title))
	why := "The judge found the local documents not enough"
	if d.req.Reflection {
		why = "Reflection: the self-evaluation judged the answer weak, so the question itself is searched again on every source (no judge decision)"
	}
	if d.req.Step > 0 {
		why = "Step " + itoa(d.req.Step) + ": " + strings.ToLower(why[:1]) + why[1:]
	}
	add(why+". This query would leave the machine:", st.Text.Render)
	b = append(b, "")
	add("“"+termtext.Line(d.req.Query)+"”", st.Query.Render)
	if d.req.Source != "" {
		b = append(b, st.Dim.Render("to ")+st.SourceBadge(termtext.Line(d.req.Source)))
	}
	if a := termtext.Line(d.req.Analysis); a != "" && !d.req.Reflection {
		b = append(b, "", st.FieldLabel.Render("The judge's analysis"))
		lines := wrapText(a, inner)
		if len(lines) > 8 {
			lines = append(lines[:8], "…")
		}
		for _, l := range lines {
			b = append(b, st.Dim.Render(l))
		}
	}
	switch {
	case d.req.Carries != "":
		b = append(b, "")
		add("This query carries “"+termtext.Line(d.req.Carries)+"”, "+termtext.Line(d.req.CarriesKind)+" found in corpus “"+termtext.Line(d.req.Guarded)+"”, marked never-leave.", st.Warn.Render)
	case d.req.Guarded != "" && strings.HasPrefix(d.req.Hold, "the context"):
		b = append(b, "")
		add("The context holds passages of corpus “"+termtext.Line(d.req.Guarded)+"”, marked never-leave: this query may carry them.", st.Warn.Render)
	case d.req.Hold != "":
		b = append(b, "")
		add(termtext.Line(strings.ToUpper(d.req.Hold[:1])+d.req.Hold[1:])+": nothing goes without your consent.", st.Warn.Render)
	case d.req.Guarded != "":
		b = append(b, "")
		add("The context holds passages of corpus “"+termtext.Line(d.req.Guarded)+"”, marked never-leave: this query may carry them.", st.Warn.Render)
	}
	b = append(b, "")
	// Two rows: allow (this query, the run), deny (this query, the run).
	for row := 0; row < len(consentChoices); row += 2 {
		var buttons []string
		for i := row; i < min(row+2, len(consentChoices)); i++ {
			style := st.Button
			if i == d.choice {
				style = st.ButtonActive
			}
			buttons = append(buttons, style.Render(consentChoices[i].label))
		}
		b = append(b, truncateTo(strings.Join(buttons, " "), inner))
	}
	b = append(b, st.Dim.Render(truncateTo("a allow · s allow for this run · d/esc deny · x deny for this run", inner)))
	// An answer for the run covers the kind of source asked about only.
	add("“for this run”: all "+d.req.Kind.Spec().Queries+", until this question is answered", st.Dim.Render)
	b = append(b, st.Dim.Render(truncateTo("(denied: the run goes on with the local documents)", inner)))
	return st.Dialog.Width(w).Render(strings.Join(b, "\n"))
}

func (d *consentDialog) bindings() []keyGroup {
	return []keyGroup{{"Web consent", d.keys.bindings()}}
}

func (d *consentDialog) shortHelp() []key.Binding {
	return []key.Binding{d.keys.Once, d.keys.Session, d.keys.Deny, d.keys.DenyRun}
}
