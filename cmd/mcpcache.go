package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-dev/agent/store"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// mcpStart is how a run starts its MCP servers.
type mcpStart struct {
	cache      mcptools.Cache
	background bool // wait for no server (the TUI)
}

// catalogCache is the store's MCP catalog cache for this run, or nil when
// --no-cache or "mcp_cache": false turn it off. A run without a database
// yet (agent tools) opens it; one that cannot works without the cache.
func (rt *runtime) catalogCache(ctx context.Context, g *Globals) mcptools.Cache {
	if g.NoCache || (g.Config.MCPCache != nil && !*g.Config.MCPCache) {
		return nil
	}
	if rt.DB == nil {
		db, err := openDB(ctx, g)
		if err != nil {
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("MCP catalog cache off: %v", err))
			return nil
		}
		rt.DB = db
		rt.closers = append(rt.closers, func() { _ = db.Close() })
	}
	return storeCatalog{rt.DB}
}

// storeCatalog is the store's mcp_catalog table as an mcp Cache.
type storeCatalog struct{ db *store.DB }

func (s storeCatalog) LoadCatalog(ctx context.Context, server, hash string) (mcptools.CatalogEntry, bool, error) {
	e, err := s.db.LoadCatalog(ctx, server, hash)
	if errors.Is(err, store.ErrNotFound) {
		return mcptools.CatalogEntry{}, false, nil
	}
	if err != nil {
		return mcptools.CatalogEntry{}, false, err
	}
	return mcptools.CatalogEntry(e), true, nil
}

func (s storeCatalog) SaveCatalog(ctx context.Context, e mcptools.CatalogEntry) error {
	return s.db.SaveCatalog(ctx, store.CatalogEntry(e))
}
