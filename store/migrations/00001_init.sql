-- Schema version 1. Times are unix milliseconds. JSON columns hold the
-- neutral agent types; raw provider payloads are kept apart, byte for byte.

-- +goose Up
-- application_id marks the file as an agent database so Open can refuse a
-- foreign SQLite file instead of writing its tables into it.
PRAGMA application_id = 1095192148;

CREATE TABLE sessions (
    id         TEXT    PRIMARY KEY,
    title      TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    workdir    TEXT    NOT NULL DEFAULT '',
    provider   TEXT    NOT NULL DEFAULT '',
    api        TEXT    NOT NULL DEFAULT '',
    model      TEXT    NOT NULL DEFAULT '',
    -- settings that shape the request (search mode, deferral, servers,
    -- provider tools, system prompt), sanitised of secrets before storing.
    settings   TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_updated ON sessions (updated_at DESC);
CREATE INDEX sessions_workdir ON sessions (workdir, updated_at DESC);

-- The single-writer rule: one row per session held by a live process.
CREATE TABLE session_locks (
    session_id   TEXT    PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    token        TEXT    NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT    NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
);

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    role        TEXT    NOT NULL,
    interrupted INTEGER NOT NULL DEFAULT 0,
    -- partial marks the in-flight assistant message checkpointed while it
    -- streams; the completed message replaces it.
    partial     INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE TABLE parts (
    message_id   INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    type         TEXT    NOT NULL,
    -- text parts keep their text in text and raw parts their payload in
    -- raw (both with json NULL), so a resume decodes no JSON for them;
    -- every other part is its neutral JSON.
    text         TEXT,
    json         TEXT,
    raw_provider TEXT,
    raw_api      TEXT,
    raw          BLOB,
    PRIMARY KEY (message_id, idx)
) WITHOUT ROWID;

CREATE TABLE discoveries (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    message_seq INTEGER NOT NULL,
    call_id     TEXT    NOT NULL DEFAULT '',
    tool        TEXT    NOT NULL,
    "where"     TEXT    NOT NULL,
    query       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX discoveries_session ON discoveries (session_id, message_seq);

CREATE TABLE requests (
    id               INTEGER PRIMARY KEY,
    session_id       TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    provider         TEXT    NOT NULL,
    api              TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    cache_read       INTEGER NOT NULL DEFAULT 0,
    cache_write      INTEGER NOT NULL DEFAULT 0,
    server_tool_uses TEXT,
    tools_hash       TEXT    NOT NULL DEFAULT '',
    resolved         TEXT    NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

-- +goose Down
DROP TABLE requests;
DROP TABLE discoveries;
DROP TABLE parts;
DROP TABLE messages;
DROP TABLE session_locks;
DROP TABLE sessions;
PRAGMA application_id = 0;
