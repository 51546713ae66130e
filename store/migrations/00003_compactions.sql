-- Schema version 3: compactions. A compaction replaces, in what is sent, the
-- first `boundary` messages of a session with a summary the model wrote;
-- the messages themselves stay in `messages`, so the whole history is still
-- shown and exported. A resume sends the newest compaction's form.

-- +goose Up
CREATE TABLE compactions (
    session_id    TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    -- how many messages of the history (in seq order) the summary replaces
    boundary      INTEGER NOT NULL,
    summary       TEXT    NOT NULL,
    -- JSON array of the tool names found before the boundary, re-loaded
    -- after the summary by one search pair
    found         TEXT    NOT NULL DEFAULT '[]',
    focus         TEXT    NOT NULL DEFAULT '',
    auto          INTEGER NOT NULL DEFAULT 0,
    -- estimated tokens of the messages sent without and with it
    before_tokens INTEGER NOT NULL DEFAULT 0,
    after_tokens  INTEGER NOT NULL DEFAULT 0,
    -- the summary request's usage, agent.Usage JSON
    usage         TEXT    NOT NULL DEFAULT '{}',
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE compactions;
