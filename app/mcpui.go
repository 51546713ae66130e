package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// What the TUI's /mcp, /SERVER:PROMPT and @SERVER:URI reach: the servers'
// status, reconnect/disable/enable between turns, prompts expanded into a
// turn's text (arguments completed by the server), resources read into
// the prompt.

// MCPStatus lists the run's servers (status, counts of tools, prompts and
// resources, what is hidden).
func (a *App) MCPStatus() []mcptools.Status {
	if a.mcp == nil {
		return nil
	}
	return a.mcp.Status()
}

// ErrNoMCP: the run has no MCP servers (the demo, or none configured).
var ErrNoMCP = errors.New("no MCP servers in this run")

// MCPControl is /mcp reconnect|disable|enable NAME, between turns: the
// tools array changes at the next turn. Its reply is the one message of
// the action: what the server said meanwhile ("MCP server tt disabled (4
// tools leave)") is in it and not said again as a notice; a disable then
// an enable said each thing two or three times ("MCP server tt: disabled,
// 4 tools", then the notice; "running", "restarted" and "enabled" for the
// enable), and both said the next request would miss the cache when the
// tools were back as the last request had them.
func (a *App) MCPControl(ctx context.Context, action, name string) (string, error) {
	if a.mcp == nil {
		return "", ErrNoMCP
	}
	capturing := a.startCapture(name)
	st, err := a.mcpControl(ctx, action, name)
	var evs []mcptools.Event
	if capturing {
		evs = a.endCapture(name)
	}
	var edited string
	if action == "reconnect" || action == "enable" {
		edited = a.editedNote(name)
	}
	if err != nil {
		for _, e := range evs {
			a.onMCPEvent(e) // said as any other server event is
		}
		if edited != "" {
			return "", fmt.Errorf("%w; %s", err, edited)
		}
		return "", err
	}
	status := fmt.Sprintf("MCP server %s: %s, %d %s", st.Name, st.State, st.Tools, plural(st.Tools, "tool", "tools"))
	var lines []string
	if action == "reconnect" || action == "login" {
		lines = append(lines, status)
	}
	last, cacheMiss := -1, false
	for _, e := range evs {
		switch {
		case e.Kind == mcptools.EventServerUp:
			// Connected by this action ("MCP server tt restarted"): the
			// reply says how it is.
		case e.Text == "":
		case e.Kind == mcptools.EventToolsChanged:
			lines, last = append(lines, e.Text), len(lines)
			cacheMiss = cacheMiss || e.CacheMiss
		default:
			lines = append(lines, e.Text)
		}
	}
	if len(lines) == 0 {
		lines = append(lines, status) // nothing changed: already so
	}
	if last >= 0 && a.LastToolsHash() != "" {
		lines[last] += a.toolsNote(cacheMiss)
	}
	if edited != "" {
		lines = append(lines, edited)
	}
	return strings.Join(lines, "\n"), nil
}

// editedNote says when a server's entry in the config files is no longer
// the one it runs with: the config is read at start, and /mcp reconnect
// restarts the server as it was then. A user who fixed a wrong command in
// mcp.json and reconnected saw the old command fail again ("command
// \"mcp-server-nosuch\" not found"), with nothing saying why.
func (a *App) editedNote(name string) string {
	was, ok := a.configured[name]
	if !ok {
		return ""
	}
	configured, err := a.settings.MCPServers()
	if err != nil {
		return ""
	}
	now, ok := configured[name]
	if !ok {
		return ""
	}
	before, err1 := json.Marshal(was)
	after, err2 := json.Marshal(now)
	if err1 != nil || err2 != nil || bytes.Equal(before, after) {
		return ""
	}
	return "the config of MCP server " + name + " changed since the agent started, which read it then: " +
		"quit and resume (agent --continue) to use the new one"
}

// toolsNote is changeNote for the tools array as it is now, between
// turns: one back as the last request had it (disabled, then enabled)
// costs no cache.
func (a *App) toolsNote(cacheMiss bool) string {
	a.SyncTools()
	if h := toolsHash(a.session); h != "" && h == a.LastToolsHash() {
		return "; the tools are again those of the last request, whose prompt cache the next one reads"
	}
	return changeNote(cacheMiss)
}

// startCapture holds server's events for MCPControl's reply; false when
// another /mcp action on it holds them already.
func (a *App) startCapture(server string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.capture[server]; ok {
		return false
	}
	if a.capture == nil {
		a.capture = map[string][]mcptools.Event{}
	}
	a.capture[server] = []mcptools.Event{}
	return true
}

// endCapture returns the events held since startCapture.
func (a *App) endCapture(server string) []mcptools.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	evs := a.capture[server]
	delete(a.capture, server)
	return evs
}

// captured holds e if an /mcp action on its server is running.
func (a *App) captured(e mcptools.Event) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	evs, ok := a.capture[e.Server]
	if ok {
		a.capture[e.Server] = append(evs, e)
	}
	return ok
}

// mcpControl runs the action.
func (a *App) mcpControl(ctx context.Context, action, name string) (mcptools.Status, error) {
	var st mcptools.Status
	var err error
	switch action {
	case "reconnect":
		st, err = a.mcp.Reconnect(ctx, name)
	case "disable":
		st, err = a.mcp.Disable(name)
	case "enable":
		st, err = a.mcp.Enable(ctx, name)
	case "login":
		// The browser step waits for the user: oauth_timeout bounds it,
		// not the caller's short deadline. The URL is said as a notice.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loginTimeout(a.settings))
		defer cancel()
		if _, err := mcpLogin(lctx, a.settings, name, noticeWriter{a}, "/mcp login"); err != nil {
			return st, err
		}
		// The sign-in was kept by an Authorizer of its own; the run's
		// read the store at start and would still find no token.
		if auth := a.mcp.Authorizer(name); auth != nil {
			auth.Reload()
		}
		st, err = a.mcp.Reconnect(ctx, name)
	default:
		return st, Usagef("unknown /mcp action %q: use reconnect, disable, enable or login", action)
	}
	return st, err
}

// SignInState is the OAuth state for /mcp ("signed in", "expired",
// "not signed in", "-") of the server name, whose connection is in state.
func (a *App) SignInState(name string, state mcptools.State) string {
	if a.mcp == nil {
		return ""
	}
	if auth := a.mcp.Authorizer(name); auth != nil {
		if state == mcptools.StateIdle {
			// Not started yet, its tools from its cache: it was reached
			// before, with a token kept or needing none. /mcp said "not
			// signed in" beside every plain HTTP server waiting for its
			// first call, as if a step were left to do.
			state = mcptools.StateRunning
		}
		return signInText(string(signInState(auth, state, needSignIn(a.mcp)[name])), auth.Grant())
	}
	return ""
}

// noticeWriter turns what a sign-in prints (the URL) into notices.
type noticeWriter struct{ a *App }

func (w noticeWriter) Write(b []byte) (int, error) {
	// The "agent: " that starts a line on the shell's stderr says nothing
	// in the agent's own chat.
	if s := strings.TrimSpace(strings.ReplaceAll(string(b), "agent: ", "")); s != "" {
		w.a.News(s)
	}
	return len(b), nil
}

// MCPPrompts lists the servers' prompts.
func (a *App) MCPPrompts() []mcptools.Prompt {
	if a.mcp == nil {
		return nil
	}
	return a.mcp.Prompts()
}

// MCPResources lists the servers' resources and templates.
func (a *App) MCPResources() []mcptools.Resource {
	if a.mcp == nil {
		return nil
	}
	return a.mcp.Resources()
}

// ExpandPrompt runs prompts/get for /SERVER:PROMPT ARGS and returns the
// text of the turn it starts. ARGS are NAME=VALUE pairs or values in the
// order of the prompt's arguments ("quoted" for spaces).
func (a *App) ExpandPrompt(ctx context.Context, server, prompt, args string) (string, error) {
	p, ok := a.findPrompt(server, prompt)
	if !ok {
		return "", fmt.Errorf("MCP server %s has no prompt %q (/mcp lists the servers)", server, prompt)
	}
	vals, err := PromptArgs(p, args)
	if err != nil {
		return "", err
	}
	msgs, err := a.mcp.GetPrompt(ctx, server, prompt, vals)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, m := range msgs {
		text := m.Text
		if len(m.Images) > 0 {
			text += fmt.Sprintf("\n[%d image(s) of the prompt not attached]", len(m.Images))
		}
		if m.Role == "assistant" {
			text = "(assistant) " + text
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("prompt %s of MCP server %s has no messages", prompt, server)
	}
	return strings.Join(parts, "\n\n"), nil
}

// promptTurn expands text that calls an MCP server's prompt, /SERVER:PROMPT
// ARGS, into the turn it starts, as the TUI does before it sends; in print
// mode the line went to the model as typed. Text that names no prompt a
// server lists is returned as is (a custom command's name has no colon).
func (a *App) promptTurn(ctx context.Context, text string) (string, error) {
	if !strings.HasPrefix(text, "/") {
		return text, nil
	}
	head, args := text[1:], ""
	if i := strings.IndexAny(head, " \t\n"); i >= 0 {
		head, args = head[:i], strings.TrimSpace(head[i+1:])
	}
	server, name, ok := strings.Cut(head, ":")
	if !ok {
		return text, nil
	}
	p, found := a.findPrompt(server, name)
	if !found {
		return text, nil
	}
	if _, err := PromptArgs(p, args); err != nil {
		return "", usage(err)
	}
	out, err := a.ExpandPrompt(ctx, server, name, args)
	if err != nil {
		return "", fmt.Errorf("/%s:%s: %w", server, name, err)
	}
	return out, nil
}

func (a *App) findPrompt(server, name string) (mcptools.Prompt, bool) {
	for _, p := range a.MCPPrompts() {
		if p.Server == server && p.Name == name {
			return p, true
		}
	}
	return mcptools.Prompt{}, false
}

// PromptArgs reads a prompt's arguments: NAME=VALUE pairs, or values in
// the order the prompt declares them. A required argument left out is an
// error naming it.
func PromptArgs(p mcptools.Prompt, args string) (map[string]string, error) {
	out := map[string]string{}
	pos := 0
	for _, w := range splitArgs(args) {
		if k, v, ok := strings.Cut(w, "="); ok && slices.ContainsFunc(p.Arguments, func(x mcptools.PromptArg) bool { return x.Name == k }) {
			out[k] = v
			continue
		}
		for pos < len(p.Arguments) && out[p.Arguments[pos].Name] != "" {
			pos++
		}
		if pos >= len(p.Arguments) {
			return nil, fmt.Errorf("prompt %s takes %d argument(s); %q is one too many", p.Name, len(p.Arguments), w)
		}
		out[p.Arguments[pos].Name] = w
		pos++
	}
	for _, x := range p.Arguments {
		if x.Required && out[x.Name] == "" {
			return nil, fmt.Errorf("prompt %s needs %s: /%s:%s %s=VALUE", p.Name, x.Name, p.Server, p.Name, x.Name)
		}
	}
	return out, nil
}

// splitArgs splits on spaces, keeping "quoted text" together.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, started := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case r == ' ' && !quoted:
			if started {
				out = append(out, cur.String())
			}
			cur.Reset()
			started = false
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}

// CompletePrompt asks the server for completions of a prompt's argument
// (completion/complete); nil when it offers none.
func (a *App) CompletePrompt(ctx context.Context, server, prompt, arg, value string, others map[string]string) ([]string, error) {
	if a.mcp == nil {
		return nil, ErrNoMCP
	}
	return a.mcp.Complete(ctx, server, prompt, arg, value, others)
}

// ReadResource reads @SERVER:URI for the prompt.
func (a *App) ReadResource(ctx context.Context, server, uri string) (string, error) {
	if a.mcp == nil {
		return "", ErrNoMCP
	}
	r, err := a.mcp.ReadResource(ctx, server, uri)
	if err != nil {
		return "", err
	}
	if r.IsError {
		return "", errors.New(r.Text)
	}
	if len(r.Images) > 0 {
		r.Text += fmt.Sprintf("\n[%d image(s) of the resource not attached]", len(r.Images))
	}
	return r.Text, nil
}

// loginTimeout bounds /mcp login: oauth_timeout, with room for the token
// exchange.
func loginTimeout(s Settings) time.Duration {
	return time.Duration(s.Config.OAuthTimeout) + 30*time.Second
}
