package tui

import "charm.land/bubbles/v2/key"

// KeyMap is every key the TUI handles; it also feeds the help line and /help.
type KeyMap struct {
	Send       key.Binding
	Newline    key.Binding
	Cancel     key.Binding
	Quit       key.Binding
	TogglePane key.Binding
	Expand     key.Binding
	SelectUp   key.Binding
	SelectDown key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	HistPrev   key.Binding
	HistNext   key.Binding
	Complete   key.Binding
	Editor     key.Binding
	Yes        key.Binding
	No         key.Binding
	Always     key.Binding
	Mode       key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:    key.NewBinding(key.WithKeys("ctrl+j", "alt+enter", "shift+enter"), key.WithHelp("ctrl+j", "newline")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel turn")),
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel turn · clear draft · quit")),
		TogglePane: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "tools pane")),
		Expand:     key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand cards")),
		SelectUp:   key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "select a card: ctrl+o folds it alone")),
		SelectDown: key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "next card (past the last: none)")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		HistPrev:   key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous prompt")),
		HistNext:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next prompt")),
		Complete:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete /command or @file")),
		Editor:     key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "edit prompt in $EDITOR")),
		Yes:        key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "allow once")),
		No:         key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "deny")),
		Always:     key.NewBinding(key.WithKeys("a", "A"), key.WithHelp("a", "always allow…")),
		Mode:       key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "permission mode")),
	}
}

// ShortHelp is the help line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Cancel, k.TogglePane, k.Expand, k.PageUp, k.Quit}
}

// FullHelp is what /help lists.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.HistPrev, k.HistNext, k.Complete, k.Editor},
		{k.Cancel, k.Quit, k.TogglePane, k.Expand, k.SelectUp, k.SelectDown, k.Mode},
		{k.PageUp, k.PageDown, k.Yes, k.No, k.Always},
	}
}

// commandHelp documents the slash commands, in /help order.
var commandHelp = [][2]string{
	{"/model [NAME]", "switch the model: a picker without NAME; PROVIDER:NAME for another provider"},
	{"/compact [FOCUS]", "summarise the conversation; send the summary instead"},
	{"/agent [NAME]", "list agent profiles, or switch (keeps the conversation)"},
	{"/subagents [N]", "list the subagent runs, or print run N's card whole"},
	{"/tools [FILTER]", "list active and deferred tools, optionally filtered"},
	{"/search QUERY", "run the client-side tool search without asking the model"},
	{"/sessions [ID]", "pick a stored session and resume it (also /resume); an ID resumes that one"},
	{"/new", "start a new session"},
	{"/clear", "start a new conversation on a clear screen (the old one stays in /sessions)"},
	{"/cost", "what the session spent: tokens, cache share, dollars"},
	{"/context", "how full the model's context window is"},
	{"/copy [N]", "copy the last answer, or its code block N, to the clipboard (OSC 52)"},
	{"/export [FILE]", "write the conversation as Markdown (default agent-SESSION.md)"},
	{"/mcp [ACTION NAME]", "MCP servers; reconnect, disable, enable or login one (between turns)"},
	{"/help", "show keys and commands"},
	{"/quit", "quit"},
}

// helpLine is the bottom line: the keys of what has the focus.
func (m *Model) helpLine() string {
	switch {
	case len(m.approvals) > 0:
		return m.help.ShortHelpView(m.approvalKeys(m.approvals[0]))
	case m.picker != nil:
		k := m.picker.keys
		b := []key.Binding{k.Up, k.Pick, k.Close}
		if m.picker.kind == pickSession {
			b = append(b, k.Delete)
		}
		return m.help.ShortHelpView(b)
	}
	return m.help.ShortHelpView(m.modeKeys(m.keys.ShortHelp()))
}

// approvalKeys are the keys the approval dialog takes now, as the dialog
// itself lists them: "a" only where it answers (an explicit ask rule or a
// hook would ask again, so it offers no "always"), and the choices of
// "always" once it is open.
func (m *Model) approvalKeys(req ApprovalRequest) []key.Binding {
	cancel := key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "deny and cancel the turn"))
	if !m.approvalReady() {
		// Keys typed now go to the input (armApproval).
		return []key.Binding{cancel}
	}
	if m.alwaysPick {
		last := "3"
		if req.Tool.Server != "" {
			last = "6"
		}
		return []key.Binding{
			key.NewBinding(key.WithKeys("1"), key.WithHelp("1-"+last, "choose")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		}
	}
	b := []key.Binding{m.keys.Yes, m.keys.No}
	switch {
	case req.SessionOnly:
		b = append(b, key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "always, this session")))
	case offersAlways(req):
		b = append(b, m.keys.Always)
	}
	return append(b, cancel)
}

// modeKeys drops pgup/pgdn inline, where the terminal's own scrollback
// holds the conversation and the keys scroll nothing.
func (m *Model) modeKeys(bs []key.Binding) []key.Binding {
	if m.opts.AltScreen {
		return bs
	}
	out := make([]key.Binding, 0, len(bs))
	for _, b := range bs {
		if b.Help() != m.keys.PageUp.Help() && b.Help() != m.keys.PageDown.Help() {
			out = append(out, b)
		}
	}
	return out
}
