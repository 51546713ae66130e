package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// ReadResourceTool is the name of the active tool that reads MCP resources.
// It is registered while any server offers resources (or has returned a
// resource link), and changes only at a turn boundary (Sync), like tools.
const ReadResourceTool = "read_resource"

// linkOrigins remembers which server returned each resource link, so a
// read of that URI goes to it.
type linkOrigins struct {
	mu sync.Mutex
	m  map[string]string // uri -> server
}

func (l *linkOrigins) note(uri, server string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]string{}
	}
	l.m[uri] = server
}

func (l *linkOrigins) get(uri string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.m[uri]
	return s, ok
}

// noteLinks records the resource links of a tools/call result; a server
// that returns one without listing resources makes read_resource appear
// from the next turn.
func (c *conn) noteLinks(res *mcpgo.CallToolResult) {
	found := false
	for _, ct := range res.Content {
		var uri string
		switch l := ct.(type) {
		case mcpgo.ResourceLink:
			uri = l.URI
		case *mcpgo.ResourceLink:
			uri = l.URI
		}
		if uri != "" {
			c.m.links.note(uri, c.cfg.Name)
			found = true
		}
	}
	if found && !c.m.wantsReadResource() {
		c.m.mu.Lock()
		c.m.linked = true
		c.m.mu.Unlock()
		c.m.toolsChanged(c.cfg.Name)
	}
}

// wantsReadResource: some server offers resources, or returned a link.
func (m *Manager) wantsReadResource() bool {
	m.mu.Lock()
	linked := m.linked
	m.mu.Unlock()
	if linked {
		return true
	}
	for _, c := range m.conns {
		if c.offersResources() {
			return true
		}
	}
	return false
}

// syncReadResource registers read_resource in set when a server offers
// resources and removes it when none does. Called from Register and Sync
// only: the tools array changes at turn boundaries.
func (m *Manager) syncReadResource(set *tools.Set) error {
	want := m.wantsReadResource()
	_, have := set.Lookup(ReadResourceTool)
	switch {
	case want && !have:
		return set.Add([]tools.Option{tools.Defer(false)}, m.readResourceTool())
	case !want && have:
		set.Remove(ReadResourceTool)
	}
	return nil
}

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"The resource's URI, as listed, as a resource link gave it, or filled in from a URI template."},"server":{"type":"string","description":"The MCP server to read it from; leave it out to use the server that listed the URI or returned its link."}},"required":["uri"],"additionalProperties":false}`)

func (m *Manager) readResourceTool() tools.Tool {
	ro := true
	return tools.Tool{
		Name: ReadResourceTool,
		Description: "Read a resource of a connected MCP server by its URI: a resource the servers list, " +
			"one made from a resource template, or a resource link a tool returned. Returns its text " +
			"(text and JSON contents decoded) and attaches images.",
		Schema:      readResourceSchema,
		Annotations: &tools.Annotations{ReadOnly: &ro},
		Exec: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			var a struct {
				URI    string `json:"uri"`
				Server string `json:"server"`
			}
			if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.URI) == "" {
				return errResult(`read_resource needs "uri": the resource's URI`), nil
			}
			res, err := m.ReadResource(ctx, a.Server, a.URI)
			if err != nil {
				if ctx.Err() != nil {
					return tools.Result{}, ctx.Err()
				}
				return errResult(err.Error()), nil
			}
			return res, nil
		},
	}
}

// ReadResource reads uri (resources/read) from server, or when server is
// empty from the server that listed it, returned its link, or whose
// template it fits.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (tools.Result, error) {
	if server == "" {
		var err error
		if server, err = m.resourceServer(uri); err != nil {
			return tools.Result{}, err
		}
	}
	c, cl, err := m.client(ctx, server)
	if err != nil {
		return tools.Result{}, err
	}
	var req mcpgo.ReadResourceRequest
	req.Params.URI = uri
	var res *mcpgo.ReadResourceResult
	err = c.resend(ctx, cl, func(ctx context.Context, cl *client.Client) (err error) {
		res, err = cl.ReadResource(ctx, req)
		return err
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("read %s from MCP server %s: %w", uri, server, err)
	}
	var texts []string
	var out tools.Result
	imageBytes := 0
	add := func(mime, data, what string) {
		if imageBytes+len(data) > maxImageBytes {
			texts = append(texts, fmt.Sprintf("[%s omitted: over the image budget]", what))
			return
		}
		imageBytes += len(data)
		out.Images = append(out.Images, tools.Image{MediaType: mime, Data: data})
	}
	for _, rc := range res.Contents {
		texts = appendResource(texts, rc, add)
	}
	if len(texts) == 0 {
		texts = append(texts, fmt.Sprintf("[resource %s is empty]", uri))
	}
	limit := c.cfg.MaxResultBytes
	if limit <= 0 {
		limit = m.opts.MaxResultBytes
	}
	out.Text = truncate(strings.Join(texts, "\n"), limit, 0)
	return out, nil
}

// resourceServer finds the server to read uri from.
func (m *Manager) resourceServer(uri string) (string, error) {
	if s, ok := m.links.get(uri); ok {
		return s, nil
	}
	var offering []string
	for _, c := range m.conns {
		c.ex.mu.Lock()
		listed := slices.ContainsFunc(c.ex.resources, func(r Resource) bool { return r.URI == uri })
		fits := slices.ContainsFunc(c.ex.templates, func(r Resource) bool { return templateFits(r.Template, uri) })
		offers := len(c.ex.resources)+len(c.ex.templates) > 0
		c.ex.mu.Unlock()
		if listed {
			return c.cfg.Name, nil
		}
		if fits || offers {
			offering = append(offering, c.cfg.Name)
		}
	}
	if len(offering) == 1 {
		return offering[0], nil
	}
	if len(offering) == 0 {
		return "", fmt.Errorf("no connected MCP server offers resources, so %s cannot be read", uri)
	}
	return "", fmt.Errorf("which server holds %s is not known: give \"server\", one of %s", uri, strings.Join(offering, ", "))
}

// templateFits reports whether uri starts with the template's literal
// prefix (the part before its first variable).
func templateFits(tmpl, uri string) bool {
	prefix, _, _ := strings.Cut(tmpl, "{")
	return prefix != "" && strings.HasPrefix(uri, prefix)
}
