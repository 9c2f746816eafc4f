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
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(dark))
	}
	var (
		fg = c("#1F1F1F", "#E4E4E4")
		// dim and key carry the key hints: at least 4.5:1 against common
		// terminal backgrounds (styles_test.go measures it).
		dim     = c("#5E5E5E", "#A0A0A0")
		key     = c("#2E2E2E", "#D0D0D0")
		faint   = c("#B8B8B8", "#4A4A4A")
		accent  = c("#5A3FD1", "#A594FF")
		red     = c("#B3261E", "#FF6B6B")
		yellow  = c("#8A5A00", "#F2C94C")
		green   = c("#1B7A3A", "#5FD38D")
		blue    = c("#1558B0", "#6CB6FF")
		magenta = c("#A0307A", "#F08BD0")
		teal    = c("#00695C", "#4DD0C4")
		onBadge = c("#FFFFFF", "#101010")
	)
	n := lipgloss.NewStyle
	s := &Styles{IsDark: isDark, NoColor: noColor, Glamour: "dark"}
	if !isDark {
		s.Glamour = "light"
	}
	if noColor {
		s.Glamour = "notty"
	}

	s.App = n()
	s.Brand = n().Bold(true).Foreground(accent)
	s.Tab = n().Foreground(dim).Padding(0, 1)
	s.TabActive = n().Bold(true).Foreground(accent).Underline(true).Padding(0, 1)

	s.Text = n().Foreground(fg)
	s.Dim = n().Foreground(dim)
	s.Bold = n().Bold(true)
	s.Accent = n().Foreground(accent)
	s.Error = n().Foreground(red).Bold(true)
	s.Warn = n().Foreground(yellow).Bold(true)
	s.OK = n().Foreground(green)

	s.StepRule = n().Foreground(faint)
	s.StepTitle = n().Bold(true).Foreground(accent)
	s.FieldLabel = n().Bold(true).Foreground(dim)
	s.Query = n().Foreground(blue)
	s.JudgeOK = n().Foreground(green)
	s.JudgeSwitch = n().Bold(true).Foreground(magenta)
	s.Note = n().Foreground(yellow)
	s.Streaming = n().Foreground(dim).Italic(true)
	s.Current = n().Foreground(accent).Bold(true)
	s.QuoteMark = n().Foreground(onBadge).Background(yellow).Bold(true)
	if noColor {
		s.QuoteMark = n().Reverse(true).Bold(true)
	}

	s.DocTitle = n().Foreground(fg).Bold(true)
	s.DocSelected = n().Foreground(accent).Bold(true).Reverse(noColor)
	s.DocMeta = n().Foreground(dim)
	s.DocText = n().Foreground(dim)
	s.Discarded = n().Foreground(faint).Strikethrough(true)

	s.Status = n().Foreground(dim)
	s.StatusKey = n().Foreground(dim)
	s.StatusValue = n().Foreground(fg).Bold(true)
	s.StatusAlert = n().Foreground(yellow).Bold(true)

	border := lipgloss.RoundedBorder()
	s.Dialog = n().Border(border).BorderForeground(accent).Padding(0, 1)
	s.DialogTitle = n().Bold(true).Foreground(accent)
	s.Button = n().Foreground(dim).Padding(0, 1)
	s.ButtonActive = n().Bold(true).Foreground(onBadge).Background(accent).Padding(0, 1).Reverse(noColor)
	s.Banner = n().Border(lipgloss.NormalBorder(), false, false, false, true).BorderForeground(blue).PaddingLeft(1)
	s.BannerError = n().Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(red).PaddingLeft(1)
	s.InputFocused = n().Border(border).BorderForeground(accent)
	s.InputBlurred = n().Border(border).BorderForeground(faint)

	s.Header = n().Bold(true).Foreground(dim)
	s.Row = n().Foreground(fg)
	s.RowSelected = n().Bold(true).Foreground(accent).Reverse(noColor)
	s.Marked = n().Foreground(yellow).Bold(true)

	s.ProgressFull = accent
	s.ProgressEmpty = faint

	// Not help.DefaultStyles: its greys are under 3.5:1 on a dark
	// terminal.
	s.Help = help.Styles{
		Ellipsis: n().Foreground(dim), ShortKey: n().Foreground(key), ShortDesc: n().Foreground(dim),
		ShortSeparator: n().Foreground(dim), FullKey: n().Foreground(key), FullDesc: n().Foreground(dim),
		FullSeparator: n().Foreground(dim),
	}
	if noColor {
		plain := n()
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: n().Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: n().Bold(true), FullDesc: plain, FullSeparator: plain,
		}
	}

	badge := func(bg color.Color) lipgloss.Style {
		if noColor {
			return n().Bold(true)
		}
		return n().Bold(true).Foreground(onBadge).Background(bg).Padding(0, 1)
	}
	s.badgeLocal = badge(blue)
	s.badgeWeb = badge(magenta)
	s.badgeMCP = badge(teal)
	s.badgeCorrect = badge(green)
	s.badgePartial = badge(yellow)
	s.badgeFail = badge(red)
	s.badgeNeutral = badge(dim)
	return s
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
