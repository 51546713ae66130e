package tuiapp

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	mcptools "github.com/agent-dev/agent/tools/mcp"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tui"
)

// The TUI answers MCP servers' requests: a sampling request is an approval
// dialog (its messages as the "arguments"; "always" holds for the server),
// an elicitation a form (tui.FormRequest).

var (
	_ app.Asker    = (*Backend)(nil)
	_ tui.Elicitor = (*Backend)(nil)
)

var samplingIDs atomic.Int64

// ApproveSampling asks the user whether a server may sample the model.
func (b *Backend) ApproveSampling(ctx context.Context, r mcptools.SamplingRequest, model string) bool {
	key := "sampling:" + r.Server
	b.mu.Lock()
	ok := b.always[key]
	b.mu.Unlock()
	if ok {
		return true
	}
	answer := make(chan bool, 1)
	req := tui.ApprovalRequest{
		Tool: agent.ToolEvent{ID: fmt.Sprintf("sampling-%d", samplingIDs.Add(1)), Name: "sample " + model + " for " + r.Server,
			Server: r.Server, Input: app.SamplingInput(r, model)},
		Reply: func(d tui.Decision) {
			// Any "always" holds for the server's sampling, this session.
			if _, _, always := d.Always(); always {
				b.mu.Lock()
				b.always[key] = true
				b.mu.Unlock()
			}
			answer <- d != tui.Deny
		},
		SessionOnly: true,
		Question:    "Let MCP server " + r.Server + " sample " + model + "?",
		// The server may cancel, the request time out or the connection
		// drop while the dialog is up: it is withdrawn then.
		Done: ctx.Done(), Why: func() string { return mcptools.RequestEnded(ctx) },
	}
	select {
	case b.approvals <- req:
	case <-ctx.Done():
		return false
	}
	select {
	case ok := <-answer:
		return ok
	case <-ctx.Done():
		return false
	}
}

// Elicit shows a server's form (or URL) and waits for the answer.
// The form is withdrawn when ctx ends first (for a URL a tool call waits
// on: the server said the user is done).
func (b *Backend) Elicit(ctx context.Context, e mcptools.Elicitation) mcptools.ElicitAnswer {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answer := make(chan mcptools.ElicitAnswer, 1)
	req := tui.FormRequest{Server: e.Server, Message: e.Message, URL: e.URL, Retry: e.Retry, Done: ctx.Done(),
		Why: func() string { return mcptools.RequestEnded(ctx) }, // the request's cause, passed down
		Reply: func(action string, content map[string]any) {
			answer <- mcptools.ElicitAnswer{Action: action, Content: content}
		}}
	if e.URL != "" {
		req.Open = oauth.OpenBrowser
	}
	for _, f := range e.Fields {
		req.Fields = append(req.Fields, tui.FormField{Name: f.Name, Label: f.Label(), Description: f.Description, Type: f.Type,
			Options: f.Labels, Default: f.DefaultText(), Required: f.Required, Parse: f.Parse})
	}
	select {
	case b.forms <- req:
	case <-ctx.Done():
		return mcptools.ElicitAnswer{Action: mcptools.ActionCancel}
	}
	select {
	case a := <-answer:
		return a
	case <-ctx.Done():
		return mcptools.ElicitAnswer{Action: mcptools.ActionCancel}
	}
}

// Elicitations delivers the forms to the TUI.
func (b *Backend) Elicitations() <-chan tui.FormRequest { return b.forms }
