package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/agent-dev/agent/tools"
)

// catalogMaxAge drops cached lists of a server's other configs after a
// month without a listing, so old configs do not pile up.
const catalogMaxAge = 30 * 24 * time.Hour

// LoadCatalog returns the cached list of server under configHash, or
// ErrNotFound.
func (d *DB) LoadCatalog(ctx context.Context, server, configHash string) (tools.CatalogEntry, error) {
	e := tools.CatalogEntry{Server: server, ConfigHash: configHash}
	var listed int64
	// On a connection of its own without memory-mapped I/O: a list of
	// thousands of tools is megabytes, and reading it through the map
	// would keep those pages resident next to the copy returned.
	conn, err := d.sql.Conn(ctx)
	if err != nil {
		return tools.CatalogEntry{}, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = "+mmapSize)
		conn.Close()
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		return tools.CatalogEntry{}, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	err = conn.QueryRowContext(ctx, `SELECT server_name, server_version, instructions, description, tools, tools_hash, listed_at
		FROM mcp_catalog WHERE server = ? AND config_hash = ?`, server, configHash).
		Scan(&e.ServerName, &e.ServerVersion, &e.Instructions, &e.Description, (*ownedBlob)(&e.Tools), &e.ToolsHash, &listed)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tools.CatalogEntry{}, fmt.Errorf("MCP catalog of %s: %w", server, ErrNotFound)
		}
		return tools.CatalogEntry{}, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	e.ListedAt = fromMS(listed)
	return e, nil
}

// ownedBlob scans a BLOB column without database/sql's copy of it: a
// cached list of thousands of tools is megabytes, and scanning into a
// []byte would hold the driver's copy and database/sql's at once. The
// driver (modernc.org/sqlite) hands every row a slice it has just
// allocated and copied out of SQLite (conn.columnBlob), which nothing else
// references, so keeping it is safe; TestLoadCatalogKeepsItsBytes checks
// that a loaded entry survives later queries.
type ownedBlob []byte

func (b *ownedBlob) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*b = nil
	case []byte:
		*b = v
	case string:
		*b = []byte(v)
	default:
		return fmt.Errorf("catalog tools: unexpected %T", src)
	}
	return nil
}

// SaveCatalog stores e as the server's list for its config hash, replacing
// the previous one, and drops the server's lists of other configs not seen
// for a month.
func (d *DB) SaveCatalog(ctx context.Context, e tools.CatalogEntry) error {
	if e.Server == "" || e.ConfigHash == "" {
		return errors.New("save MCP catalog: server and config hash are required")
	}
	if e.Tools == nil {
		e.Tools = []byte("[]")
	}
	sum := sha256.Sum256(e.Tools)
	e.ToolsHash = hex.EncodeToString(sum[:])
	if e.ListedAt.IsZero() {
		e.ListedAt = time.Now()
	}
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO mcp_catalog
			(server, config_hash, server_name, server_version, instructions, description, tools, tools_hash, listed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (server, config_hash) DO UPDATE SET server_name = excluded.server_name,
				server_version = excluded.server_version, instructions = excluded.instructions,
				description = excluded.description, tools = excluded.tools, tools_hash = excluded.tools_hash,
				listed_at = excluded.listed_at`,
			e.Server, e.ConfigHash, e.ServerName, e.ServerVersion, e.Instructions, e.Description, e.Tools, e.ToolsHash, ms(e.ListedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM mcp_catalog WHERE server = ? AND config_hash <> ? AND listed_at < ?`,
			e.Server, e.ConfigHash, ms(e.ListedAt.Add(-catalogMaxAge)))
		return err
	})
	if err != nil {
		return fmt.Errorf("save MCP catalog of %s: %w", e.Server, err)
	}
	return nil
}

// ClearCatalog forgets every cached MCP tool list.
func (d *DB) ClearCatalog(ctx context.Context) error {
	if _, err := d.sql.ExecContext(ctx, `DELETE FROM mcp_catalog`); err != nil {
		return fmt.Errorf("clear MCP catalog: %w", mapErr(err))
	}
	return nil
}
