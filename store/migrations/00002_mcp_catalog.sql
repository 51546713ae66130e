-- Schema version 2: the MCP catalog cache. Each MCP server's last
-- tools/list, so a start can build the tools array at once and connect the
-- servers in the background.

-- +goose Up
CREATE TABLE mcp_catalog (
    server         TEXT    NOT NULL,
    -- sha256 of what decides the server's tools (transport, command, args,
    -- environment, URL, headers, directory): a changed config never reuses
    -- an old list. Only the hash is kept, never the values.
    config_hash    TEXT    NOT NULL,
    server_name    TEXT    NOT NULL DEFAULT '',
    server_version TEXT    NOT NULL DEFAULT '',
    instructions   TEXT    NOT NULL DEFAULT '',
    -- the one-line description search uses (title or first instruction line)
    description    TEXT    NOT NULL DEFAULT '',
    -- JSON array of {name, description, inputSchema, tokens}: schemas verbatim
    tools          BLOB    NOT NULL,
    -- sha256 of tools, to tell a changed list without decoding it
    tools_hash     TEXT    NOT NULL,
    listed_at      INTEGER NOT NULL,
    PRIMARY KEY (server, config_hash)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE mcp_catalog;
