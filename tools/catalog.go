package tools

import (
	"bytes"
	"io"
	"time"
)

// CatalogEntry is one MCP server's last tools/list as the catalog cache
// keeps it between runs: found by the server's name and the hash of its
// config, so a changed config never starts from an old list. Declared here,
// below both, because tools/mcp writes it and the store keeps it.
type CatalogEntry struct {
	Server     string
	ConfigHash string
	// ServerName and ServerVersion are the server's serverInfo.
	ServerName    string
	ServerVersion string
	Instructions  string
	// Description is the one line search shows for the server.
	Description string
	// Tools is tools/mcp's own encoding of the list (with each tool's
	// token count), opaque to the store, which keeps it byte for byte.
	Tools []byte
	// WriteTools, set instead of Tools when saving, writes the same
	// encoding (ToolsSize bytes, the same every call) to w. A first run's
	// lists are hundreds of KB that the store writes to a file: built in
	// memory first, every page of them was freshly faulted in (about 90
	// faults, 3 ms of a cold run's exit path); streamed, they pass through
	// one small reused buffer. A cache that keeps the bytes calls
	// ToolsBytes.
	WriteTools func(w io.Writer) error
	ToolsSize  int
	// ToolsHash is the sha256 (hex) of Tools; the store fills it.
	ToolsHash string
	ListedAt  time.Time
}

// ToolsBytes is the entry's encoded list: Tools, or what WriteTools
// writes (nil when neither is set).
func (e CatalogEntry) ToolsBytes() ([]byte, error) {
	if e.Tools != nil || e.WriteTools == nil {
		return e.Tools, nil
	}
	var b bytes.Buffer
	b.Grow(e.ToolsSize)
	if err := e.WriteTools(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
