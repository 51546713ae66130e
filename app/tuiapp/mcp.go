package tuiapp

import (
	"context"

	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tui"
)

var _ tui.MCPBackend = (*Backend)(nil)

// MCPServers is /mcp's list.
func (b *Backend) MCPServers() []tui.MCPServerInfo {
	var out []tui.MCPServerInfo
	for _, st := range b.a.MCPStatus() {
		out = append(out, tui.MCPServerInfo{Name: st.Name, State: string(st.State), Error: st.Error, SignIn: b.a.SignInState(st.Name, st.State),
			Tools: st.Tools, Hidden: len(st.Hidden), Prompts: st.Prompts, Resource: st.Resources, Protocol: protocolText(st)})
	}
	return out
}

// protocolText is /mcp's protocol of a server: the revision it is spoken
// to in, marked when its "protocol" setting chose it rather than "auto".
func protocolText(st mcptools.Status) string {
	if st.ProtocolSet() {
		return st.Protocol + " (set)"
	}
	return st.Revision
}

// MCPControl is /mcp ACTION NAME; refused during a turn.
func (b *Backend) MCPControl(ctx context.Context, action, name string) (string, error) {
	return b.a.MCPControl(ctx, action, name)
}

// MCPPrompts lists the prompts /SERVER:PROMPT runs.
func (b *Backend) MCPPrompts() []tui.MCPPromptInfo {
	var out []tui.MCPPromptInfo
	for _, p := range b.a.MCPPrompts() {
		pi := tui.MCPPromptInfo{Server: p.Server, Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			pi.Args = append(pi.Args, a.Name)
		}
		out = append(out, pi)
	}
	return out
}

// MCPResources lists "server:uri" of the listed resources.
func (b *Backend) MCPResources() []string {
	var out []string
	for _, r := range b.a.MCPResources() {
		if r.URI != "" {
			out = append(out, r.Server+":"+r.URI)
		}
	}
	return out
}

func (b *Backend) ExpandPrompt(ctx context.Context, server, prompt, args string) (string, error) {
	return b.a.ExpandPrompt(ctx, server, prompt, args)
}

func (b *Backend) CompletePrompt(ctx context.Context, server, prompt, arg, value string) ([]string, error) {
	return b.a.CompletePrompt(ctx, server, prompt, arg, value, nil)
}

func (b *Backend) ReadResource(ctx context.Context, server, uri string) (string, error) {
	return b.a.ReadResource(ctx, server, uri)
}
