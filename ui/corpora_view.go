package ui

import (
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/prefrag/prefrag/internal/plural"
	"github.com/prefrag/prefrag/ui/styles"
)

func userHome() (string, error) { return os.UserHomeDir() }

// thousands writes 12345 as 12,345.
// supportedFiles are the file types indexing reads (sources/local).
const supportedFiles = ".txt .md .jsonl .html .docx .pdf .epub"

// passages is "1 passage", "12,345 passages".
func passages[T int | int64](n T) string {
	return plural.Thousands(n) + " " + plural.Noun(n, "passage", "passages")
}

func (c *corporaScreen) view() string {
	st := c.sh.st
	var out []string
	switch c.mode {
	case modeIndexing:
		out = append(out, c.indexingView()...)
	case modeResults:
		head := fmt.Sprintf(" %s in %s for “%s”", plural.N(len(c.results), "passage"), oneLine(c.selectedCorpus()), oneLine(c.searched))
		if len(c.results) == 0 {
			head = fmt.Sprintf(" Nothing in %s matches “%s”.", oneLine(c.selectedCorpus()), oneLine(c.searched))
		}
		out = append(out, truncateTo(st.Bold.Render(head), c.width), "")
		out = append(out, c.resPager.View())
		return strings.Join(out, "\n")
	default:
		out = append(out, c.listView()...)
	}
	switch c.mode {
	case modeAdd:
		out = append(out, "", st.Bold.Render(" Add a folder to a corpus"))
		out = append(out, " "+c.name.View(), " "+c.path.View())
		out = append(out, st.Dim.Render(truncateTo(" enter index · tab other field · esc cancel (re-adding a folder updates it)", c.width)))
	case modeQuery:
		out = append(out, "", " "+c.query.View())
	}
	if c.message != "" {
		ms := st.Dim
		if c.messageErr {
			ms = st.Error
		}
		out = append(out, "")
		for _, l := range wrapText(c.message, c.width-2) {
			out = append(out, " "+ms.Render(l))
		}
	}
	return strings.Join(out, "\n")
}

// Column widths of the corpus table.
const (
	colName     = 18
	colDocs     = 10
	colPassages = 10
	colSize     = 9
)

func (c *corporaScreen) listView() []string {
	st := c.sh.st
	var out []string
	pref := c.sh.preferred()
	head := fmt.Sprintf(" Corpora (%d)", len(c.sh.corpora))
	if pref != "" {
		head += " · preferred: " + oneLine(pref)
	}
	out = append(out, truncateTo(st.Bold.Render(head), c.width), "")
	switch {
	case c.sh.corporaErr != nil:
		return append(out, st.Error.Render(truncateTo(" ✗ "+oneLine(c.sh.corporaErr.Error()), c.width)))
	case !c.sh.corporaLoaded:
		return append(out, st.Dim.Render(" Loading…"))
	case len(c.sh.corpora) == 0:
		lines := []string{
			"No corpus yet. prefrag answers from your own documents first, so give it some:",
			"  a  add a folder (" + supportedFiles + "; default: the current directory)",
			"  i  index the bundled user guide, to try prefrag on its own documentation",
		}
		for _, l := range lines {
			out = append(out, st.Text.Render(truncateTo(" "+l, c.width)))
		}
		return out
	}
	header := "     " + padTo("NAME", colName) + lipgloss.NewStyle().Width(colDocs).Align(lipgloss.Right).Render("DOCUMENTS") +
		lipgloss.NewStyle().Width(colPassages).Align(lipgloss.Right).Render("PASSAGES") +
		lipgloss.NewStyle().Width(colSize).Align(lipgloss.Right).Render("SIZE") + "   UPDATED"
	out = append(out, st.Header.Render(truncateTo(header, c.width)))
	now := c.sh.now()
	for i, ci := range c.sh.corpora {
		mark := "   "
		if i == c.cursor {
			mark = " › "
		}
		pin := "  "
		if ci.Pinned {
			pin = "★ "
		}
		right := func(s string, w int) string { return fmt.Sprintf("%*s", w, s) }
		docs, passages, updated := plural.Thousands(ci.Documents), plural.Thousands(ci.Passages), dateText(ci.Updated, now)
		if ci.Problem != "" {
			docs, passages, updated = "?", "?", "damaged"
		}
		row := mark + pin + padTo(truncateTo(oneLine(ci.Name), colName-1), colName) +
			right(docs, colDocs) + right(passages, colPassages) +
			right(sizeText(ci.SizeBytes), colSize) + "   " + updated
		rs := st.Row
		if i == c.cursor {
			rs = st.RowSelected
		}
		out = append(out, rs.Render(truncateTo(row, c.width)))
	}
	for _, ci := range c.sh.corpora {
		if ci.Problem != "" {
			out = append(out, "", st.Error.Render(truncateTo(" ✗ "+oneLine(ci.Problem), c.width)))
		}
	}
	return out
}

func (c *corporaScreen) indexingView() []string {
	st := c.sh.st
	p := c.prog
	where := strings.Join(c.paths, ", ")
	if where == "" {
		where = "the bundled user guide"
	}
	out := []string{truncateTo(st.Bold.Render(" Indexing into "+oneLine(c.target)+": ")+st.Text.Render(oneLine(where)), c.width), ""}
	if p.Embedding {
		return append(out, c.embeddingView(p)...)
	}
	frac := 0.0
	if p.FilesTotal > 0 {
		frac = float64(p.FilesDone) / float64(p.FilesTotal)
	}
	out = append(out, " "+progressBar(st, frac, c.barWidth)+fmt.Sprintf(" %3.0f%%", frac*100))
	elapsed := p.Elapsed
	if elapsed == 0 {
		elapsed = c.sh.now().Sub(c.started)
	}
	parts := []string{fmt.Sprintf("files %d/%d", p.FilesDone, p.FilesTotal), passages(p.Passages)}
	if p.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%.0f passages/s", p.Rate))
	}
	if eta, ok := indexETA(p, elapsed); ok {
		parts = append(parts, "ETA "+clockText(eta))
	}
	parts = append(parts, "elapsed "+clockText(elapsed))
	out = append(out, " "+st.Text.Render(truncateTo(strings.Join(parts, " · "), c.width-2)))
	if p.File != "" {
		out = append(out, " "+st.Dim.Render(truncateTo("reading "+oneLine(p.File), c.width-2)))
	}
	out = append(out, "", " "+st.Dim.Render("esc cancels — files already indexed are kept"))
	return out
}

// embeddingView is the progress of the embedding part of an ingest:
// passages with a vector of those to do, passages embedded per second, the
// time left at that rate.
func (c *corporaScreen) embeddingView(p IndexProgress) []string {
	st := c.sh.st
	frac := 0.0
	if p.EmbedTotal > 0 {
		frac = float64(p.EmbedDone) / float64(p.EmbedTotal)
	}
	out := []string{" " + st.Text.Render("Embedding the passages with the embedding model"),
		" " + progressBar(st, frac, c.barWidth) + fmt.Sprintf(" %3.0f%%", frac*100)}
	parts := []string{fmt.Sprintf("passages %s/%s", plural.Thousands(p.EmbedDone), plural.Thousands(p.EmbedTotal)), fmt.Sprintf("files %d/%d", p.FilesDone, p.FilesTotal)}
	if p.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%.0f passages/s", p.Rate))
		if left := p.EmbedTotal - p.EmbedDone; left > 0 {
			parts = append(parts, "ETA "+clockText(time.Duration(float64(left)/p.Rate*float64(time.Second))))
		}
	}
	parts = append(parts, "elapsed "+clockText(p.Elapsed))
	out = append(out, " "+st.Text.Render(truncateTo(strings.Join(parts, " · "), c.width-2)))
	return append(out, "", " "+st.Dim.Render("esc cancels — passages already embedded are kept; index again to finish"))
}

// indexETA estimates the time left from the files done so far.
func indexETA(p IndexProgress, elapsed time.Duration) (time.Duration, bool) {
	if p.FilesDone == 0 || p.FilesTotal <= p.FilesDone || elapsed <= 0 {
		return 0, false
	}
	perFile := elapsed / time.Duration(p.FilesDone)
	return perFile * time.Duration(p.FilesTotal-p.FilesDone), true
}

func (c *corporaScreen) bindings() []keyGroup {
	return []keyGroup{
		{"Corpora", c.keys.bindings()},
		{"Indexing", []key.Binding{c.ikeys.Cancel}},
		{"Corpus search results", c.rkeys.bindings()},
		{"Forms (add folder, search, export, first run)", c.fkeys.bindings()},
	}
}

func (c *corporaScreen) shortHelp() []key.Binding {
	switch c.mode {
	case modeAdd:
		return []key.Binding{c.fkeys.Submit, c.fkeys.Next, c.fkeys.Cancel}
	case modeQuery:
		return []key.Binding{c.fkeys.Submit, c.fkeys.Cancel}
	case modeIndexing:
		return []key.Binding{c.ikeys.Cancel}
	case modeResults:
		return []key.Binding{c.lkeys.Down, c.lkeys.Up, c.rkeys.Toggle, c.rkeys.Again, c.rkeys.Back}
	}
	return []key.Binding{c.lkeys.Down, c.keys.Pin, c.keys.Add, c.keys.Search, c.keys.Guide, c.keys.Back}
}

// progressBar draws frac (0–1) as a bar of width cells.
func progressBar(st *styles.Styles, frac float64, width int) string {
	full := int(frac*float64(width) + 0.5)
	full = min(max(full, 0), width)
	return lipgloss.NewStyle().Foreground(st.ProgressFull).Render(strings.Repeat("█", full)) +
		lipgloss.NewStyle().Foreground(st.ProgressEmpty).Render(strings.Repeat("░", width-full))
}
