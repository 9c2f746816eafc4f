package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// exportDialog exports the open session or a selection of sessions to a
// path the user chooses, in one of the formats Sessions.Formats offers.
type exportDialog struct {
	sh      *shared
	keys    formKeys
	ids     []string
	formats []ExportFormat

	format int
	field  int // 0 format, 1 path
	path   textinput.Model
	edited bool

	busy    bool
	confirm bool // the file exists: overwrite?
	err     error
}

type exportDoneMsg struct {
	path string
	err  error
}

func newExportDialog(sh *shared, ids []string) *exportDialog {
	d := &exportDialog{sh: sh, keys: newFormKeys(), ids: ids, formats: sh.deps.Sessions.Formats()}
	d.path = textinput.New()
	d.path.Prompt = ""
	d.path.CharLimit = 4096
	d.path.SetWidth(50)
	d.path.SetValue(d.defaultPath())
	return d
}

// defaultPath is prefrag-<id>.<ext> (or prefrag-<n>-sessions.<ext>, and
// for a format of one file per session, HTML, the folder prefrag-<n>-sessions/) in the
// exports folder (Options.ExportDir): an export written into a folder the
// user indexes would come back as a source.
func (d *exportDialog) defaultPath() string {
	name := "prefrag-" + d.sh.shortID(d.ids[0])
	if len(d.ids) > 1 {
		name = fmt.Sprintf("prefrag-%d-sessions", len(d.ids))
	}
	dir := d.sh.opts.ExportDir
	if dir == "" {
		dir = d.sh.opts.WorkDir
	}
	if f := d.formats[d.format]; len(d.ids) > 1 && f.PerSession {
		// One file per session: the path is a folder.
		return filepath.Join(dir, name) + string(filepath.Separator)
	}
	return filepath.Join(dir, name+d.formats[d.format].Ext)
}

// typing reports whether the path field takes the keys.
func (d *exportDialog) typing() bool { return d.field == 1 && !d.busy && !d.confirm }

func (d *exportDialog) owns(msg tea.Msg) bool {
	_, ok := msg.(exportDoneMsg)
	return ok
}

func (d *exportDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case exportDoneMsg:
		d.busy = false
		switch {
		case errors.Is(msg.err, fs.ErrExist):
			d.confirm, d.err = true, nil
		case msg.err != nil:
			d.err = msg.err
		default:
			// Written: the dialog closes and the status line says where
			// (until the next key).
			d.sh.flash = "✓ Written to " + oneLine(msg.path)
			return nil, true
		}
		return nil, false
	case tea.PasteMsg:
		if d.typing() {
			var cmd tea.Cmd
			d.path, cmd = d.path.Update(msg)
			d.edited = true
			return cmd, false
		}
	case tea.KeyPressMsg:
		return d.key(msg)
	}
	return nil, false
}

func (d *exportDialog) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if d.busy {
		return nil, false
	}
	if d.confirm {
		switch {
		case key.Matches(msg, d.keys.Confirm):
			d.confirm = false
			return d.export(true), false
		case key.Matches(msg, d.keys.Refuse), key.Matches(msg, d.keys.Cancel):
			d.confirm = false
			d.field = 1
			return d.path.Focus(), false
		}
		return nil, false
	}
	switch {
	case key.Matches(msg, d.keys.Cancel):
		return nil, true
	case key.Matches(msg, d.keys.Submit):
		return d.export(false), false
	case key.Matches(msg, d.keys.Next), key.Matches(msg, d.keys.Prev):
		d.field = 1 - d.field
		if d.field == 1 {
			return d.path.Focus(), false
		}
		d.path.Blur()
		return nil, false
	case d.field == 0 && (key.Matches(msg, d.keys.Left) || key.Matches(msg, d.keys.Right)):
		step := 1
		if key.Matches(msg, d.keys.Left) {
			step = len(d.formats) - 1
		}
		d.format = (d.format + step) % len(d.formats)
		if !d.edited {
			d.path.SetValue(d.defaultPath())
		} else {
			d.path.SetValue(withExt(d.path.Value(), d.formats, d.formats[d.format].Ext))
		}
		// The path changed length: typing goes on at its end, not where
		// the cursor stood in the old one.
		d.path.CursorEnd()
		return nil, false
	}
	if d.field == 1 {
		before := d.path.Value()
		var cmd tea.Cmd
		d.path, cmd = d.path.Update(msg)
		if d.path.Value() != before {
			d.edited = true
		}
		return cmd, false
	}
	return nil, false
}

// withExt replaces the extension of one of formats at the end of p with
// ext (both with their dot); the longest matches first (".pairs.jsonl"
// before ".jsonl").
func withExt(p string, formats []ExportFormat, ext string) string {
	known := ""
	for _, f := range formats {
		if strings.HasSuffix(p, f.Ext) && len(f.Ext) > len(known) {
			known = f.Ext
		}
	}
	if known == "" {
		return p
	}
	return strings.TrimSuffix(p, known) + ext
}

func (d *exportDialog) export(force bool) tea.Cmd {
	path := strings.TrimSpace(d.path.Value())
	if path == "" {
		d.err = errors.New("a path is needed")
		return nil
	}
	path = expandHome(path)
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.sh.opts.WorkDir, path)
	}
	d.busy, d.err = true, nil
	src, ctx, ids, format := d.sh.deps.Sessions, d.sh.ctx, d.ids, d.formats[d.format].Name
	return func() tea.Msg {
		written, err := src.Export(ctx, ids, format, path, force)
		return exportDoneMsg{path: written, err: err}
	}
}

func (d *exportDialog) view(width int) string {
	st := d.sh.st
	w := min(width-4, 72)
	inner := w - 4
	d.path.SetWidth(inner - 9)
	title := "Export this session"
	if len(d.ids) > 1 {
		title = fmt.Sprintf("Export %d sessions", len(d.ids))
	}
	lines := []string{st.DialogTitle.Render(title), ""}
	var fmts []string
	for i, f := range d.formats {
		s := st.Button
		if i == d.format {
			s = st.ButtonActive
		}
		fmts = append(fmts, s.Render(f.Name))
	}
	label := func(text string, focused bool) string {
		if focused {
			return st.Accent.Render("› " + text)
		}
		return st.FieldLabel.Render("  " + text)
	}
	lines = append(lines, label("format ", d.field == 0)+strings.Join(fmts, " "))
	lines = append(lines, label("path   ", d.field == 1)+d.path.View())
	lines = append(lines, "")
	switch {
	case d.busy:
		lines = append(lines, st.Dim.Render("Exporting…"))
	case d.confirm:
		lines = append(lines, st.Warn.Render(truncateTo("The file exists. Overwrite it? y / n", inner)))
	default:
		if d.err != nil {
			for _, l := range wrapText("✗ "+oneLine(d.err.Error()), inner) {
				lines = append(lines, st.Error.Render(l))
			}
		}
		lines = append(lines, st.Dim.Render(truncateTo(d.formats[d.format].Name+": "+d.formats[d.format].Help, inner)))
		lines = append(lines, st.Dim.Render(truncateTo("enter export · tab field · ←/→ format · esc cancel", inner)))
	}
	return st.Dialog.Width(w).Render(strings.Join(lines, "\n"))
}

func (d *exportDialog) bindings() []keyGroup {
	return []keyGroup{{"Export", []key.Binding{d.keys.Submit, d.keys.Next, d.keys.Left, d.keys.Right, d.keys.Confirm, d.keys.Refuse, d.keys.Cancel}}}
}

func (d *exportDialog) shortHelp() []key.Binding {
	if d.confirm {
		return []key.Binding{d.keys.Confirm, d.keys.Refuse}
	}
	return []key.Binding{d.keys.Submit, d.keys.Next, d.keys.Left, d.keys.Cancel}
}
