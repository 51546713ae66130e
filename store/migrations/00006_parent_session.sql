-- Schema version 6: subagents. A session run by another session's
-- run_agent call names it in parent_session_id; deleting the parent leaves
-- the child (it can still be resumed on its own), unlinked.

-- +goose Up
ALTER TABLE sessions ADD COLUMN parent_session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL;
CREATE INDEX sessions_parent ON sessions (parent_session_id);

-- +goose Down
DROP INDEX sessions_parent;
ALTER TABLE sessions DROP COLUMN parent_session_id;
