package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/internal/suggest"
	"github.com/agent-dev/agent/sanitize"
)

// MCP in the TUI: /mcp lists the servers and acts on one between turns,
// /SERVER:PROMPT ARGS runs a server's prompt as the next turn (tab
// completes prompt names, and argument values through the server's
// completion/complete), @SERVER:URI attaches a resource (tab completes the
// listed ones).

// MCPBackend is a Backend with MCP servers.
type MCPBackend interface {
	MCPServers() []MCPServerInfo
	// MCPControl runs /mcp ACTION NAME (reconnect, disable, enable,
	// login) and says what happened.
	MCPControl(ctx context.Context, action, name string) (string, error)
	MCPPrompts() []MCPPromptInfo
	MCPResources() []string // "server:uri" of each listed resource
	// ExpandPrompt returns the text of the turn /SERVER:PROMPT ARGS starts.
	ExpandPrompt(ctx context.Context, server, prompt, args string) (string, error)
	// CompletePrompt lists values for the argument being typed.
	CompletePrompt(ctx context.Context, server, prompt, arg, value string) ([]string, error)
	ReadResource(ctx context.Context, server, uri string) (string, error)
}

// MCPServerInfo is one line of /mcp.
type MCPServerInfo struct {
	Name, State, SignIn, Error       string
	Tools, Hidden, Prompts, Resource int
	// Protocol is the MCP revision the server is spoken to in
	// ("2026-07-28"), "(set)" after it when its "protocol" setting chose
	// it; "" when not known yet.
	Protocol string
}

// MCPPromptInfo is one prompt of a server.
type MCPPromptInfo struct {
	Server, Name, Description string
	Args                      []string
}

type (
	mcpListMsg struct {
		prompts   []MCPPromptInfo
		resources []string
	}
	mcpTextMsg struct {
		text string
		err  error
		// typed is the /mcp ACTION NAME that failed, for the input.
		typed string
	}
	promptMsg struct {
		text string
		err  error
		// typed is the command as sent, given back to the input when
		// the prompt could not be expanded (a missing argument).
		typed string
	}
)

// mcpListCmd reads the prompts and resources completion offers.
func mcpListCmd(b Backend) tea.Cmd {
	mb, ok := b.(MCPBackend)
	if !ok {
		return nil
	}
	return func() tea.Msg { return mcpListMsg{prompts: mb.MCPPrompts(), resources: mb.MCPResources()} }
}

// mcpActions are what /mcp ACTION NAME does, as the backend's MCPControl
// takes them.
var mcpActions = []string{"reconnect", "disable", "enable", "login"}

// mcpCommand runs /mcp and /SERVER:PROMPT; ok is false for other commands.
func (m *Model) mcpCommand(name, arg string) (tea.Cmd, bool) {
	mb, isMCP := m.b.(MCPBackend)
	if name == "/mcp" {
		demo := m.status.info.Provider == "demo"
		if !isMCP {
			m.chat.notice(itemNotice, mcpText(nil, demo))
			return nil, true
		}
		action, server, _ := strings.Cut(arg, " ")
		server = strings.TrimSpace(server)
		if action == "" {
			return func() tea.Msg { return mcpTextMsg{text: mcpText(mb.MCPServers(), demo)} }, true
		}
		if !slices.Contains(mcpActions, action) {
			// Said here, not by the backend, so that what was typed stays
			// in the input to be fixed: it was cleared.
			m.keepInput = true
			hint := "use " + strings.Join(mcpActions, ", ")
			if near := suggest.Nearest(action, mcpActions); near != "" {
				hint = "did you mean " + near + "?"
			}
			m.chat.notice(itemWarning, fmt.Sprintf("unknown /mcp action %q: %s", action, hint))
			return nil, true
		}
		if server == "" {
			m.keepInput = true // the name is added to it
			m.chat.notice(itemWarning, "usage: /mcp "+action+" NAME (/mcp lists the servers)")
			return nil, true
		}
		if m.working {
			m.waitForTurn("/mcp " + action + " waits for the turn to end: esc cancels it")
			return nil, true
		}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*backendTimeout)
			defer cancel()
			text, err := mb.MCPControl(ctx, action, server)
			return mcpTextMsg{text: text, err: err, typed: "/mcp " + action + " " + server}
		}, true
	}
	server, prompt, ok := strings.Cut(strings.TrimPrefix(name, "/"), ":")
	if !ok || !isMCP || !m.isPrompt(server, prompt) {
		return nil, false
	}
	if m.working {
		m.waitForTurn("a turn is running: esc cancels it")
		return nil, true
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*backendTimeout)
		defer cancel()
		text, err := mb.ExpandPrompt(ctx, server, prompt, arg)
		return promptMsg{text: text, err: err, typed: strings.TrimSpace(name+" "+arg) + " "}
	}, true
}

func (m *Model) isPrompt(server, name string) bool {
	_, ok := m.mcpPrompt("/" + server + ":" + name)
	return ok
}

// mcpPrompt is the server's prompt a /SERVER:PROMPT command names.
func (m *Model) mcpPrompt(command string) (MCPPromptInfo, bool) {
	server, name, ok := strings.Cut(strings.TrimPrefix(command, "/"), ":")
	if !ok || !strings.HasPrefix(command, "/") {
		return MCPPromptInfo{}, false
	}
	for _, p := range m.mcpPrompts {
		if p.Server == server && p.Name == name {
			return p, true
		}
	}
	return MCPPromptInfo{}, false
}

// mcpText is /mcp's list. With none it says how to connect one; in the
// demo, whose /tools lists servers' tools (weather, codehost, …), it says
// where those come from, as a bare "no MCP servers" contradicted /tools.
func mcpText(servers []MCPServerInfo, demo bool) string {
	if len(servers) == 0 && demo {
		return "no MCP servers in the demo: its tools come from a bundled catalog; run agent --mcp NAME to connect a server (agent mcp list shows the presets)"
	}
	if len(servers) == 0 {
		return "no MCP servers in this session: run agent --mcp NAME to connect one (agent mcp list shows the presets), or add mcpServers to your config"
	}
	var b strings.Builder
	b.WriteString("MCP servers (/mcp reconnect|disable|enable|login NAME):\n")
	// The states line up under each other whatever the names' lengths.
	col := 0
	for _, s := range servers {
		col = max(col, ansi.StringWidth(sanitize.Line(s.Name)))
	}
	for _, s := range servers {
		name := sanitize.Line(s.Name)
		fmt.Fprintf(&b, "  %s%s  %s", name, strings.Repeat(" ", col-ansi.StringWidth(name)), s.State)
		if s.SignIn != "" && s.SignIn != "-" {
			fmt.Fprintf(&b, " · %s", sanitize.Line(s.SignIn))
		}
		b.WriteString(" · " + plural(s.Tools, "tool"))
		if s.Hidden > 0 {
			fmt.Fprintf(&b, " (+%d hidden)", s.Hidden)
		}
		b.WriteString(" · " + plural(s.Prompts, "prompt") + " · " + plural(s.Resource, "resource"))
		if s.Protocol != "" {
			b.WriteString(" · protocol " + sanitize.Line(s.Protocol))
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "\n      %s", sanitize.Line(s.Error))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// handleMCPMsg applies the results of the commands above.
func (m *Model) handleMCPMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case mcpListMsg:
		m.mcpPrompts, m.mcpResources = msg.prompts, msg.resources
	case mcpTextMsg:
		if msg.err != nil {
			m.chat.notice(itemWarning, sanitize.Line(msg.err.Error()))
			// The command comes back to the input, to fix a mistyped
			// server's name or try again, as a refused prompt's does.
			if msg.typed != "" && strings.TrimSpace(m.input.Value()) == "" {
				m.input.SetValue(msg.typed)
			}
		} else {
			m.chat.notice(itemNotice, sanitize.Text(msg.text))
		}
	case promptMsg:
		if msg.err != nil {
			m.chat.notice(itemWarning, sanitize.Line(msg.err.Error()))
			// The command comes back to the input to be completed ("needs
			// city"), as a refused prompt does: it had to be typed again.
			if strings.TrimSpace(m.input.Value()) == "" {
				m.input.SetValue(msg.typed)
			}
			return nil, true
		}
		if m.working {
			m.waitForTurn("a turn is running: esc cancels it")
			return nil, true
		}
		return m.submit(sanitize.Text(msg.text)), true
	case completeMsg:
		return m.applyFileList(fileListMsg(msg)), true
	default:
		return nil, false
	}
	return nil, true
}

// completeMsg carries a server's completions for the word being typed.
type completeMsg fileListMsg

// mcpCommandNames are the prompt commands, for completion.
func (m *Model) mcpCommandNames() []string {
	out := make([]string, 0, len(m.mcpPrompts))
	for _, p := range m.mcpPrompts {
		out = append(out, "/"+p.Server+":"+p.Name)
	}
	return out
}

// mcpComplete is tab on an @server:uri word (listed resources) or on an
// argument of /SERVER:PROMPT (the server's completion/complete); nil when
// the word is neither.
func (m *Model) mcpComplete(w string) (tea.Cmd, bool) {
	if rest, ok := strings.CutPrefix(w, "@"); ok && strings.Contains(rest, ":") {
		var items []string
		for _, r := range m.mcpResources {
			if strings.HasPrefix(r, rest) {
				items = append(items, "@"+r)
			}
		}
		if len(items) == 0 {
			return nil, false
		}
		m.comp = completion{word: w, items: items}
		return m.complete(), true
	}
	v := m.input.Value()
	cmdName, args, ok := strings.Cut(v, " ")
	server, prompt, isPrompt := strings.Cut(strings.TrimPrefix(cmdName, "/"), ":")
	if !ok || !strings.HasPrefix(cmdName, "/") || !isPrompt || !m.isPrompt(server, prompt) || strings.HasSuffix(v, " ") {
		return nil, false
	}
	var p MCPPromptInfo
	for _, x := range m.mcpPrompts {
		if x.Server == server && x.Name == prompt {
			p = x
		}
	}
	arg, value, named := strings.Cut(w, "=")
	if !named {
		// Positional: the argument at this position.
		i := len(strings.Fields(args)) - 1
		if i < 0 || i >= len(p.Args) {
			return nil, false
		}
		arg, value = p.Args[i], w
	}
	mb := m.b.(MCPBackend)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
		defer cancel()
		vals, err := mb.CompletePrompt(ctx, server, prompt, arg, value)
		if err != nil {
			return nil
		}
		var items []string
		for _, v := range vals {
			if named {
				v = arg + "=" + v
			}
			items = append(items, sanitize.Line(v))
		}
		return completeMsg{word: w, items: items}
	}, true
}

// resourceServers names the servers that list resources: an @server:uri
// word of one of them is a resource for attachResources.
func resourceServers(mb MCPBackend) map[string]bool {
	servers := map[string]bool{}
	for _, r := range mb.MCPResources() {
		s, _, _ := strings.Cut(r, ":")
		servers[s] = true
	}
	return servers
}

// isResourceRef reports whether an @word (without its @) is one that
// attachResources reads, so that attach does not also take it for a file.
func isResourceRef(b Backend) func(string) bool {
	mb, ok := b.(MCPBackend)
	if !ok {
		return nil
	}
	servers := resourceServers(mb)
	return func(ref string) bool {
		server, uri, ok := strings.Cut(ref, ":")
		return ok && uri != "" && servers[server]
	}
}

// attachResources appends the text of every @server:uri of the prompt that
// names a listed resource (or any uri of a server that has resources), in
// a <resource> element. It runs in the command that starts the turn (IO).
func attachResources(b Backend, text string, out *attachedMsg) string {
	mb, ok := b.(MCPBackend)
	if !ok {
		return text
	}
	servers := resourceServers(mb)
	var res strings.Builder
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		ref, ok := strings.CutPrefix(w, "@")
		server, uri, isRef := strings.Cut(ref, ":")
		if !ok || !isRef || !servers[server] || uri == "" || seen[ref] {
			continue
		}
		seen[ref] = true
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
		body, err := mb.ReadResource(ctx, server, uri)
		cancel()
		if err != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("@%s not attached: %v", ref, err))
			continue
		}
		fmt.Fprintf(&res, "\n\n<resource server=%q uri=%q>\n%s\n</resource>", server, uri, strings.TrimRight(body, "\n"))
		out.notes = append(out.notes, fmt.Sprintf("attached @%s (%s)", ref, plural(lineCount(body), "line")))
	}
	return text + res.String()
}
