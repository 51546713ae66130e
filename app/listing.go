package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// The listing commands (agent tools, agent tools search, agent mcp list)
// read the MCP catalog cache as a session does: a server whose catalog is
// cached for its current config (mcp.ConfigHash, the session's freshness
// rule, applied by the manager's Cache lookup) is answered for by that
// catalog and not started; it would only be stopped again once listed,
// and three npm servers took 5–8 s to start. Servers with nothing cached,
// or whose entry changed since, start and are listed as before, their
// catalog then saved as a session saves it. Two kinds start anyway: a
// server configured "start": "eager", which a session starts at launch
// too (a listing has no later moment, so it waits for it), and, with
// --refresh, every server: the user asks for a live listing, a health
// check. agent mcp list also connects a remote server with no sign-in
// kept (MCPList says why).

// stateCached is agent mcp list's status of a server listed from its
// cached catalog without being started: the manager's "idle" means one
// waiting in a session for its first call, which never comes here.
const stateCached = mcptools.State("cached")

// catalogCacheOn says whether the run uses the catalog cache (not with
// --no-cache or "mcp_cache": false).
func (s Settings) catalogCacheOn() bool {
	return !s.NoCache && (s.MCPCache == nil || *s.MCPCache)
}

// openCatalogCache opens the store's catalog cache for a listing command
// that has no App (agent tools search, agent mcp list): nil when the cache
// is off. A store that cannot be opened is an error to show as a warning;
// the servers are then started and listed as without the cache. done
// closes the store, after the manager (whose Close waits for its writes).
func openCatalogCache(ctx context.Context, s Settings) (c mcptools.Cache, done func(), err error) {
	if !s.catalogCacheOn() {
		return nil, func() {}, nil
	}
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return nil, func() {}, fmt.Errorf("MCP catalog cache off: %w", err)
	}
	return storeCatalog{db, &sync.Mutex{}}, func() { closeDB(db) }, nil
}

// listingCache is a catalog cache as the listing commands read it: a
// miss for the servers they start regardless (live; every one with
// refresh), so the manager starts and waits for those as for a server
// with nothing cached, and saves what they list.
type listingCache struct {
	mcptools.Cache
	live    map[string]bool
	refresh bool
}

// forListing is c as a listing command reads it (nil when the cache is
// off), live naming the servers to start all the same.
func forListing(c mcptools.Cache, live map[string]bool, refresh bool) mcptools.Cache {
	if c == nil {
		return nil
	}
	return listingCache{Cache: c, live: live, refresh: refresh}
}

// eagerServers names the servers configured "start": "eager". configured
// holds every server that can say so (a preset cannot).
func eagerServers(configured map[string]config.MCPServer) map[string]bool {
	eager := map[string]bool{}
	for n, srv := range configured {
		if srv.Start == config.StartEager {
			eager[n] = true
		}
	}
	return eager
}

func (l listingCache) LoadCatalog(ctx context.Context, server, hash string) (tools.CatalogEntry, bool, error) {
	if l.refresh || l.live[server] {
		return tools.CatalogEntry{}, false, nil
	}
	return l.Cache.LoadCatalog(ctx, server, hash)
}

// SaveCatalogs keeps the store's one-transaction batch write
// (mcp.BatchCache), which embedding the Cache interface would hide.
func (l listingCache) SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error {
	if b, ok := l.Cache.(mcptools.BatchCache); ok {
		return b.SaveCatalogs(ctx, es)
	}
	for _, e := range es {
		if err := l.Cache.SaveCatalog(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// listedState is a server's status in a listing: one the manager holds
// idle (its catalog cached, never started by this command) is "cached".
func listedState(st mcptools.State) mcptools.State {
	if st == mcptools.StateIdle {
		return stateCached
	}
	return st
}
