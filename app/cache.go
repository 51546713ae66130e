package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// catalogCache is the store's MCP catalog cache for this run, or nil when
// --no-cache or "mcp_cache": false turn it off. A run without a database
// yet (agent tools) opens it; one that cannot works without the cache.
func (a *App) catalogCache(ctx context.Context) mcptools.Cache {
	s := a.settings
	if !s.catalogCacheOn() {
		return nil
	}
	if a.db == nil {
		db, err := openDB(ctx, s.DBPath)
		if err != nil {
			a.warnings = append(a.warnings, fmt.Sprintf("MCP catalog cache off: %v", err))
			return nil
		}
		a.db = db
		a.closers = append(a.closers, func() { closeDB(db) })
	}
	return storeCatalog{a.db, &a.dbWrite}
}

// storeCatalog is the store's mcp_catalog table as an mcp Cache. Its
// writes take write, which Open holds while it creates the session: a
// first run's catalogs are written as the servers list them, one after
// another, and the session's insert would otherwise wait on SQLite's lock
// until all were written (its busy handler sleeps 1, 2, 5, 10 ms...), with
// the first request behind it. So it waits for the one write in flight.
type storeCatalog struct {
	db    *store.DB
	write *sync.Mutex
}

func (s storeCatalog) LoadCatalog(ctx context.Context, server, hash string) (tools.CatalogEntry, bool, error) {
	e, err := s.db.LoadCatalog(ctx, server, hash)
	if errors.Is(err, store.ErrNotFound) {
		return tools.CatalogEntry{}, false, nil
	}
	if err != nil {
		return tools.CatalogEntry{}, false, err
	}
	return e, true, nil
}

func (s storeCatalog) SaveCatalog(ctx context.Context, e tools.CatalogEntry) error {
	s.write.Lock()
	defer s.write.Unlock()
	return s.db.SaveCatalog(ctx, e)
}

func (s storeCatalog) SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error {
	s.write.Lock()
	defer s.write.Unlock()
	return s.db.SaveCatalogs(ctx, es)
}
