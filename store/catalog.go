package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/agent-dev/agent/tools"
)

// catalogMaxAge drops cached lists of a server's other configs after a
// month without a listing, so old configs do not pile up.
const catalogMaxAge = 30 * 24 * time.Hour

// LoadCatalog returns the cached list of server under configHash, or
// ErrNotFound. A list kept in a file (catalogfile.go) whose file is gone
// or damaged reads as ErrNotFound too: the caller lists the server again.
func (d *DB) LoadCatalog(ctx context.Context, server, configHash string) (tools.CatalogEntry, error) {
	e := tools.CatalogEntry{Server: server, ConfigHash: configHash}
	var listed, size int64
	var small []byte
	// The tools column only when it is short (a file's reference, or a
	// small list): a long one is read below, away from the memory map.
	err := d.sql.QueryRowContext(ctx, `SELECT server_name, server_version, instructions, description,
		CASE WHEN length(tools) <= `+strconv.Itoa(catalogRefMax)+` THEN tools END, length(tools), tools_hash, listed_at
		FROM mcp_catalog WHERE server = ? AND config_hash = ?`, server, configHash).
		Scan(&e.ServerName, &e.ServerVersion, &e.Instructions, &e.Description, &small, &size, &e.ToolsHash, &listed)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tools.CatalogEntry{}, fmt.Errorf("MCP catalog of %s: %w", server, ErrNotFound)
		}
		return tools.CatalogEntry{}, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	e.ListedAt = fromMS(listed)
	if size > catalogRefMax {
		if testHookCatalogSized != nil {
			testHookCatalogSized()
		}
		if e, err = d.loadInlineRow(ctx, server, configHash); err != nil {
			return tools.CatalogEntry{}, err
		}
		if len(e.Tools) > catalogRefMax {
			return e, nil
		}
		// The row was replaced between the two reads (another agent's
		// save): what it holds now is short, a small list or a
		// reference, read as such.
		small = e.Tools
	}
	loc, ok := parseCatalogRef(small)
	if !ok {
		e.Tools = small
		return e, nil
	}
	if !loc.pack && loc.name != e.ToolsHash {
		return tools.CatalogEntry{}, fmt.Errorf("MCP catalog of %s: the file named is not the list's: %w", server, ErrNotFound)
	}
	if e.Tools, err = d.readCatalogFile(loc); err != nil {
		return tools.CatalogEntry{}, fmt.Errorf("MCP catalog of %s: %v: %w", server, err, ErrNotFound)
	}
	return e, nil
}

// testHookCatalogSized, when set (tests), runs between LoadCatalog's read
// of a row's size and loadInlineRow's read of it.
var testHookCatalogSized func()

// loadInlineRow reads the row of a list kept in the row itself (written
// before the files, or when the file could not be written), whole: the
// row the size was read from may have been replaced since, by another
// agent's save of a list kept in a file, and the entry returned is one
// row's, its tools and its hash together.
func (d *DB) loadInlineRow(ctx context.Context, server, configHash string) (e tools.CatalogEntry, err error) {
	e = tools.CatalogEntry{Server: server, ConfigHash: configHash}
	// On a connection of its own without memory-mapped I/O: a list of
	// thousands of tools is megabytes, and reading it through the map
	// would keep those pages resident next to the copy returned.
	conn, err := d.sql.Conn(ctx)
	if err != nil {
		return e, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = "+mmapSize)
		conn.Close()
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		return e, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
	}
	var listed int64
	err = conn.QueryRowContext(ctx, `SELECT server_name, server_version, instructions, description, tools, tools_hash, listed_at
		FROM mcp_catalog WHERE server = ? AND config_hash = ?`, server, configHash).
		Scan(&e.ServerName, &e.ServerVersion, &e.Instructions, &e.Description, (*ownedBlob)(&e.Tools), &e.ToolsHash, &listed)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return e, fmt.Errorf("MCP catalog of %s: %w", server, ErrNotFound)
		}
		return e, fmt.Errorf("read MCP catalog of %s: %w", server, mapErr(err))
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
	return d.SaveCatalogs(ctx, []tools.CatalogEntry{e})
}

// SaveCatalogs is SaveCatalog of each entry, in one transaction: a first
// run lists all its servers at once, and a transaction each began, prepared
// both statements and committed (rewriting the table's pages into the WAL)
// eleven times over. Lists that add up to a large one go to one pack file
// (catalogfile.go).
func (d *DB) SaveCatalogs(ctx context.Context, es []tools.CatalogEntry) error {
	type row struct {
		e      tools.CatalogEntry
		part   catalogPart // the list, in memory or streamed
		stored []byte      // the tools column: the list, or a file's reference
	}
	for _, e := range es {
		if e.Server == "" || e.ConfigHash == "" {
			return errors.New("save MCP catalog: server and config hash are required")
		}
	}
	rows := make([]row, 0, len(es))
	var packed []int // rows whose lists go in the batch's pack
	total := 0
	for _, e := range es {
		p := catalogPart{b: e.Tools, write: e.WriteTools, size: e.ToolsSize}
		if e.Tools != nil || e.WriteTools == nil {
			if e.Tools == nil {
				e.Tools = []byte("[]")
			}
			p = catalogPart{b: e.Tools, size: len(e.Tools)}
		}
		var err error
		if e.ToolsHash, err = p.hash(); err != nil {
			return fmt.Errorf("save MCP catalog of %s: %w", e.Server, err)
		}
		if e.ListedAt.IsZero() {
			e.ListedAt = time.Now()
		}
		if p.size > catalogRefMax {
			packed = append(packed, len(rows))
			total += p.size
		}
		rows = append(rows, row{e: e, part: p})
	}
	filed := false
	switch {
	case len(packed) > 1 && total >= catalogFileMin:
		// A batch of lists as large as a large list (a first run's
		// eleven, about 480 KB at 282 tools): one file, one sync, and
		// the rows name their slices of it. Through SQLite each list
		// was copied into the statement, into its overflow pages and
		// into the WAL, a write call per page and per frame header,
		// most of the transaction's CPU (go test ./store -bench
		// SaveCatalogsFirstRun).
		hashes, sizes, parts := make([]string, len(packed)), make([]int, len(packed)), make([]catalogPart, len(packed))
		for i, r := range packed {
			hashes[i], sizes[i], parts[i] = rows[r].e.ToolsHash, rows[r].part.size, rows[r].part
		}
		name := packName(hashes, sizes)
		// A pack that cannot be written leaves the lists in the rows.
		if err := d.writeCatalogFile(name, parts...); err == nil {
			off := 0
			for _, r := range packed {
				rows[r].stored = catalogPackRef(name, total, off, rows[r].part.size)
				off += rows[r].part.size
			}
			filed = true
		}
	default:
		for _, r := range packed {
			e, p := rows[r].e, rows[r].part
			if p.size < catalogFileMin {
				continue
			}
			// A file that cannot be written leaves the list in the row.
			if err := d.writeCatalogFile(e.ToolsHash, p); err == nil {
				rows[r].stored = catalogRef(e.ToolsHash, p.size)
				filed = true
			}
		}
	}
	for i := range rows {
		if rows[i].stored != nil {
			continue
		}
		// Kept in the row: a short list, or one whose file could not
		// be written.
		b, err := rows[i].part.bytes()
		if err != nil {
			return fmt.Errorf("save MCP catalog of %s: %w", rows[i].e.Server, err)
		}
		rows[i].stored = b
	}
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO mcp_catalog
			(server, config_hash, server_name, server_version, instructions, description, tools, tools_hash, listed_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (server, config_hash) DO UPDATE SET server_name = excluded.server_name,
				server_version = excluded.server_version, instructions = excluded.instructions,
				description = excluded.description, tools = excluded.tools, tools_hash = excluded.tools_hash,
				listed_at = excluded.listed_at`)
		if err != nil {
			return err
		}
		defer ins.Close()
		del, err := tx.PrepareContext(ctx, `DELETE FROM mcp_catalog WHERE server = ? AND config_hash <> ? AND listed_at < ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		for _, r := range rows {
			e := r.e
			if _, err := ins.ExecContext(ctx, e.Server, e.ConfigHash, e.ServerName, e.ServerVersion, e.Instructions, e.Description, r.stored, e.ToolsHash, ms(e.ListedAt)); err != nil {
				return fmt.Errorf("%s: %w", e.Server, err)
			}
			if _, err := del.ExecContext(ctx, e.Server, e.ConfigHash, ms(e.ListedAt.Add(-catalogMaxAge))); err != nil {
				return fmt.Errorf("%s: %w", e.Server, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save MCP catalogs: %w", err)
	}
	if filed {
		// Files of replaced lists; failing to remove one costs disk only.
		_ = d.pruneCatalogFiles(ctx)
	}
	return nil
}

// ClearCatalog forgets every cached MCP tool list.
func (d *DB) ClearCatalog(ctx context.Context) error {
	if _, err := d.sql.ExecContext(ctx, `DELETE FROM mcp_catalog`); err != nil {
		return fmt.Errorf("clear MCP catalog: %w", mapErr(err))
	}
	if err := os.RemoveAll(d.catalogDir()); err != nil {
		return fmt.Errorf("clear MCP catalog files: %w", err)
	}
	return nil
}
