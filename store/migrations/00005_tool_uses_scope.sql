-- Schema version 5: learning scopes and forgetting one tool. The demo's
-- searches and calls are learned in a scope of their own ('demo'), apart
-- from real ones (''); `agent tools forget TOOL` deletes one tool's rows,
-- and a vote (a 'called' row) is looked up by its tool once per session and
-- request, so both read an index on the tool.

-- +goose Up
ALTER TABLE tool_uses ADD COLUMN scope TEXT NOT NULL DEFAULT '';
CREATE INDEX tool_uses_tool ON tool_uses (tool, kind);

-- +goose Down
DROP INDEX tool_uses_tool;
ALTER TABLE tool_uses DROP COLUMN scope;
