package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/tokens"
)

// CatalogEntry is one server's last tools/list as a Cache keeps it. Tools
// is this package's own JSON encoding of the list (with each tool's token
// count), opaque to the cache.
type CatalogEntry struct {
	Server        string
	ConfigHash    string
	ServerName    string
	ServerVersion string
	Instructions  string
	Description   string
	Tools         []byte
	ToolsHash     string
	ListedAt      time.Time
}

// Cache keeps each server's last tool list between runs (the store's
// mcp_catalog table). LoadCatalog reports a missing entry with ok=false.
type Cache interface {
	LoadCatalog(ctx context.Context, server, configHash string) (e CatalogEntry, ok bool, err error)
	SaveCatalog(ctx context.Context, e CatalogEntry) error
}

// cachedTool is one tool in CatalogEntry.Tools.
type cachedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Tokens is the definition's o200k count, so a stable catalog is never
	// counted again (and the tokenizer never loaded for it).
	Tokens int `json:"tokens,omitempty"`
}

// ConfigHash is the sha256 of what decides a server's tools: transport,
// command, arguments, environment, URL, headers and working directory.
// Settings that only shape how the agent uses the tools (defer,
// alwaysLoad, timeouts, description) are left out.
func ConfigHash(cfg config.MCPServer, workdir string) string {
	dir := cfg.Cwd
	if dir == "" && cfg.Type == config.MCPStdio {
		dir = workdir
	}
	b, _ := json.Marshal(struct {
		Type    string            `json:"type"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
		Dir     string            `json:"dir,omitempty"`
	}{cfg.Type, cfg.Command, cfg.Args, cfg.Env, cfg.URL, cfg.Headers, dir})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// loadCached installs the server's cached list, if the cache has one for
// its current config. The connection then starts in the background and
// replaces it.
func (c *conn) loadCached(ctx context.Context) bool {
	cache := c.m.opts.Cache
	if cache == nil {
		return false
	}
	e, ok, err := cache.LoadCatalog(ctx, c.cfg.Name, c.configHash)
	if err != nil {
		c.m.log.Warn("mcp: read the catalog cache", "server", c.cfg.Name, "err", err)
		return false
	}
	if !ok {
		return false
	}
	var cts []cachedTool
	if err := json.Unmarshal(e.Tools, &cts); err != nil {
		c.m.log.Warn("mcp: unreadable catalog cache entry", "server", c.cfg.Name, "err", err)
		return false
	}
	list := make([]rawTool, len(cts))
	names := make(map[string]string, len(cts))
	for i, t := range cts {
		list[i] = rawTool{Name: t.Name, Description: t.Description, Schema: t.InputSchema, Tokens: t.Tokens}
		names[ToolName(c.cfg.Name, t.Name)] = t.Name
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list, c.names = list, names
	c.cached, c.cachedAt, c.cachedHash = true, e.ListedAt, e.ToolsHash
	c.info = e.Description
	if c.cfg.Description != "" {
		c.info = c.cfg.Description
	}
	c.serverInfo = serverInfo{Name: e.ServerName, Version: e.ServerVersion, Instructions: e.Instructions}
	c.cachedList, c.cachedInfo, c.cachedDesc = list, c.serverInfo, e.Description
	return true
}

// saveCached writes the server's listed tools to the cache when they differ
// from what it holds. It counts the tools' tokens first (the only place the
// tokenizer is loaded for MCP tools), which happens once per change of a
// server's list. Manager.Close waits for the writes in flight.
func (c *conn) saveCached(list []rawTool, si serverInfo, info string) {
	cache := c.m.opts.Cache
	if cache == nil {
		return
	}
	c.mu.Lock()
	same := c.cachedList != nil && sameTools(c.cachedList, list) && c.cachedInfo == si && c.cachedDesc == info
	if !same {
		c.cachedList, c.cachedInfo, c.cachedDesc = list, si, info
	}
	c.mu.Unlock()
	if same {
		return
	}
	c.m.saves.Add(1)
	go func() {
		defer c.m.saves.Done()
		cts := make([]cachedTool, len(list))
		for i, t := range list {
			n := t.Tokens
			if n == 0 {
				n = tokens.Tool(ToolName(c.cfg.Name, t.Name), t.Description, t.Schema)
			}
			cts[i] = cachedTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Tokens: n}
		}
		b, err := json.Marshal(cts)
		if err != nil {
			c.m.log.Warn("mcp: encode the catalog cache entry", "server", c.cfg.Name, "err", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = cache.SaveCatalog(ctx, CatalogEntry{Server: c.cfg.Name, ConfigHash: c.configHash,
			ServerName: si.Name, ServerVersion: si.Version, Instructions: si.Instructions, Description: info,
			Tools: b, ListedAt: time.Now()})
		if err != nil {
			c.m.log.Warn("mcp: write the catalog cache", "server", c.cfg.Name, "err", err)
		}
	}()
}

// cachedNote says, in a tool error, where a tool of a server that is not
// up came from.
func (c *conn) cachedNoteLocked() string {
	if !c.cached {
		return ""
	}
	return fmt.Sprintf("; this tool is known from the server's tool list cached %s and cannot run until the server starts",
		c.cachedAt.Format("2006-01-02 15:04"))
}
