package tools

import "time"

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
	// ToolsHash is the sha256 (hex) of Tools; the store fills it.
	ToolsHash string
	ListedAt  time.Time
}
