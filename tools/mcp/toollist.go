package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/schema"
)

// A server's tool list: listing it page by page, parsing each tool,
// refreshing it when the server says it changed, and installing it as the
// agent's tools.

// listTools reads tools/list as raw JSON, following nextCursor, so that
// schemas reach the model exactly as the server wrote them (mcp-go's typed
// schema drops $schema, anyOf, $defs references...). It also returns the
// sha256 of the raw pages: when they are the ones the catalog cache was
// made from, the cached list is returned without parsing a tool.
func (c *conn) listTools(ctx context.Context, cl *client.Client) ([]rawTool, uint64, string, error) {
	c.listMu.Lock()
	defer c.listMu.Unlock()
	c.listNext++
	seq := c.listNext
	// The transport's reader takes each page's tools array out of the
	// stream for us (listpages.go).
	c.pages.expect(true)
	defer c.pages.expect(false)
	type listed struct {
		result json.RawMessage // the page's result, its tools array taken out when tools is set
		tools  *listPage
	}
	var pages []listed
	h := sha256.New()
	seenCursor := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		params := struct {
			Cursor string `json:"cursor,omitempty"`
		}{cursor}
		req := transport.JSONRPCRequest{
			JSONRPC: mcpgo.JSONRPC_VERSION,
			// String ids never meet the client's own integer ids.
			ID:     mcpgo.NewRequestId(fmt.Sprintf("agent-tools-list-%d", rpcSeq.Add(1))),
			Method: string(mcpgo.MethodToolsList),
			Params: params,
		}
		if err := c.stampModern(cl, &req); err != nil {
			return nil, 0, "", err
		}
		resp, err := cl.GetTransport().SendRequest(ctx, req)
		if err != nil {
			return nil, 0, "", fmt.Errorf("tools/list: %w", transport.NewError(err))
		}
		if resp.Error != nil {
			if page == 1 && c.noTools.Load() {
				break // it said it has no tools (some servers list them all the same: asked anyway)
			}
			return nil, 0, "", fmt.Errorf("tools/list: %w", resp.Error.AsError())
		}
		result, at, tools, err := c.claimPage(resp.Result)
		if err != nil {
			return nil, 0, "", err
		}
		var res struct {
			NextCursor string `json:"nextCursor"`
		}
		// A page without the key has no cursor (inside a string the key's
		// quotes would be escaped): a page whose tools array stayed in the
		// stream is not decoded just to find that out.
		if bytes.Contains(result, []byte(`"nextCursor"`)) {
			if err := json.Unmarshal(result, &res); err != nil {
				return nil, 0, "", fmt.Errorf("tools/list page %d: %w", page, err)
			}
		}
		// The hash is of the page as the server sent it.
		if tools != nil {
			h.Write(result[:at])
			for _, ch := range tools.chunks {
				h.Write(ch)
			}
			h.Write(result[at+2:])
		} else {
			h.Write(result)
		}
		h.Write([]byte{0})
		pages = append(pages, listed{result, tools})
		if res.NextCursor == "" {
			break
		}
		if seenCursor[res.NextCursor] {
			return nil, 0, "", fmt.Errorf("tools/list: cursor %q repeated: the server's pagination loops", res.NextCursor)
		}
		seenCursor[res.NextCursor] = true
		cursor = res.NextCursor
	}
	listHash := hex.EncodeToString(h.Sum(nil))
	c.mu.Lock()
	cached, cachedHash := c.cachedList, c.cachedListHash
	c.mu.Unlock()
	if cached != nil && cachedHash == listHash {
		return cached, seq, listHash, nil
	}
	n := 0
	for _, p := range pages {
		if p.tools != nil {
			n += len(p.tools.elems)
		}
	}
	out := make([]rawTool, 0, n)
	seenTool := make(map[string]bool, n)
	add := func(t rawTool, err error) {
		if err != nil {
			c.m.log.Warn("mcp: skipping a tool", "server", c.cfg.Name, "err", err)
			return
		}
		if seenTool[t.Name] {
			return
		}
		seenTool[t.Name] = true
		out = append(out, t)
	}
	for page, p := range pages {
		if p.tools != nil {
			if p.tools.other > 0 {
				c.m.log.Warn("mcp: skipping tools that are not objects", "server", c.cfg.Name, "count", p.tools.other)
			}
			start := len(out)
			for i, raw := range p.tools.elems {
				add(parseToolView(raw, p.tools.tight[i]))
			}
			repackSparse(out[start:], p.tools.size)
			continue
		}
		var res struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(p.result, &res); err != nil {
			return nil, 0, "", fmt.Errorf("tools/list page %d: %w", page+1, err)
		}
		for _, raw := range res.Tools {
			add(parseTool(raw))
		}
	}
	// Checked here, as each server's list arrives, while the others are
	// still listing: registration (tools.Set) and the cache's save then
	// find the answer (schema.Check remembers it) instead of checking
	// every server's tools one after the other before the first request.
	for i := range out {
		out[i].Checked = schema.Check(out[i].Schema) == nil
	}
	return out, seq, listHash, nil
}

// parseTool keeps name, description and inputSchema for the model, and
// annotations, outputSchema and execution.taskSupport for the agent
// (toolmeta.go); everything else (icons with base64 images, _meta, title)
// is dropped here.
func parseTool(raw json.RawMessage) (rawTool, error) {
	var t struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		toolMetaWire
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return rawTool{}, fmt.Errorf("decode tool: %w", err)
	}
	if t.Name == "" {
		return rawTool{}, errors.New("tool without a name")
	}
	schema := json.RawMessage(`{"type":"object","properties":{}}`)
	if s := bytes.TrimSpace(t.InputSchema); len(s) > 0 && s[0] == '{' {
		var buf bytes.Buffer
		if err := json.Compact(&buf, s); err == nil {
			schema = buf.Bytes()
		}
	}
	return rawTool{Name: t.Name, Description: t.Description, Schema: schema, Meta: t.toolMetaWire.meta()}, nil
}

// queueRefresh re-lists a server's tools after tools/list_changed, in a
// goroutine: the handler runs on the transport's reader, and listing from
// there would wait for a response that reader must deliver. Notifications
// that come while a listing runs are one listing more after it, not one
// each: server-everything sends seven as it registers the tools of the
// client's capabilities after initialize, which cost seven tools/list
// round trips, parses and cache writes, each the same list.
func (c *conn) queueRefresh(gen uint64, cl *client.Client) {
	c.mu.Lock()
	if c.gen == gen && c.cl != cl {
		// The connection is not up yet (server-everything over SSE says
		// its list changed as it starts): a list installed now took the
		// place of the start's own, which then found nothing new and
		// never said the server was up. The start lists anyway, and
		// refreshes once after (connectOnce).
		c.changedStarting = true
		c.mu.Unlock()
		return
	}
	if c.refreshing && c.refreshGen == gen {
		c.refreshAgain = true
		c.mu.Unlock()
		return
	}
	// A new connection's refresh starts at once; the old one's ends at
	// its listing, which refresh finds stale.
	c.refreshGen, c.refreshing, c.refreshAgain = gen, true, false
	c.mu.Unlock()
	go func() {
		for {
			c.refresh(gen, cl)
			c.mu.Lock()
			if c.refreshGen != gen {
				c.mu.Unlock()
				return
			}
			if !c.refreshAgain {
				c.refreshing = false
				c.mu.Unlock()
				return
			}
			c.refreshAgain = false
			c.mu.Unlock()
		}
	}()
}

// refresh re-lists a server's tools after tools/list_changed.
func (c *conn) refresh(gen uint64, cl *client.Client) {
	ctx, cancel := context.WithTimeout(c.m.ctx, c.startTimeout())
	defer cancel()
	list, seq, listHash, err := c.listTools(ctx, cl)
	if err != nil {
		c.m.log.Warn("mcp: refresh after tools/list_changed failed", "server", c.cfg.Name, "err", err)
		return
	}
	c.mu.Lock()
	stale := c.gen != gen
	c.mu.Unlock()
	if !stale {
		c.install(list, seq, true)
		c.mu.Lock()
		si, info := c.serverInfo, c.info
		if c.cfg.Description != "" {
			info = c.cachedDesc
		}
		c.mu.Unlock()
		c.saveCached(list, listHash, si, info)
	}
}

// install makes list the server's tools unless a newer listing is already
// installed, and reports the change when announce is set. It returns
// whether it reported one.
func (c *conn) install(list []rawTool, seq uint64, announce bool) bool {
	// The x-mcp-header verdicts, which registration and status read: on a
	// first run, while the other servers are still listing.
	for _, t := range list {
		c.headerProblem(t)
	}
	c.mu.Lock()
	if seq <= c.listSeq {
		c.mu.Unlock()
		return false
	}
	c.listSeq = seq
	fromCache := c.cached
	c.cached = false
	old := c.list
	keepCounts(old, list)
	oldNames := c.names
	c.list = list
	c.names = make(map[string]string, len(list))
	for _, t := range list {
		c.names[ToolName(c.cfg.Name, t.Name)] = t.Name
	}
	running := c.state == StateRunning
	c.mu.Unlock()
	if !announce && running && len(old) == 0 && !fromCache && c.m.opts.Background && !c.m.upUnsaid(c) {
		// Registered while this list was being installed: the server
		// came up after all, unwaited for.
		announce = true
	}
	if !announce || !running || sameTools(old, list) {
		return false
	}
	var added, removed []string
	for n := range c.names {
		if _, ok := oldNames[n]; !ok {
			added = append(added, n)
		}
	}
	for n := range oldNames {
		if _, ok := c.names[n]; !ok {
			removed = append(removed, n)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	c.m.toolsChanged(c.cfg.Name)
	var text string
	switch {
	case fromCache:
		text = fmt.Sprintf("MCP server %s now lists other tools than its cached list (%d now", c.cfg.Name, len(list))
	case len(old) == 0:
		text = fmt.Sprintf("MCP server %s is up (%s", c.cfg.Name, toolCount(len(list)))
	default:
		text = fmt.Sprintf("MCP server %s changed its tools (%d now", c.cfg.Name, len(list))
	}
	if len(added) > 0 && len(old) > 0 {
		text += fmt.Sprintf(", %d added", len(added))
	}
	if len(removed) > 0 {
		text += fmt.Sprintf(", %d removed", len(removed))
	}
	c.m.emit(Event{Kind: EventToolsChanged, Server: c.cfg.Name, Text: text + ")",
		Added: added, Removed: removed, Tools: len(list), CacheMiss: c.m.registered()})
	return true
}

// keepCounts copies the known token counts of old's tools to the same
// tools of list, so a listing that matches the cached one is never counted.
func keepCounts(old, list []rawTool) {
	if len(old) == 0 {
		return
	}
	known := make(map[string]rawTool, len(old))
	for _, t := range old {
		if t.Tokens > 0 {
			known[t.Name] = t
		}
	}
	for i, t := range list {
		if k, ok := known[t.Name]; ok && t.Tokens == 0 && k.Description == t.Description && bytes.Equal(k.Schema, t.Schema) {
			list[i].Tokens, list[i].Checked = k.Tokens, k.Checked
		}
	}
}

func sameTools(a, b []rawTool) bool {
	return slices.EqualFunc(a, b, func(x, y rawTool) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Schema, y.Schema) && x.Meta.equal(y.Meta)
	})
}

// agentTools are the server's tools as the agent registers them.
func (c *conn) agentTools(deferAll bool) []tools.Tool {
	c.mu.Lock()
	list, info := c.list, c.info
	if c.state == StateDisabled {
		list = nil // /mcp disable: its tools go at the next turn
	}
	c.mu.Unlock()
	out := make([]tools.Tool, 0, len(list))
	for _, t := range list {
		if c.hiddenReason(t) != "" {
			continue // listed with its reason in Status, never offered
		}
		out = append(out, tools.Tool{
			Name:              ToolName(c.cfg.Name, t.Name),
			Orig:              t.Name,
			Description:       t.Description,
			Schema:            t.Schema,
			Server:            c.cfg.Name,
			ServerDescription: info,
			Deferred:          deferred(c.cfg, t.Name, deferAll),
			AlwaysLoad:        slices.Contains(c.cfg.AlwaysLoad, t.Name),
			Tokens:            t.Tokens,
			SchemaChecked:     t.Checked,
			Annotations:       t.Meta.annotations(),
			Exec:              c.executor(t.Name),
		})
	}
	return out
}

func (c *conn) lookup(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	orig, ok := c.names[name]
	return orig, ok
}

// upText says a server came up with n tools.
func upText(server string, n int) string {
	return fmt.Sprintf("MCP server %s is up (%s)", server, toolCount(n))
}
