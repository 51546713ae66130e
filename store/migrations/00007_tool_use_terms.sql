-- Schema version 7: learned requests kept analysed. Tool search indexes a
-- learned request by its terms (its words split, stop words dropped,
-- stemmed); a start read up to 100,000 requests and analysed each again.
-- A 'called' row now keeps its request's terms, written when the use is
-- recorded or imported: `terms` holds their numbers in `search_terms`, each
-- a uvarint, and `terms_version` the analysis they were made under
-- (search.AnalysisVersion). A start reads the numbers of rows of its own
-- version and the query of the others, and rewrites those. `agent tools
-- forget` drops the terms no row has any more; a number is never given to
-- another term (AUTOINCREMENT), so a row read before is never misread.

-- +goose Up
CREATE TABLE search_terms (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    term TEXT    NOT NULL UNIQUE
);
ALTER TABLE tool_uses ADD COLUMN terms BLOB;
ALTER TABLE tool_uses ADD COLUMN terms_version TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tool_uses DROP COLUMN terms_version;
ALTER TABLE tool_uses DROP COLUMN terms;
DROP TABLE search_terms;
