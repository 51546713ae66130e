package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// narrowWidth is where the pane folds below the chat.
const narrowWidth = 100

// Model is the root model. It routes messages to the components and lays
// them out; the handlers live in update.go.
type Model struct {
	b     Backend
	opts  Options
	keys  KeyMap
	st    *themes.Styles
	turns turnRunner
	// sent is the prompt of the turn in progress: a hook that refuses it
	// (agent.ErrBlocked) gives it back to the input, unsent.
	sent string

	chat  *chat
	pane  *pane
	input *input
	help  help.Model
	spin  spinner.Model
	// catalogSince is when the turn's first request began to wait for MCP
	// servers with no known tools (catalogNames); zero when not waiting.
	catalogSince time.Time
	catalogNames string
	status       statusBar

	width, height int
	showPane      bool
	working       bool
	started       time.Time
	flushPending  bool
	quitArmed     bool
	quitGen       int // numbers each arming, so an old expiry leaves a new one
	hint          string
	// turnHint is the hint that refused something while a turn ran
	// (waitForTurn): it is stale once the turn ends. keepInput keeps a
	// refused command in the input (send).
	turnHint   string
	keepInput  bool
	approvals  []ApprovalRequest
	alwaysPick bool    // the approval shows the choices of "always"
	forms      []*form // MCP elicitations waiting for the user (form.go)
	// armed and answerable number the approval whose guard runs and the
	// one whose answers are taken (armApproval); approvalSeq numbers them
	// as they come (ApprovalRequest.seq; 0 is none).
	armed, answerable, approvalSeq int
	// approvalTyped counts the keys and pastes typed in approval guards:
	// only the tick armed by the last of them ends one
	// (approvalReadyMsg.typed).
	approvalTyped int
	// mcpPrompts and mcpResources are what completion offers (mcp.go).
	mcpPrompts   []MCPPromptInfo
	mcpResources []string
	// shadowWarned names the custom commands a built-in hides, said once.
	shadowWarned map[string]bool
	picker       *picker
	comp         completion

	// Inline mode: items before committed are printed to the scrollback;
	// queue holds lines waiting to be printed while a print is in flight.
	committed int
	laidOut   frameLayout
	queue     []string
	printing  bool
	// inflight is how many lines the print in flight adds above the
	// frame; fence says when the frame it waits for is on the terminal,
	// titled titles[title] (fence.go).
	inflight int
	fence    *frameFence
	// tty is the terminal the program draws on, when it is one: the
	// editor of ctrl+g writes to it directly.
	tty   *os.File
	title int
	// held is the text of the print in flight until its printNowMsg comes
	// (holding): a quit before then prints it with the rest.
	held    string
	holding bool
	// floor is the inline view's least height (see renderInline).
	floor    int
	ready    bool
	quitting bool
	// past is what was printed to the scrollback, kept to print it again
	// at a new width (reflow.go); pastSkipped counts older items dropped.
	past        []*chatItem
	pastSkipped int
	// A width change waits reflowDelay (reflowWait) for the next; the
	// reprint is then due once no print is in flight.
	reflowGen             int
	reflowWait, reflowDue bool
	// syncOutput: the terminal answered that it has synchronized output
	// (DEC mode 2026), which the renderer then wraps its frames in.
	syncOutput bool
	// print replaces the terminal print (tests record what is printed).
	print func(text string) tea.Cmd
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
		b: b, opts: opts, keys: keys, st: st,
		chat: newChat(st, ChatKeyMap{PageUp: keys.PageUp, PageDown: keys.PageDown}), pane: newPane(st), input: newInput(st, keys),
		help: help.New(), showPane: opts.AltScreen,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.chat.fullScreen = opts.AltScreen
	m.applyStyles(st)
	if len(opts.History) > 0 {
		m.loadHistory(cleanMessages(opts.History), b.Tools())
		m.status.SetNote(fmt.Sprintf("resumed · replaying %d messages", len(opts.History)))
		m.chat.notice(itemNotice, fmt.Sprintf("resumed · replaying %d messages", len(opts.History)))
	}
	for _, w := range opts.Warnings {
		m.chat.notice(itemWarning, sanitize.Text(w))
	}
	for _, n := range opts.News {
		m.chat.notice(itemNotice, sanitize.Text(n))
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
	// Typed for the prompt while a question ahead of the chat could not
	// take it (the trust question's first half second): into the input,
	// as the approval question's type-ahead goes (handleApprovalKey).
	for _, msg := range opts.TypeAhead.msgs {
		m.input.Update(msg)
	}
	if opts.Width > 0 && opts.Height > 0 {
		m.resize(opts.Width, opts.Height)
	}
	m.skipOldHistory()
	return m, nil
}

func (m *Model) applyStyles(st *themes.Styles) {
	m.st = st
	m.chat.setStyles(st)
	m.pane.SetStyles(st)
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
	cmds := []tea.Cmd{m.refreshInfo(), textarea.Blink,
		tea.Tick(150*time.Millisecond, func(time.Time) tea.Msg { return readyMsg{} }), m.infoTick()}
	if !m.opts.NoColor && strings.EqualFold(m.opts.Theme, "auto") {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if p := strings.TrimSpace(m.opts.Prompt); p != "" {
		cmds = append(cmds, m.submit(p))
	}
	if m.opts.PickSession {
		b := m.b
		cmds = append(cmds, func() tea.Msg {
			items, err := b.Sessions(context.Background())
			return sessionsMsg{Items: items, Err: err}
		})
	}
	return tea.Batch(cmds...)
}

// frameLayout is how the rows of the screen are shared.
type frameLayout struct {
	main, box  int
	work, help bool
	pane       int // rows of the folded pane (narrow screens), 0 for none
}

// approvalRows is the approval box's height on a screen of h rows: its
// title, the call's arguments (approvalArgs, up to a third of the screen),
// its keys and a border; the "always" choices take three lines.
func (m *Model) approvalRows(h int) int {
	req := m.approvals[0]
	inner := max(m.width-4, 10)
	args := len(approvalArgs(req.Tool.Input, inner, maxApprovalArgRows(h)))
	_, reason := approvalReason(req, approvalWho(req.Tool), inner)
	return max(args, 1) + len(reason) + 4
}

// maxApprovalArgRows bounds the arguments' lines in the approval question.
func maxApprovalArgRows(h int) int { return min(max(h/3-2, 1), 8) }

// maxInputRows is how far the input box grows with its content.
func maxInputRows(h int) int { return min(max(h/3, 1), 10) }

// layout gives the input box what its content needs (up to a third of the
// screen), then the status bar, the work line and the help line as room
// allows; the chat takes the rest. Small terminals drop the help line
// first, then the work line, never the input.
func (m *Model) layout() frameLayout {
	h := m.height
	var l frameLayout
	l.box = m.input.rows(maxInputRows(h)) + 2
	if len(m.approvals) > 0 {
		l.box = m.approvalRows(h)
	} else if len(m.forms) > 0 {
		l.box = m.forms[0].rows(m.width)
	}
	l.box = min(l.box, max(h-1, 1))
	rest := h - 1 - l.box
	if l.work = rest >= 4; l.work {
		rest--
	}
	if l.help = rest >= 14; l.help {
		rest--
	}
	l.main = max(rest, 0)
	if m.showPane && (m.narrow() || !m.opts.AltScreen) && l.main >= 10 {
		// Folded below the chat the pane takes only the lines it needs,
		// up to a third of the chat's rows.
		ph := min(max(l.main/3, 4), 12)
		l.pane = min(ph, max(m.pane.needed(true, ph), 2))
	}
	return l
}

func (m *Model) narrow() bool { return m.width < narrowWidth }

// relayout sizes the components again after their content changed (the
// folded pane or the input box may have grown or shrunk).
func (m *Model) relayout() {
	if m.width > 0 {
		m.resize(m.width, m.height)
	}
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	// The renderer redraws a resized terminal from scratch.
	m.floor = 0
	m.input.setWidth(w)
	l := m.layout()
	m.laidOut = l
	chatW, chatH := w, l.main
	switch {
	case !m.opts.AltScreen:
		// Inline: the pane, when shown, is folded under the live items.
		if m.showPane {
			m.pane.SetSize(w, l.pane)
		}
	case !m.showPane:
	case m.narrow():
		chatH = l.main - l.pane
		m.pane.SetSize(w, l.pane)
	default:
		// One blank column between chat and pane keeps card borders
		// and full-width text off the pane's border.
		pw := max(w/3, 40)
		chatW = w - pw - 1
		m.pane.SetSize(pw, l.main)
	}
	m.chat.SetSize(chatW, chatH)
	m.chat.reanchor()
	m.chat.clamp()
	m.input.SetSize(w, l.box-2)
	m.help.SetWidth(w)
}

// View lays out chat and pane, the work line, input (or approval), status
// bar and help line.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = m.opts.AltScreen
	v.WindowTitle = titles[m.title]
	if m.width == 0 || m.height == 0 {
		// Inline, a frame drawn before the terminal's size is known stays
		// above the first real one (the renderer cannot tell how many rows
		// it took): a tmux pane's first program showed "starting…" for
		// good. Full screen, the next frame replaces it.
		if m.opts.AltScreen {
			v.SetContent("starting…")
		}
		return v
	}
	if m.opts.AltScreen {
		v.SetContent(m.render())
	} else {
		v.SetContent(m.renderInline())
	}
	return v
}

func (m *Model) render() string {
	l := m.layout()
	var main string
	switch {
	case m.picker != nil:
		m.sizePicker()
		main = m.picker.View()
	case !m.showPane:
		main = m.chat.View()
	case m.narrow() && l.pane == 0:
		main = m.chat.View()
	case m.narrow():
		main = m.chat.View() + "\n" + m.pane.View(m.spin.View(), true)
	default:
		main = lipgloss.JoinHorizontal(lipgloss.Top, m.chat.View(), " ", m.pane.View(m.spin.View(), false))
	}
	rows := []string{}
	if l.main > 0 {
		rows = append(rows, main)
	}
	if l.work {
		rows = append(rows, m.workLine())
	}
	rows = append(rows, m.bottom(l.box), m.status.View(m.st, m.width))
	if l.help {
		rows = append(rows, m.helpLine())
	}
	return strings.Join(rows, "\n")
}

// bottom is the input box, or the approval question in its place, cut or
// padded to rows.
func (m *Model) bottom(rows int) string {
	var b string
	if len(m.approvals) > 0 {
		b = approvalView(m.st, m.approvals[0], m.width, maxApprovalArgRows(m.height), m.alwaysPick, !m.approvalReady())
	} else if len(m.forms) > 0 {
		b = m.forms[0].view(m.st, m.width)
	} else {
		b = m.input.View(m.picker == nil)
	}
	return strings.Join(fit(strings.Split(b, "\n"), m.width, rows), "\n")
}

func (m *Model) workLine() string {
	var s string
	switch {
	case m.working && !m.catalogSince.IsZero():
		// The names go in what the rest leaves of the width, so that
		// the key to go on without them is not cut at 80 columns.
		head := m.spin.View() + " " + m.st.Running.Render("catalog: starting… "+fmtElapsed(m.opts.Now().Sub(m.catalogSince)))
		const waiting, keys = " · waiting for ", " · esc sends without them"
		room := m.width - ansi.StringWidth(head) - ansi.StringWidth(waiting) - ansi.StringWidth(keys)
		s = head + m.st.Muted.Render(waiting+fitNames(strings.Split(m.catalogNames, ", "), room)+keys)
	case m.working:
		s = m.spin.View() + " " + m.st.Running.Render("working "+fmtElapsed(m.opts.Now().Sub(m.started)))
		if len(m.approvals)+len(m.forms) == 0 {
			// In a dialog esc answers it (deny, cancel the form), not the
			// turn; the dialog's own line says its keys.
			s += m.st.Muted.Render(" · esc to cancel")
		}
		if m.hint != "" {
			s += m.st.Muted.Render(" · " + m.hint)
		}
	case m.hint != "":
		s = m.st.WarningText.Render(m.hint)
	case m.completionLine() != "":
		s = m.completionLine()
	case m.chat.Offset() > 0:
		s = m.st.Muted.Render(fmt.Sprintf("scrolled up %d lines · pgdn to return", m.chat.Offset()))
	}
	return strings.Join(fit([]string{s}, m.width, 1), "")
}

// fitNames lists names in at most width columns: as many as fit, then
// "+N more" for the rest; a count when not even the first fits.
func fitNames(names []string, width int) string {
	if all := strings.Join(names, ", "); ansi.StringWidth(all) <= width {
		return all
	}
	for i := len(names) - 1; i >= 1; i-- {
		if s := strings.Join(names[:i], ", ") + fmt.Sprintf(" +%d more", len(names)-i); ansi.StringWidth(s) <= width {
			return s
		}
	}
	if len(names) == 1 {
		return ansi.Truncate(names[0], max(width, 1), "…")
	}
	return fmt.Sprintf("%d servers", len(names))
}

func fmtElapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
