package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/agent-dev/agent/themes"
)

// narrowWidth is where the pane folds below the chat.
const narrowWidth = 100

// Model is the root model. It routes messages to the components and lays
// them out; the handlers live in update.go.
type Model struct {
	b     Backend
	ctx   context.Context
	opts  Options
	keys  KeyMap
	st    *themes.Styles
	turns turnRunner

	chat   *chat
	pane   *pane
	input  *input
	help   help.Model
	spin   spinner.Model
	status statusBar

	width, height int
	showPane      bool
	working       bool
	started       time.Time
	flushPending  bool
	quitArmed     bool
	hint          string
	approvals     []ApprovalRequest
	picker        *picker
}

// New builds the root model. Run uses it; tests drive it directly.
func New(b Backend, opts Options) (*Model, error) {
	opts.defaults()
	st, err := themes.Resolve(opts.Theme, true, opts.NoColor)
	if err != nil {
		return nil, fmt.Errorf("start terminal ui: %w", err)
	}
	keys := DefaultKeyMap()
	m := &Model{
		b: b, ctx: context.Background(), opts: opts, keys: keys, st: st,
		chat: newChat(st), pane: newPane(st), input: newInput(st, keys),
		help: help.New(), showPane: true,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.applyStyles(st)
	if len(opts.History) > 0 {
		m.loadHistory(opts.History, b.Tools())
		m.status.note = fmt.Sprintf("resumed · replaying %d messages", len(opts.History))
	}
	if len(opts.Suggestions) > 0 {
		// Newest history entry first under ↑, so the list reads top down.
		for i := len(opts.Suggestions) - 1; i >= 0; i-- {
			m.input.remember(opts.Suggestions[i])
		}
		if len(opts.History) == 0 {
			m.chat.notice(itemNotice, "Try one of these (↑ puts it in the input, enter sends):\n  • "+strings.Join(opts.Suggestions, "\n  • "))
		}
	}
	if opts.Width > 0 && opts.Height > 0 {
		m.resize(opts.Width, opts.Height)
	}
	return m, nil
}

func (m *Model) applyStyles(st *themes.Styles) {
	m.st = st
	m.chat.setStyles(st)
	m.pane.st = st
	m.input.setStyles(st)
	m.spin.Style = st.Running
	m.help.Styles.ShortKey = st.HelpKey
	m.help.Styles.ShortDesc = st.HelpDesc
	m.help.Styles.ShortSeparator = st.HelpSep
	m.help.Styles.Ellipsis = st.HelpSep
}

// Init asks for the status data, the terminal background (for the "auto"
// theme) and sends the initial prompt, if any.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.refreshInfo(), textarea.Blink}
	if !m.opts.NoColor && strings.EqualFold(m.opts.Theme, "auto") {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if p := strings.TrimSpace(m.opts.Prompt); p != "" {
		cmds = append(cmds, m.submit(p))
	}
	return tea.Batch(cmds...)
}

// layout sizes: work line, input box (3 lines + border), status, help.
const bottomRows = 1 + inputLines + 2 + 1 + 1

func (m *Model) narrow() bool { return m.width < narrowWidth }

// relayout sizes the panes again when the folded pane's content may have
// grown or shrunk.
func (m *Model) relayout() {
	if m.width > 0 && m.showPane && m.narrow() {
		m.resize(m.width, m.height)
	}
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	mainH := max(h-bottomRows, 3)
	chatW, chatH := w, mainH
	if m.showPane {
		if m.narrow() {
			// Folded below the chat the pane takes only the lines it
			// needs, up to a third of the screen.
			ph := min(max(mainH/3, 4), 12, mainH-1)
			ph = min(ph, max(m.pane.needed(true, ph), 2))
			chatH = mainH - ph
			m.pane.SetSize(w, ph)
		} else {
			// One blank column between chat and pane keeps card borders
			// and full-width text off the pane's border.
			pw := max(w/3, 40)
			chatW = w - pw - 1
			m.pane.SetSize(pw, mainH)
		}
	}
	m.chat.SetSize(chatW, chatH)
	m.chat.reanchor()
	m.chat.clamp()
	m.input.SetWidth(w)
	m.help.SetWidth(w)
}

// View lays out chat and pane, the work line, input (or approval), status
// bar and help line.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "agent"
	if m.width == 0 || m.height == 0 {
		v.SetContent("starting…")
		return v
	}
	v.SetContent(m.render())
	return v
}

func (m *Model) render() string {
	var main string
	switch {
	case m.picker != nil:
		main = m.picker.View(m.st, m.width, max(m.height-bottomRows, 3))
	case !m.showPane:
		main = m.chat.View()
	case m.narrow():
		main = m.chat.View() + "\n" + m.pane.View(m.spin.View(), true)
	default:
		main = lipgloss.JoinHorizontal(lipgloss.Top, m.chat.View(), " ", m.pane.View(m.spin.View(), false))
	}
	var bottom string
	if len(m.approvals) > 0 {
		bottom = approvalView(m.st, m.approvals[0], m.width)
	} else {
		bottom = m.input.View(m.picker == nil)
	}
	// The approval box may be taller or shorter than the input: keep the
	// total height fixed so the screen does not jump.
	bottom = strings.Join(fit(strings.Split(bottom, "\n"), m.width, inputLines+2), "\n")
	return strings.Join([]string{
		main,
		m.workLine(),
		bottom,
		m.status.View(m.st, m.width),
		m.help.ShortHelpView(m.keys.ShortHelp()),
	}, "\n")
}

func (m *Model) workLine() string {
	var s string
	switch {
	case m.working:
		s = m.spin.View() + " " + m.st.Running.Render("working "+fmtElapsed(m.opts.Now().Sub(m.started)))
		s += m.st.Muted.Render(" · esc to cancel")
		if m.hint != "" {
			s += m.st.Muted.Render(" · " + m.hint)
		}
	case m.hint != "":
		s = m.st.WarningText.Render(m.hint)
	case m.chat.offset > 0:
		s = m.st.Muted.Render(fmt.Sprintf("scrolled up %d lines · pgdn to return", m.chat.offset))
	}
	return strings.Join(fit([]string{s}, m.width, 1), "")
}

func fmtElapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
