package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/suggest"
	"github.com/agent-dev/agent/sanitize"
)

// Results of the backend calls commands make. Each is produced by a
// tea.Cmd and applied in Update.
type (
	infoMsg     Info
	modelSetMsg struct {
		Name string
		Err  error
		// Near is the provider's model the name looks like a typo of.
		Near string
		// Warning says the model is unknown to the backend (ModelWarner).
		Warning string
	}
	toolsListMsg struct {
		Filter string
		Tools  []ToolInfo
	}
	searchDoneMsg struct {
		ID    string
		Tools []ToolInfo
		Err   error
	}
	sessionsMsg struct {
		Items []SessionInfo
		Err   error
		// Filter is what /resume ID or /sessions WORDS named.
		Filter string
	}
	resumedMsg struct {
		ID      string
		History []agent.Message
		Tools   []ToolInfo
		Err     error
	}
	newSessionMsg struct {
		Err error
		// cleared: /clear asked for it (the notice says so).
		cleared bool
	}
	flushMsg    struct{}
	infoTickMsg struct{}
)

func (m *Model) infoTick() tea.Cmd {
	return tea.Tick(m.opts.RefreshEvery, func(time.Time) tea.Msg { return infoTickMsg{} })
}

func (m *Model) refreshInfo() tea.Cmd {
	b := m.b
	return func() tea.Msg { return infoMsg(b.Info()) }
}

// command runs a slash command; ok is false when text is not one.
func (m *Model) command(text string) (tea.Cmd, bool) {
	if !strings.HasPrefix(text, "/") {
		return nil, false
	}
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	arg = strings.TrimSpace(arg)
	b, ctx := m.b, context.Background()
	if cmd, ok := m.agentCommand(name, arg); ok {
		return cmd, true
	}
	if cmd, ok := m.mcpCommand(name, arg); ok {
		return cmd, true
	}
	switch name {
	case "/quit", "/exit":
		return m.quit(), true
	case "/help":
		m.chat.notice(itemNotice, m.helpText())
	case "/clear":
		// As in Claude Code and Codex: a new conversation on a clear
		// screen; the old one stays in agent sessions (/resume).
		// The screen clears once the backend started the new session (it
		// refuses during a turn).
		return func() tea.Msg { return newSessionMsg{Err: b.New(ctx), cleared: true} }, true
	case "/model":
		if arg == "" {
			if _, ok := b.(ModelLister); !ok {
				m.chat.notice(itemNotice, "model: "+m.status.info.Model+" (use /model NAME to switch)")
				return nil, true
			}
			return modelsCmd(b), true
		}
		return setModelCmd(b, arg), true
	case "/subagents":
		m.subagentsCommand(arg)
	case "/cost":
		m.chat.notice(itemNotice, m.costText())
	case "/context":
		m.chat.notice(itemNotice, m.contextText())
	case "/copy":
		return m.copyCmd(arg), true
	case "/export":
		path := arg
		if path == "" {
			path = "agent-" + orText(shortID(m.status.info.SessionID), "session") + ".md"
		}
		return exportCmd(path, m.transcript()), true
	case "/tools":
		return func() tea.Msg { return toolsListMsg{Filter: arg, Tools: b.Tools()} }, true
	case "/search":
		if arg == "" {
			m.chat.notice(itemWarning, "usage: /search QUERY")
			return nil, true
		}
		if m.status.info.Deferred == 0 {
			// The search looks through the deferred tools only (what the
			// model's search would find): with none it finds nothing,
			// and "→ 0 tools" read as if no tool fitted.
			m.chat.notice(itemWarning, "no tool is deferred, so /search has nothing to look through: every tool goes to the model on each request (/tools lists them; --defer defers a server's tools)")
			return nil, true
		}
		s := m.pane.manualSearch(arg)
		s.line = m.chat.add(&chatItem{kind: itemSearch, search: s})
		id := s.ID
		return tea.Batch(func() tea.Msg {
			ts, err := b.Search(ctx, arg)
			return searchDoneMsg{ID: id, Tools: ts, Err: err}
		}, m.spin.Tick), true
	case "/sessions", "/resume":
		return func() tea.Msg {
			items, err := b.Sessions(ctx)
			return sessionsMsg{Items: items, Err: err, Filter: arg}
		}, true
	case "/new":
		return func() tea.Msg { return newSessionMsg{Err: b.New(ctx)} }, true
	default:
		if _, ok := m.customCommand(name); ok {
			if m.working {
				m.waitForTurn("a turn is running: esc cancels it")
				return nil, true
			}
			// The backend expands it (Send), as -p does.
			return m.submit(strings.TrimSpace(text)), true
		}
		if strings.Contains(name[1:], "/") {
			// A path ("/etc/hosts is what?") is no command's name: it
			// goes as typed, as -p sends it.
			return nil, false
		}
		// The text stays in the input, to be fixed or sent as typed.
		m.keepInput = true
		if u, ok := m.b.(UntrustedCommands); ok && u.UntrustedCommand(name[1:]) {
			m.chat.notice(itemWarning, name+" is a command of this project, which is not trusted: review .agent/commands, then run `agent trust` and start agent again (or pass --trust)")
			return nil, true
		}
		if near := suggest.Nearest(name, append(commandNames(), m.customNames()...)); near != "" {
			m.chat.notice(itemWarning, "unknown command "+name+": did you mean "+near+"? (/help lists them; a leading space sends the text as typed)")
			return nil, true
		}
		m.chat.notice(itemWarning, "unknown command "+name+"; /help lists them (a leading space sends the text as typed)")
	}
	return nil, true
}

func resumeCmd(b Backend, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
		defer cancel()
		h, err := b.Resume(ctx, id)
		if err != nil {
			return resumedMsg{ID: id, Err: err}
		}
		return resumedMsg{ID: id, History: h, Tools: b.Tools()}
	}
}

// helpColumn is the width of /help's command column: the longest usage,
// so every description starts in the same column ("/mcp [ACTION NAME]"
// is wider than the 16 it once was).
func helpColumn() int {
	col := 0
	for _, c := range commandHelp {
		col = max(col, utf8.RuneCountInString(c[0]))
	}
	return col
}

func (m *Model) helpText() string {
	var b strings.Builder
	b.WriteString("Keys\n")
	for _, group := range m.keys.FullHelp() {
		for _, k := range m.modeKeys(group) {
			h := k.Help()
			fmt.Fprintf(&b, "  %-10s %s\n", h.Key, h.Desc)
		}
	}
	b.WriteString("Commands\n")
	col := helpColumn()
	for _, c := range commandHelp {
		fmt.Fprintf(&b, "  %-*s %s\n", col, c[0], c[1])
	}
	b.WriteString(m.customHelp(col))
	b.WriteString("Text that starts with / is a command; start it with a space to send it as typed (\" /help me read this\").\n")
	if m.opts.AltScreen {
		b.WriteString("pgup/pgdn scroll the chat.")
	} else {
		b.WriteString("The conversation is in the terminal's scrollback: scroll it there.")
	}
	return b.String()
}

// toolsText lists tools for /tools, active first, then deferred.
func toolsText(ts []ToolInfo, filter string) string {
	f := strings.ToLower(filter)
	var act, def []ToolInfo
	for _, t := range ts {
		if f != "" && !strings.Contains(strings.ToLower(t.Name+" "+t.Server+" "+t.Description), f) {
			continue
		}
		if t.Deferred {
			def = append(def, t)
		} else {
			act = append(act, t)
		}
	}
	sort.Slice(def, func(i, j int) bool { return def[i].Name < def[j].Name })
	var b strings.Builder
	title := "Tools"
	if filter != "" {
		title += " matching “" + filter + "”"
	}
	fmt.Fprintf(&b, "%s: %d active, %d deferred\n", title, len(act), len(def))
	list := func(name string, ts []ToolInfo) {
		if len(ts) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", name)
		const maxRows = 60
		for i, t := range ts {
			if i == maxRows {
				fmt.Fprintf(&b, "  … %d more (narrow with /tools FILTER)\n", len(ts)-maxRows)
				break
			}
			fmt.Fprintf(&b, "  %s [%s] %s\n", sanitize.Line(t.Name), orDash(sanitize.Line(t.Server)), firstLine(t.Description))
		}
	}
	list("active", act)
	list("deferred", def)
	return strings.TrimRight(b.String(), "\n")
}
