-- Schema version 4: learning from use. Each search of a session and the
-- tools it found ('found'), and each call of a tool that a search of the
-- same session had found, with that search's query ('called'). The engine
-- indexes the called pairs as each tool's learned requests; both kinds give
-- the usage statistics of `agent tools --json`. Local only: nothing here is
-- sent anywhere. `agent tools forget` deletes every row.

-- +goose Up
CREATE TABLE tool_uses (
    id         INTEGER PRIMARY KEY,
    at         INTEGER NOT NULL,
    -- no foreign key: what was learned outlives a deleted session
    session_id TEXT    NOT NULL DEFAULT '',
    kind       TEXT    NOT NULL CHECK (kind IN ('found', 'called')),
    query      TEXT    NOT NULL,
    tool       TEXT    NOT NULL,
    server     TEXT    NOT NULL DEFAULT '',
    -- where the search ran: 'client' (the agent's engine) or 'provider'
    search     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX tool_uses_kind_at ON tool_uses (kind, at);

-- +goose Down
DROP TABLE tool_uses;
