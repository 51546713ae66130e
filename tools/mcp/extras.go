package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// What a server offers besides tools: resources, resource templates and
// prompts (listed at connect and again on their list_changed), and its log
// messages (to the agent's log at Options.LogLevel, never the terminal).

// Resource is a resource a server lists, or a template of them (Template
// set, URI empty).
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri,omitempty"`
	Template    string `json:"uri_template,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// Prompt is a prompt template a server offers.
type Prompt struct {
	Server      string      `json:"server"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// extras is a connection's resources and prompts, and what the server
// said it can do.
type extras struct {
	mu          sync.Mutex
	caps        mcpgo.ServerCapabilities
	resources   []Resource
	templates   []Resource
	prompts     []Prompt
	completions bool
	// taskTools: the server declares tasks.requests.tools.call (tasks.go).
	taskTools bool
}

// watch installs the handlers of the notifications this file follows.
func (c *conn) watch(gen uint64, cl *client.Client) {
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		switch n.Method {
		case string(mcpgo.MethodNotificationProgress):
			onProgress(n)
		case string(mcpgo.MethodNotificationMessage):
			c.onLog(n)
		case mcpgo.MethodNotificationResourcesListChanged:
			go c.refreshExtras(gen, cl, true, false)
		case mcpgo.MethodNotificationPromptsListChanged:
			go c.refreshExtras(gen, cl, false, true)
		case string(mcpgo.MethodNotificationElicitationComplete):
			c.waits.complete(n)
		}
	})
}

// asksExtras reports whether listExtras sends cl's server a request:
// resources, prompts, or the log level to set.
func (c *conn) asksExtras(cl *client.Client) bool {
	caps := cl.GetServerCapabilities()
	return caps.Resources != nil || caps.Prompts != nil || c.m.opts.LogLevel != "" && caps.Logging != nil
}

// listExtras reads what a freshly connected server offers besides tools
// and asks it for the configured log level. Failures are logged: a server
// whose prompts cannot be listed still has its tools.
func (c *conn) listExtras(ctx context.Context, cl *client.Client) {
	caps := cl.GetServerCapabilities()
	c.ex.mu.Lock()
	c.ex.caps = caps
	c.ex.completions = caps.Completions != nil
	// Tasks as tasks.go runs them are 2025-11-25's: 2026-07-28 removed
	// tasks/result (its tasks are an extension the agent does not speak),
	// so on that revision an "optional" tool is called plainly and a
	// "required" one is hidden.
	c.ex.taskTools = caps.Tasks != nil && caps.Tasks.Requests != nil && caps.Tasks.Requests.Tools != nil && caps.Tasks.Requests.Tools.Call != nil &&
		!mcpgo.IsModernProtocol(cl.ProtocolVersion())
	// What the cache said the server offered, and it no longer does, goes.
	if caps.Resources == nil {
		c.ex.resources, c.ex.templates = nil, nil
	}
	if caps.Prompts == nil {
		c.ex.prompts = nil
	}
	c.ex.mu.Unlock()
	if lvl := c.m.opts.LogLevel; lvl != "" && caps.Logging != nil {
		var req mcpgo.SetLevelRequest
		req.Params.Level = mcpgo.LoggingLevel(lvl)
		// Deprecated as of protocol 2026-07-28 (SEP-2577); servers that
		// speak 2025-11-25 and earlier, as most do, still honour it.
		if err := cl.SetLevel(ctx, req); err != nil { //nolint:staticcheck // see above
			c.m.log.Warn("mcp: logging/setLevel failed", "server", c.cfg.Name, "err", err)
		}
	}
	before := c.offersResources()
	c.fetchExtras(ctx, cl, caps.Resources != nil, caps.Prompts != nil)
	if c.offersResources() != before {
		c.m.toolsChanged(c.cfg.Name) // read_resource comes or goes at Sync
	}
}

func (c *conn) fetchExtras(ctx context.Context, cl *client.Client, resources, prompts bool) {
	name := c.cfg.Name
	if resources {
		var rs, ts []Resource
		if res, err := cl.ListResources(ctx, mcpgo.ListResourcesRequest{}); err != nil {
			c.m.log.Warn("mcp: resources/list failed", "server", name, "err", err)
		} else {
			for _, r := range res.Resources {
				rs = append(rs, Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
			}
		}
		if res, err := cl.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{}); err != nil {
			c.m.log.Warn("mcp: resources/templates/list failed", "server", name, "err", err)
		} else {
			for _, t := range res.ResourceTemplates {
				tmpl := ""
				if t.URITemplate != nil && t.URITemplate.Template != nil {
					tmpl = t.URITemplate.Raw()
				}
				ts = append(ts, Resource{Server: name, Template: tmpl, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
			}
		}
		c.ex.mu.Lock()
		c.ex.resources, c.ex.templates = rs, ts
		c.ex.mu.Unlock()
	}
	if prompts {
		var ps []Prompt
		if res, err := cl.ListPrompts(ctx, mcpgo.ListPromptsRequest{}); err != nil {
			c.m.log.Warn("mcp: prompts/list failed", "server", name, "err", err)
		} else {
			for _, p := range res.Prompts {
				pr := Prompt{Server: name, Name: p.Name, Title: p.Title, Description: p.Description}
				for _, a := range p.Arguments {
					pr.Arguments = append(pr.Arguments, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
				}
				ps = append(ps, pr)
			}
		}
		c.ex.mu.Lock()
		c.ex.prompts = ps
		c.ex.mu.Unlock()
	}
}

// refreshExtras re-lists resources or prompts after their list_changed.
// They are not part of the tools array: the change applies at once, and
// read_resource appears or goes at the next turn (Manager.Sync).
func (c *conn) refreshExtras(gen uint64, cl *client.Client, resources, prompts bool) {
	ctx, cancel := context.WithTimeout(c.m.ctx, c.startTimeout())
	defer cancel()
	before := c.offersResources()
	c.fetchExtras(ctx, cl, resources, prompts)
	c.mu.Lock()
	stale := c.gen != gen
	c.mu.Unlock()
	if stale {
		return
	}
	if c.offersResources() != before {
		c.m.toolsChanged(c.cfg.Name)
	}
	c.saveExtras()
	what := "prompts"
	if resources {
		what = "resources"
	}
	c.m.emit(Event{Kind: EventListChanged, Server: c.cfg.Name, Text: fmt.Sprintf("MCP server %s changed its %s", c.cfg.Name, what)})
}

// cachedExtras is what of extras the catalog cache keeps, so a cached
// server's resources and prompts are known (read_resource, @server:uri,
// /SERVER:PROMPT) before it starts, or without starting it.
type cachedExtras struct {
	Resources   []Resource `json:"resources,omitempty"`
	Templates   []Resource `json:"templates,omitempty"`
	Prompts     []Prompt   `json:"prompts,omitempty"`
	Completions bool       `json:"completions,omitempty"`
	TaskTools   bool       `json:"task_tools,omitempty"`
	// Era is the protocol revision the server answered (era.go), so a
	// later start knows whether to probe it.
	Era string `json:"era,omitempty"`
}

// extrasJSON is the connection's resources and prompts as the cache keeps
// them (nil: none).
func (c *conn) extrasJSON() []byte {
	c.ex.mu.Lock()
	x := cachedExtras{Resources: c.ex.resources, Templates: c.ex.templates, Prompts: c.ex.prompts, Completions: c.ex.completions, TaskTools: c.ex.taskTools}
	c.ex.mu.Unlock()
	if c.pinned() == eraUnknown {
		// The era a "protocol" setting chose is not what era.go would
		// have found: kept, it would hold after the setting is removed
		// (a server of both eras set to 2025-11-25 would not be probed
		// again), so "auto" starts from what it finds.
		x.Era = c.getEra().String()
	}
	if len(x.Resources)+len(x.Templates)+len(x.Prompts) == 0 && !x.Completions && !x.TaskTools && x.Era == "" {
		return nil
	}
	b, _ := json.Marshal(x)
	return b
}

// loadExtras installs cached resources and prompts.
func (c *conn) loadExtras(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var x cachedExtras
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	c.ex.mu.Lock()
	c.ex.resources, c.ex.templates, c.ex.prompts, c.ex.completions, c.ex.taskTools = x.Resources, x.Templates, x.Prompts, x.Completions, x.TaskTools
	c.ex.mu.Unlock()
	if c.getEra() == eraUnknown {
		c.setEra(eraOf(x.Era)) // what this run learnt stands
	}
	return nil
}

func (c *conn) offersResources() bool {
	c.ex.mu.Lock()
	defer c.ex.mu.Unlock()
	return len(c.ex.resources)+len(c.ex.templates) > 0
}

// onLog writes a server's notifications/message to the agent's log.
func (c *conn) onLog(n mcpgo.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	level, _ := f["level"].(string)
	logger, _ := f["logger"].(string)
	if !logAbove(level, c.m.opts.LogLevel) {
		return
	}
	c.m.log.Log(context.Background(), slogLevel(level), "mcp server log", "server", c.cfg.Name, "level", level, "logger", logger, "data", f["data"])
}

// mcpLevels are the protocol's log levels (RFC 5424), lowest first.
var mcpLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func logAbove(level, min string) bool {
	if min == "" {
		return true
	}
	return slices.Index(mcpLevels, level) >= slices.Index(mcpLevels, min)
}

func slogLevel(level string) slog.Level {
	switch i := slices.Index(mcpLevels, level); {
	case i <= 0:
		return slog.LevelDebug
	case i <= 2:
		return slog.LevelInfo
	case i == 3:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// Resources lists the resources and resource templates of the running
// servers, in server order.
func (m *Manager) Resources() []Resource {
	var out []Resource
	for _, c := range m.conns {
		c.ex.mu.Lock()
		out = append(append(out, c.ex.resources...), c.ex.templates...)
		c.ex.mu.Unlock()
	}
	return out
}

// Prompts lists the prompts of the running servers, in server order.
func (m *Manager) Prompts() []Prompt {
	var out []Prompt
	for _, c := range m.conns {
		c.ex.mu.Lock()
		out = append(out, c.ex.prompts...)
		c.ex.mu.Unlock()
	}
	return out
}

// ErrNoServer: no running server of that name.
var ErrNoServer = errors.New("no such MCP server")

// client returns the live client of a server by name, (re)connecting it.
func (m *Manager) client(ctx context.Context, server string) (*conn, *client.Client, error) {
	c := m.conn(server)
	if c == nil {
		return nil, nil, fmt.Errorf("%w: %q", ErrNoServer, server)
	}
	cl, err := c.ensure(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, cl, nil
}

// GetPrompt runs prompts/get and returns the prompt's messages.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]PromptMessage, error) {
	c, cl, err := m.client(ctx, server)
	if err != nil {
		return nil, err
	}
	var req mcpgo.GetPromptRequest
	req.Params.Name, req.Params.Arguments = name, args
	var res *mcpgo.GetPromptResult
	err = c.resend(ctx, cl, func(ctx context.Context, cl *client.Client) (err error) {
		res, err = cl.GetPrompt(ctx, req)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("prompt %s of MCP server %s: %w", name, server, err)
	}
	var out []PromptMessage
	for _, msg := range res.Messages {
		pm := PromptMessage{Role: string(msg.Role)}
		switch ct := msg.Content.(type) {
		case mcpgo.TextContent:
			pm.Text = ct.Text
		case *mcpgo.TextContent:
			pm.Text = ct.Text
		default:
			conv := convertResult(&mcpgo.CallToolResult{Content: []mcpgo.Content{msg.Content}}, 0)
			pm.Text, pm.Images = conv.Text, conv.Images
		}
		out = append(out, pm)
	}
	return out, nil
}

// PromptMessage is one message of a prompt's expansion.
type PromptMessage struct {
	Role   string
	Text   string
	Images []tools.Image
}

// Complete asks a server for completions of a prompt's argument
// (completion/complete); nil when the server offers no completions.
func (m *Manager) Complete(ctx context.Context, server, prompt, arg, value string, others map[string]string) ([]string, error) {
	c, cl, err := m.client(ctx, server)
	if err != nil {
		return nil, err
	}
	c.ex.mu.Lock()
	ok := c.ex.completions
	c.ex.mu.Unlock()
	if !ok {
		return nil, nil
	}
	var req mcpgo.CompleteRequest
	req.Params.Ref = mcpgo.PromptReference{Type: "ref/prompt", Name: prompt}
	req.Params.Argument = mcpgo.CompleteArgument{Name: arg, Value: value}
	if len(others) > 0 {
		req.Params.Context = mcpgo.CompleteContext{Arguments: others}
	}
	var res *mcpgo.CompleteResult
	err = c.resend(ctx, cl, func(ctx context.Context, cl *client.Client) (err error) {
		res, err = cl.Complete(ctx, req)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("completion/complete on MCP server %s: %w", server, err)
	}
	return res.Completion.Values, nil
}
