package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"time"
	"unsafe"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/schema"
)

// Cache keeps each server's last tool list between runs (the store's
// mcp_catalog table). LoadCatalog reports a missing entry with ok=false.
type Cache interface {
	LoadCatalog(ctx context.Context, server, configHash string) (e tools.CatalogEntry, ok bool, err error)
	SaveCatalog(ctx context.Context, e tools.CatalogEntry) error
}

// cachedTool is one tool of a cached list (tests and the codec).
type cachedTool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// Tokens is the definition's o200k count, so a stable catalog is never
	// counted again (and the tokenizer never loaded for it).
	Tokens int
	// Checked: the schema passed schema.Check, so a start does not check
	// it again.
	Checked bool
	// Meta is the tool's toolMeta as JSON (empty when none).
	Meta []byte
}

// catalogMagic starts tools.CatalogEntry.Tools: a version of the encoding
// below, and of what the tools' Meta holds (5: appOnly). It changes with
// either: a server whose list is unchanged keeps its cached tools as they
// were parsed.
const catalogMagic = "agent-mcp-catalog-5\n"

// encodeCatalog is encodeCatalogExtras without resources or prompts.
func encodeCatalog(listHash string, ts []cachedTool) []byte {
	return encodeCatalogExtras(listHash, ts, nil)
}

// encodeCatalogExtras writes a list as tools.CatalogEntry.Tools: the magic, the sha256
// (hex) of the raw tools/list pages it came from, then per tool its name,
// description, schema (verbatim), token count, whether its schema passed
// schema.Check and its toolMeta (JSON), each length-prefixed, then the
// server's resources, templates and prompts (cachedExtras as JSON,
// length-prefixed). A binary layout, not JSON: loading it copies no schema
// (they are slices of the one buffer) and validates nothing twice, which
// matters at thousands of tools on every start.
func encodeCatalogExtras(listHash string, ts []cachedTool, extras []byte) []byte {
	b := bytes.NewBuffer(make([]byte, 0, catalogSize(listHash, ts, extras)))
	_ = writeCatalog(b, listHash, ts, extras) // a bytes.Buffer does not fail
	return b.Bytes()
}

// uvarintLen is the length of binary.AppendUvarint's encoding of x.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// catalogSize is the length of encodeCatalogExtras's bytes, without
// encoding them (tools.CatalogEntry.ToolsSize).
func catalogSize(listHash string, ts []cachedTool, extras []byte) int {
	field := func(n int) int { return uvarintLen(uint64(n)) + n }
	n := len(catalogMagic) + field(len(listHash)) + uvarintLen(uint64(len(ts))) + field(len(extras))
	for _, t := range ts {
		n += field(len(t.Name)) + field(len(t.Description)) + field(len(t.InputSchema)) +
			uvarintLen(uint64(t.Tokens)) + 1 + field(len(t.Meta)) // flags: 0 or 1, one byte
	}
	return n
}

// catalogChunk is how much writeCatalog gathers before a Write: the
// length prefixes and short fields of a few tools per call, not a call
// each.
const catalogChunk = 4 << 10

// writeCatalog writes encodeCatalogExtras's bytes to w
// (tools.CatalogEntry.WriteTools), through a buffer of catalogChunk.
func writeCatalog(w io.Writer, listHash string, ts []cachedTool, extras []byte) error {
	e := catalogWriter{w: w, b: make([]byte, 0, catalogChunk)}
	e.bytes([]byte(catalogMagic))
	e.str(listHash)
	e.uvarint(uint64(len(ts)))
	for _, t := range ts {
		e.str(t.Name)
		e.str(t.Description)
		e.field(t.InputSchema)
		e.uvarint(uint64(t.Tokens))
		var flags uint64
		if t.Checked {
			flags |= 1
		}
		e.uvarint(flags)
		e.field(t.Meta)
	}
	e.field(extras)
	e.flush()
	return e.err
}

// catalogWriter gathers writeCatalog's pieces into b; a piece that does
// not fit in it goes to w directly.
type catalogWriter struct {
	w   io.Writer
	b   []byte
	err error
}

func (e *catalogWriter) flush() {
	if len(e.b) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

func (e *catalogWriter) uvarint(x uint64) {
	if cap(e.b)-len(e.b) < binary.MaxVarintLen64 {
		e.flush()
	}
	e.b = binary.AppendUvarint(e.b, x)
}

func (e *catalogWriter) bytes(p []byte) {
	if cap(e.b)-len(e.b) < len(p) {
		e.flush()
		if len(p) > cap(e.b) {
			if e.err == nil {
				_, e.err = e.w.Write(p)
			}
			return
		}
	}
	e.b = append(e.b, p...)
}

func (e *catalogWriter) str(s string) {
	e.uvarint(uint64(len(s)))
	if cap(e.b)-len(e.b) >= len(s) {
		e.b = append(e.b, s...)
		return
	}
	e.bytes(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
}

func (e *catalogWriter) field(p []byte) {
	e.uvarint(uint64(len(p)))
	e.bytes(p)
}

// decodeCatalog is decodeCatalogExtras without the extras.
func decodeCatalog(b []byte) (listHash string, ts []rawTool, err error) {
	listHash, ts, _, err = decodeCatalogExtras(b)
	return listHash, ts, err
}

// decodeCatalogExtras reads encodeCatalogExtras's bytes; the names,
// descriptions and schemas are views of b (no copy: the list is kept for
// the whole run, and b with it), which must not change afterwards.
func decodeCatalogExtras(b []byte) (listHash string, ts []rawTool, extras []byte, err error) {
	if !bytes.HasPrefix(b, []byte(catalogMagic)) {
		return "", nil, nil, errors.New("not a catalog of this agent version")
	}
	b = b[len(catalogMagic):]
	field := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errors.New("truncated catalog")
		}
		f := b[k : k+int(n) : k+int(n)]
		b = b[k+int(n):]
		return f, nil
	}
	num := func() (uint64, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, errors.New("truncated catalog")
		}
		b = b[k:]
		return n, nil
	}
	h, err := field()
	if err != nil {
		return "", nil, nil, err
	}
	count, err := num()
	if err != nil || count > uint64(len(b)) {
		return "", nil, nil, errors.New("truncated catalog")
	}
	ts = make([]rawTool, 0, count)
	// Tools of a server mostly carry the same annotations: each distinct
	// meta is parsed once and shared (nothing writes through it), not
	// parsed again for each of thousands of tools.
	metas := map[string]*toolMeta{}
	for i := uint64(0); i < count; i++ {
		var name, desc, schema []byte
		if name, err = field(); err == nil {
			if desc, err = field(); err == nil {
				schema, err = field()
			}
		}
		if err != nil {
			return "", nil, nil, err
		}
		tokens, err := num()
		if err != nil {
			return "", nil, nil, err
		}
		flags, err := num()
		if err != nil {
			return "", nil, nil, err
		}
		meta, err := field()
		if err != nil {
			return "", nil, nil, err
		}
		m, seen := metas[string(meta)]
		if !seen && len(meta) > 0 {
			m = decodeToolMeta(meta)
			metas[string(meta)] = m
		}
		ts = append(ts, rawTool{Name: aliasString(name), Description: aliasString(desc), Schema: json.RawMessage(schema), Tokens: int(tokens), Checked: flags&1 != 0,
			Meta: m})
	}
	if extras, err = field(); err != nil {
		return "", nil, nil, err
	}
	return string(h), ts, extras, nil
}

// aliasString is b as a string without a copy; b must never change.
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
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
	listHash, list, extras, err := decodeCatalogExtras(e.Tools)
	if err == nil {
		err = c.loadExtras(extras)
	}
	if err != nil {
		c.m.log.Warn("mcp: unreadable catalog cache entry", "server", c.cfg.Name, "err", err)
		return false
	}
	names := make(map[string]string, len(list))
	for _, t := range list {
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
	c.cachedList, c.cachedListHash, c.cachedInfo, c.cachedDesc = list, listHash, c.serverInfo, e.Description
	c.cachedExtras = extras
	return true
}

// saveCached writes the server's listed tools, with its resources and
// prompts, to the cache when they differ from what it holds. Token counts it does not know stay unknown (0): they
// are counted when something asks (agent tools, the status bar) and written
// back by SaveTokens, so neither a first run nor a changed server loads the
// tokenizer before its first request or waits for it before exiting.
// Manager.Close waits for the writes in flight.
func (c *conn) saveCached(list []rawTool, listHash string, si serverInfo, info string) {
	cache := c.m.opts.Cache
	if cache == nil {
		return
	}
	extras := c.extrasJSON()
	c.mu.Lock()
	same := c.cachedList != nil && c.cachedListHash == listHash && sameTools(c.cachedList, list) && c.cachedInfo == si && c.cachedDesc == info &&
		bytes.Equal(c.cachedExtras, extras)
	if !same {
		c.cachedList, c.cachedListHash, c.cachedInfo, c.cachedDesc, c.cachedExtras = list, listHash, si, info, extras
	}
	c.mu.Unlock()
	if same {
		return
	}
	c.writeCatalog(list, listHash, si, info, extras)
}

// saveExtras writes changed resources or prompts (their list_changed) to
// the cache, beside the tools it holds; nothing before the tools were
// listed in this run.
func (c *conn) saveExtras() {
	c.mu.Lock()
	list, hash, si, info, listed := c.cachedList, c.cachedListHash, c.cachedInfo, c.cachedDesc, !c.cached && c.everUp
	c.mu.Unlock()
	if listed && list != nil {
		c.saveCached(list, hash, si, info)
	}
}

// catalogEntry is list as the server's cached catalog entry. A schema's
// check is the one tools.Set made when it registered the tool
// (schema.Check remembers its answers), not a second pass.
func (c *conn) catalogEntry(list []rawTool, listHash string, si serverInfo, info string, extras []byte) tools.CatalogEntry {
	cts := make([]cachedTool, len(list))
	for i, t := range list {
		checked := t.Checked || schema.Check(t.Schema) == nil
		cts[i] = cachedTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Tokens: t.Tokens, Checked: checked, Meta: t.Meta.encode()}
	}
	// Streamed, not built (tools.CatalogEntry.WriteTools): cts and extras
	// are not changed afterwards, so every call writes the same bytes.
	return tools.CatalogEntry{Server: c.cfg.Name, ConfigHash: c.configHash,
		ServerName: si.Name, ServerVersion: si.Version, Instructions: si.Instructions, Description: info,
		WriteTools: func(w io.Writer) error { return writeCatalog(w, listHash, cts, extras) },
		ToolsSize:  catalogSize(listHash, cts, extras), ListedAt: time.Now()}
}

// writeCatalog queues list's write as the server's cached catalog.
func (c *conn) writeCatalog(list []rawTool, listHash string, si serverInfo, info string, extras []byte) {
	c.m.queueSave(c.cfg.Name, func() tools.CatalogEntry { return c.catalogEntry(list, listHash, si, info, extras) })
}

// SaveTokens writes token counts the application made (by agent tool
// name) into the cached catalogs that lack them, so a later start reads
// them instead of counting. Close waits for the writes.
func (m *Manager) SaveTokens(counts map[string]int) {
	if m.opts.Cache == nil || len(counts) == 0 {
		return
	}
	for _, c := range m.conns {
		c.mu.Lock()
		list, hash, si, info, extras := c.cachedList, c.cachedListHash, c.cachedInfo, c.cachedDesc, c.cachedExtras
		var upd []rawTool
		for i, t := range list {
			n := counts[ToolName(c.cfg.Name, t.Name)]
			if t.Tokens != 0 || n <= 0 {
				continue
			}
			if upd == nil {
				upd = slices.Clone(list)
			}
			upd[i].Tokens = n
		}
		if upd != nil {
			c.cachedList = upd
		}
		c.mu.Unlock()
		if upd == nil {
			continue
		}
		c.writeCatalog(upd, hash, si, info, extras)
	}
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
