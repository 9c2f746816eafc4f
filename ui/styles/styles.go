// Package styles is the look of the prefrag TUI: one palette for dark and
// one for light terminals, and a colourless variant for NO_COLOR that keeps
// everything distinguishable with brackets, bold and reverse video.
package styles

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/prefrag/prefrag/internal/textsafe"
	"github.com/prefrag/prefrag/sources"
)

// Styles holds every style the screens use. Build it with New; it is
// immutable afterwards and safe to share.
type Styles struct {
	IsDark  bool
	NoColor bool

	// Glamour is the glamour standard style for Markdown ("dark", "light"
	// or "notty").
	Glamour string

	App       lipgloss.Style
	Brand     lipgloss.Style
	Tab       lipgloss.Style
	TabActive lipgloss.Style

	Text   lipgloss.Style
	Dim    lipgloss.Style
	Bold   lipgloss.Style
	Accent lipgloss.Style
	Error  lipgloss.Style
	Warn   lipgloss.Style
	OK     lipgloss.Style

	// Trajectory.
	StepRule    lipgloss.Style
	StepTitle   lipgloss.Style
	FieldLabel  lipgloss.Style
	Query       lipgloss.Style
	JudgeOK     lipgloss.Style
	JudgeSwitch lipgloss.Style
	Note        lipgloss.Style
	Streaming   lipgloss.Style
	Current     lipgloss.Style
	// QuoteMark highlights a supporting quote inside its passage (dark
	// text on yellow; reverse video without colours).
	QuoteMark lipgloss.Style

	DocTitle    lipgloss.Style
	DocSelected lipgloss.Style
	DocMeta     lipgloss.Style
	DocText     lipgloss.Style
	Discarded   lipgloss.Style

	// Status line.
	Status      lipgloss.Style
	StatusKey   lipgloss.Style
	StatusValue lipgloss.Style
	StatusAlert lipgloss.Style

	// Boxes.
	Dialog       lipgloss.Style
	DialogTitle  lipgloss.Style
	Button       lipgloss.Style
	ButtonActive lipgloss.Style
	Banner       lipgloss.Style
	BannerError  lipgloss.Style
	InputFocused lipgloss.Style
	InputBlurred lipgloss.Style

	// Tables and lists.
	Header      lipgloss.Style
	Row         lipgloss.Style
	RowSelected lipgloss.Style
	Marked      lipgloss.Style

	ProgressFull  color.Color
	ProgressEmpty color.Color

	Help help.Styles

	badgeLocal, badgeWeb, badgeMCP        lipgloss.Style
	badgeCorrect, badgePartial, badgeFail lipgloss.Style
	badgeNeutral                          lipgloss.Style
}

// New builds the styles for a dark or light background; noColor drops every
// colour (NO_COLOR) but keeps the text attributes.
func New(isDark, noColor bool) *Styles {
	p := newPalette(isDark, noColor)
	s := &Styles{IsDark: isDark, NoColor: noColor, Glamour: "dark"}
	if !isDark {
		s.Glamour = "light"
	}
	if noColor {
		s.Glamour = "notty"
	}
	s.setText(p)
	s.setTrajectory(p)
	s.setPanels(p)
	s.setHelp(p)
	s.setBadges(p)
	return s
}

// palette is the colours of one background; every one is lipgloss.NoColor
// under NO_COLOR (noColor).
type palette struct {
	noColor bool

	fg color.Color
	// dim and key carry the key hints: at least 4.5:1 against common
	// terminal backgrounds (styles_test.go measures it).
	dim, key                                color.Color
	faint, accent                           color.Color
	red, yellow, green, blue, magenta, teal color.Color
	onBadge                                 color.Color
}

func newPalette(isDark, noColor bool) palette {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	return palette{
		noColor: noColor,
		fg:      c("#1F1F1F", "#E4E4E4"),
		dim:     c("#5E5E5E", "#A0A0A0"),
		key:     c("#2E2E2E", "#D0D0D0"),
		faint:   c("#B8B8B8", "#4A4A4A"),
		accent:  c("#5A3FD1", "#A594FF"),
		red:     c("#B3261E", "#FF6B6B"),
		yellow:  c("#8A5A00", "#F2C94C"),
		green:   c("#1B7A3A", "#5FD38D"),
		blue:    c("#1558B0", "#6CB6FF"),
		magenta: c("#A0307A", "#F08BD0"),
		teal:    c("#00695C", "#4DD0C4"),
		onBadge: c("#FFFFFF", "#101010"),
	}
}

// setText sets the frame's and the plain text's styles.
func (s *Styles) setText(p palette) {
	n := lipgloss.NewStyle
	s.App = n()
	s.Brand = n().Bold(true).Foreground(p.accent)
	s.Tab = n().Foreground(p.dim).Padding(0, 1)
	s.TabActive = n().Bold(true).Foreground(p.accent).Underline(true).Padding(0, 1)

	s.Text = n().Foreground(p.fg)
	s.Dim = n().Foreground(p.dim)
	s.Bold = n().Bold(true)
	s.Accent = n().Foreground(p.accent)
	s.Error = n().Foreground(p.red).Bold(true)
	s.Warn = n().Foreground(p.yellow).Bold(true)
	s.OK = n().Foreground(p.green)
}

// setTrajectory sets the styles of the steps and of the documents they
// show.
func (s *Styles) setTrajectory(p palette) {
	n := lipgloss.NewStyle
	s.StepRule = n().Foreground(p.faint)
	s.StepTitle = n().Bold(true).Foreground(p.accent)
	s.FieldLabel = n().Bold(true).Foreground(p.dim)
	s.Query = n().Foreground(p.blue)
	s.JudgeOK = n().Foreground(p.green)
	s.JudgeSwitch = n().Bold(true).Foreground(p.magenta)
	s.Note = n().Foreground(p.yellow)
	s.Streaming = n().Foreground(p.dim).Italic(true)
	s.Current = n().Foreground(p.accent).Bold(true)
	s.QuoteMark = n().Foreground(p.onBadge).Background(p.yellow).Bold(true)
	if p.noColor {
		s.QuoteMark = n().Reverse(true).Bold(true)
	}

	s.DocTitle = n().Foreground(p.fg).Bold(true)
	s.DocSelected = n().Foreground(p.accent).Bold(true).Reverse(p.noColor)
	s.DocMeta = n().Foreground(p.dim)
	s.DocText = n().Foreground(p.dim)
	s.Discarded = n().Foreground(p.faint).Strikethrough(true)
}

// setPanels sets the styles of the status line, dialogs, banners, inputs,
// tables and progress bars.
func (s *Styles) setPanels(p palette) {
	n := lipgloss.NewStyle
	s.Status = n().Foreground(p.dim)
	s.StatusKey = n().Foreground(p.dim)
	s.StatusValue = n().Foreground(p.fg).Bold(true)
	s.StatusAlert = n().Foreground(p.yellow).Bold(true)

	border := lipgloss.RoundedBorder()
	s.Dialog = n().Border(border).BorderForeground(p.accent).Padding(0, 1)
	s.DialogTitle = n().Bold(true).Foreground(p.accent)
	s.Button = n().Foreground(p.dim).Padding(0, 1)
	s.ButtonActive = n().Bold(true).Foreground(p.onBadge).Background(p.accent).Padding(0, 1).Reverse(p.noColor)
	s.Banner = n().Border(lipgloss.NormalBorder(), false, false, false, true).BorderForeground(p.blue).PaddingLeft(1)
	s.BannerError = n().Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(p.red).PaddingLeft(1)
	s.InputFocused = n().Border(border).BorderForeground(p.accent)
	s.InputBlurred = n().Border(border).BorderForeground(p.faint)

	s.Header = n().Bold(true).Foreground(p.dim)
	s.Row = n().Foreground(p.fg)
	s.RowSelected = n().Bold(true).Foreground(p.accent).Reverse(p.noColor)
	s.Marked = n().Foreground(p.yellow).Bold(true)

	s.ProgressFull = p.accent
	s.ProgressEmpty = p.faint
}

// setHelp sets the key hints' styles.
func (s *Styles) setHelp(p palette) {
	n := lipgloss.NewStyle
	if p.noColor {
		plain := n()
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: n().Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: n().Bold(true), FullDesc: plain, FullSeparator: plain,
		}
		return
	}
	// Not help.DefaultStyles: its greys are under 3.5:1 on a dark
	// terminal.
	s.Help = help.Styles{
		Ellipsis: n().Foreground(p.dim), ShortKey: n().Foreground(p.key), ShortDesc: n().Foreground(p.dim),
		ShortSeparator: n().Foreground(p.dim), FullKey: n().Foreground(p.key), FullDesc: n().Foreground(p.dim),
		FullSeparator: n().Foreground(p.dim),
	}
}

// setBadges sets the badges of sources and self-evaluation labels.
func (s *Styles) setBadges(p palette) {
	n := lipgloss.NewStyle
	badge := func(bg color.Color) lipgloss.Style {
		if p.noColor {
			return n().Bold(true)
		}
		return n().Bold(true).Foreground(p.onBadge).Background(bg).Padding(0, 1)
	}
	s.badgeLocal = badge(p.blue)
	s.badgeWeb = badge(p.magenta)
	s.badgeMCP = badge(p.teal)
	s.badgeCorrect = badge(p.green)
	s.badgePartial = badge(p.yellow)
	s.badgeFail = badge(p.red)
	s.badgeNeutral = badge(p.dim)
}

// HintStyles are the styles key hints are drawn with, by name: the short
// and full help, the dim hints ("? keys", "esc cancels …") and the status
// line's keys.
func (s *Styles) HintStyles() map[string]lipgloss.Style {
	return map[string]lipgloss.Style{
		"Help.ShortKey": s.Help.ShortKey, "Help.ShortDesc": s.Help.ShortDesc,
		"Help.ShortSeparator": s.Help.ShortSeparator, "Help.Ellipsis": s.Help.Ellipsis,
		"Help.FullKey": s.Help.FullKey, "Help.FullDesc": s.Help.FullDesc,
		"Help.FullSeparator": s.Help.FullSeparator,
		"Dim":                s.Dim, "Status": s.Status, "StatusKey": s.StatusKey, "Tab": s.Tab,
	}
}

// badge renders text as a badge: a coloured block, or [TEXT] without colour.
func (s *Styles) badge(st lipgloss.Style, text string) string {
	if s.NoColor {
		return st.Render("[" + text + "]")
	}
	return st.Render(text)
}

// SourceBadge renders "local:wiki" as LOCAL wiki, "mcp:memory" as MCP
// memory and "web:duckduckgo" as WEB duckduckgo, in the colour of the
// kind's role (sources' kinds table). The caller passes a sanitized source
// name.
func (s *Styles) SourceBadge(source string) string {
	text, role := sources.SourceBadge(source)
	return s.badge(s.roleBadge(role), text)
}

// roleBadge is the badge style of a source's colour role.
func (s *Styles) roleBadge(r sources.Role) lipgloss.Style {
	switch r {
	case sources.RoleLocal:
		return s.badgeLocal
	case sources.RoleMCP:
		return s.badgeMCP
	case sources.RoleWeb:
		return s.badgeWeb
	}
	return s.badgeNeutral
}

// LabelBadge renders a self-evaluation label (CORRECT, PARTIALLY CORRECT,
// INCORRECT); an empty label renders as "UNLABELLED".
func (s *Styles) LabelBadge(label string) string {
	switch strings.ToUpper(strings.TrimSpace(label)) {
	case "CORRECT":
		return s.badge(s.badgeCorrect, "CORRECT")
	case "PARTIALLY CORRECT":
		return s.badge(s.badgePartial, "PARTIALLY CORRECT")
	case "INCORRECT":
		return s.badge(s.badgeFail, "INCORRECT")
	case "":
		return s.badge(s.badgeNeutral, "UNLABELLED")
	}
	// Any other label is recorded text (an imported session's too).
	return s.badge(s.badgeNeutral, strings.ToUpper(textsafe.OneLine(label)))
}

// Badge renders a neutral badge with the given text.
func (s *Styles) Badge(text string) string { return s.badge(s.badgeNeutral, text) }
