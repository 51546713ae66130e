// Package themes turns a small palette of colour tokens into the Styles the
// TUI components draw with. Components never hold colour literals: they take
// a *Styles, so switching theme (or honouring NO_COLOR) is one value swap.
package themes

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// Palette is the set of colour tokens a theme defines. A nil colour means
// "terminal default", which is what the plain (NO_COLOR) theme uses.
type Palette struct {
	Name string
	// Dark tells components (and glamour) the palette is for a dark background.
	Dark bool
	// Glamour is the glamour standard style name for Markdown ("dark", "light",
	// "dracula", "notty").
	Glamour string

	Text      color.Color
	Muted     color.Color
	Subtle    color.Color
	Accent    color.Color
	Secondary color.Color
	User      color.Color
	Success   color.Color
	Warning   color.Color
	Error     color.Color
	Border    color.Color
	BarFg     color.Color
	BarBg     color.Color
}

func hex(s string) color.Color { return lipgloss.Color(s) }

var palettes = map[string]Palette{
	"dark": {
		Name: "dark", Dark: true, Glamour: "dark",
		Text: hex("#E4E4E7"), Muted: hex("#A1A1AA"), Subtle: hex("#52525B"),
		Accent: hex("#7C9CFF"), Secondary: hex("#C792EA"), User: hex("#5EEAD4"),
		Success: hex("#4ADE80"), Warning: hex("#FACC15"), Error: hex("#F87171"),
		Border: hex("#3F3F46"), BarFg: hex("#E4E4E7"), BarBg: hex("#27272A"),
	},
	"light": {
		Name: "light", Dark: false, Glamour: "light",
		Text: hex("#18181B"), Muted: hex("#52525B"), Subtle: hex("#A1A1AA"),
		Accent: hex("#2952CC"), Secondary: hex("#8E44AD"), User: hex("#0F766E"),
		Success: hex("#15803D"), Warning: hex("#A16207"), Error: hex("#B91C1C"),
		Border: hex("#D4D4D8"), BarFg: hex("#18181B"), BarBg: hex("#E4E4E7"),
	},
	// Catppuccin Mocha, https://catppuccin.com/palette
	"catppuccin": {
		Name: "catppuccin", Dark: true, Glamour: "dark",
		Text: hex("#CDD6F4"), Muted: hex("#A6ADC8"), Subtle: hex("#6C7086"),
		Accent: hex("#89B4FA"), Secondary: hex("#CBA6F7"), User: hex("#94E2D5"),
		Success: hex("#A6E3A1"), Warning: hex("#F9E2AF"), Error: hex("#F38BA8"),
		Border: hex("#45475A"), BarFg: hex("#CDD6F4"), BarBg: hex("#313244"),
	},
	// Dracula, https://draculatheme.com/contribute
	"dracula": {
		Name: "dracula", Dark: true, Glamour: "dracula",
		Text: hex("#F8F8F2"), Muted: hex("#BFBFBF"), Subtle: hex("#6272A4"),
		Accent: hex("#BD93F9"), Secondary: hex("#FF79C6"), User: hex("#8BE9FD"),
		Success: hex("#50FA7B"), Warning: hex("#F1FA8C"), Error: hex("#FF5555"),
		Border: hex("#44475A"), BarFg: hex("#F8F8F2"), BarBg: hex("#44475A"),
	},
	// plain is what NO_COLOR gets: attributes only, terminal colours. Glamour
	// keeps its dark style: the colour profile (Ascii under NO_COLOR) strips
	// its colours and keeps bold and italics, where "notty" would print the
	// Markdown markers.
	"plain": {Name: "plain", Dark: true, Glamour: "dark"},
}

// Names lists the selectable themes (plus "auto", which picks dark or light
// from the terminal background).
func Names() []string {
	var out []string
	for n := range palettes {
		if n != "plain" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return append([]string{"auto"}, out...)
}

// Styles is what components draw with.
type Styles struct {
	Palette Palette
	// NoColor is set for the plain theme; components may then prefer ASCII marks.
	NoColor bool

	Text, Muted, Subtle, Accent, Bold lipgloss.Style

	UserLabel, AssistantLabel, UserText lipgloss.Style
	Notice, ErrorText, WarningText      lipgloss.Style

	// Tool cards.
	Card, CardTitle, CardServer, CardArgs, CardPreview lipgloss.Style
	ProviderBadge, OK, Fail, Running                   lipgloss.Style

	// Discovered tools pane.
	Pane, PaneHeader, PaneQuery, PaneWhere, PaneTool, PaneServer, PaneDesc lipgloss.Style

	// Status bar and help line.
	Bar, BarItem, BarAccent, BarNote lipgloss.Style
	HelpKey, HelpDesc, HelpSep       lipgloss.Style

	// Input and dialogs.
	Input, InputFocused, Dialog, DialogTitle, Selected lipgloss.Style
}

// Get returns the styles of a named theme. "auto" and "" resolve to dark; the
// TUI resolves auto again once it knows the terminal background.
func Get(name string) (*Styles, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == "auto" {
		name = "dark"
	}
	p, ok := palettes[name]
	if !ok {
		return nil, fmt.Errorf("unknown theme %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return New(p), nil
}

// Resolve picks the styles for a theme setting given what is known about the
// terminal: noColor (NO_COLOR set) wins over everything, "auto" follows the
// background.
func Resolve(name string, darkBackground, noColor bool) (*Styles, error) {
	if noColor {
		return New(palettes["plain"]), nil
	}
	if strings.EqualFold(strings.TrimSpace(name), "auto") || strings.TrimSpace(name) == "" {
		if darkBackground {
			return Get("dark")
		}
		return Get("light")
	}
	return Get(name)
}

// Plain returns the colourless styles used under NO_COLOR.
func Plain() *Styles { return New(palettes["plain"]) }

// fg sets a foreground only when the token has a colour, so the plain
// palette yields styles without any colour sequences.
func fg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s
	}
	return s.Foreground(c)
}

func bg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s
	}
	return s.Background(c)
}

func border(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c == nil {
		return s
	}
	return s.BorderForeground(c)
}

// New builds Styles from a palette.
func New(p Palette) *Styles {
	n := lipgloss.NewStyle()
	s := &Styles{Palette: p, NoColor: p.Text == nil}
	s.Text = fg(n, p.Text)
	s.Muted = fg(n, p.Muted)
	s.Subtle = fg(n, p.Subtle).Faint(p.Subtle == nil)
	s.Accent = fg(n, p.Accent).Bold(true)
	s.Bold = n.Bold(true)

	s.UserLabel = fg(n, p.User).Bold(true)
	s.AssistantLabel = fg(n, p.Accent).Bold(true)
	s.UserText = fg(n, p.Text)
	s.Notice = fg(n, p.Muted).Italic(true)
	s.ErrorText = fg(n, p.Error).Bold(true)
	s.WarningText = fg(n, p.Warning)

	s.Card = border(n.Border(lipgloss.RoundedBorder()).Padding(0, 1), p.Border)
	s.CardTitle = fg(n, p.Secondary).Bold(true)
	s.CardServer = fg(n, p.Muted)
	s.CardArgs = fg(n, p.Muted)
	s.CardPreview = fg(n, p.Text)
	s.ProviderBadge = fg(n, p.Warning).Bold(true)
	s.OK = fg(n, p.Success)
	s.Fail = fg(n, p.Error).Bold(true)
	s.Running = fg(n, p.Warning)

	s.Pane = border(n.Border(lipgloss.NormalBorder(), false, false, false, true).PaddingLeft(1), p.Border)
	s.PaneHeader = fg(n, p.Accent).Bold(true)
	s.PaneQuery = fg(n, p.Text).Bold(true)
	s.PaneWhere = fg(n, p.Secondary)
	s.PaneTool = fg(n, p.User)
	s.PaneServer = fg(n, p.Muted)
	s.PaneDesc = fg(n, p.Subtle).Faint(p.Subtle == nil)

	s.Bar = bg(fg(n, p.BarFg), p.BarBg)
	s.BarItem = bg(fg(n, p.BarFg), p.BarBg)
	s.BarAccent = bg(fg(n, p.Accent), p.BarBg).Bold(true)
	s.BarNote = bg(fg(n, p.Warning), p.BarBg).Bold(true)
	s.HelpKey = fg(n, p.Muted).Bold(true)
	s.HelpDesc = fg(n, p.Subtle).Faint(p.Subtle == nil)
	s.HelpSep = fg(n, p.Subtle)

	s.Input = border(n.Border(lipgloss.RoundedBorder()), p.Border)
	s.InputFocused = border(n.Border(lipgloss.RoundedBorder()), p.Accent)
	s.Dialog = border(n.Border(lipgloss.DoubleBorder()).Padding(0, 1), p.Warning)
	s.DialogTitle = fg(n, p.Warning).Bold(true)
	s.Selected = fg(n, p.Accent).Bold(true).Reverse(p.Accent == nil)
	return s
}
