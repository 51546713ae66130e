package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// seeds write a session the way schema version v stored it. Adding
// migration N means adding seeds[N-1]'s successor here: the test below
// fails for any earlier version without a seed.
var seeds = map[int64]func(t *testing.T, db *sql.DB){
	1: seedV1,
	2: seedV2,
	3: seedV3,
	4: seedV4,
	5: seedV5,
	6: seedV6,
	7: func(t *testing.T, db *sql.DB) {
		seedV6(t, db)
		if _, err := db.Exec(`INSERT INTO search_terms (term) VALUES ('weather');
			INSERT INTO tool_uses (at, session_id, kind, query, tool, terms, terms_version)
				VALUES (3, 'seed0001', 'called', 'weather', 't', X'01', 'v')`); err != nil {
			t.Fatal(err)
		}
	},
}

func seedV6(t *testing.T, db *sql.DB) {
	seedV5(t, db)
	if _, err := db.Exec(`INSERT INTO sessions (id, title, created_at, updated_at, workdir, provider, api, model, settings, parent_session_id)
		VALUES ('kid00001', 'child', 1, 1, '/w', 'openai-chat', 'chat', 'm', '{}', 'seed0001')`); err != nil {
		t.Fatal(err)
	}
}

func seedV5(t *testing.T, db *sql.DB) {
	seedV4(t, db)
	if _, err := db.Exec(`INSERT INTO tool_uses (at, session_id, kind, query, tool, scope) VALUES (2, 'seed0002', 'called', 'demo q', 't', 'demo')`); err != nil {
		t.Fatal(err)
	}
}

func seedV4(t *testing.T, db *sql.DB) {
	seedV3(t, db)
	if _, err := db.Exec(`INSERT INTO tool_uses (at, session_id, kind, query, tool) VALUES (1, 'seed0001', 'called', 'q', 't')`); err != nil {
		t.Fatal(err)
	}
}

func seedV3(t *testing.T, db *sql.DB) {
	seedV2(t, db)
	if _, err := db.Exec(`INSERT INTO compactions (session_id, seq, boundary, summary, found, created_at) VALUES ('seed0001', 1, 2, 'sum', '["t"]', 3)`); err != nil {
		t.Fatal(err)
	}
}

func seedV2(t *testing.T, db *sql.DB) {
	seedV1(t, db)
	if _, err := db.Exec(`INSERT INTO mcp_catalog (server, config_hash, tools, tools_hash, listed_at) VALUES ('s', 'h', CAST('[]' AS BLOB), 'x', 1)`); err != nil {
		t.Fatal(err)
	}
}

func seedV1(t *testing.T, db *sql.DB) {
	{
		_, err := db.Exec(`
			INSERT INTO sessions (id, title, created_at, updated_at, workdir, provider, api, model, settings)
				VALUES ('seed0001', 'seeded', 1, 2, '/w', 'anthropic', 'messages', 'm', '{"search":"native"}');
			INSERT INTO messages (id, session_id, seq, role, interrupted, partial, created_at) VALUES (1, 'seed0001', 1, 'user', 0, 0, 1);
			INSERT INTO parts (message_id, idx, type, text) VALUES (1, 0, 'text', 'hello');
			INSERT INTO messages (id, session_id, seq, role, interrupted, partial, created_at) VALUES (2, 'seed0001', 2, 'assistant', 0, 0, 2);
			INSERT INTO parts (message_id, idx, type, raw_provider, raw_api, raw)
				VALUES (2, 0, 'raw', 'anthropic', 'messages', CAST('[{"type":"text","text":"hi"}]' AS BLOB));
			INSERT INTO requests (session_id, seq, provider, api, model, tools_hash, created_at) VALUES ('seed0001', 1, 'anthropic', 'messages', 'm', 'h1', 2);`)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkSeed verifies, through the current API, what every seed holds.
func checkSeed(t *testing.T, d *DB) {
	ctx := t.Context()
	s, err := d.OpenSession(ctx, "seed")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs, err := s.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Text() != "hello" || string(msgs[1].RawFor("anthropic", "messages").Data) != `[{"type":"text","text":"hi"}]` {
		t.Fatalf("seeded history after migration: %+v", msgs)
	}
	if h, _ := s.LastToolsHash(ctx); h != "h1" {
		t.Fatalf("tools hash after migration: %q", h)
	}
}

func TestMigrateFromEveryEarlierVersion(t *testing.T) {
	ctx := context.Background()
	latest := latestVersion()
	if latest < 1 {
		t.Fatal("no migrations embedded")
	}
	for from := int64(0); from <= latest; from++ {
		path := filepath.Join(t.TempDir(), "agent.db")
		raw, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if from > 0 {
			gp, err := newProvider(raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := gp.UpTo(ctx, from); err != nil {
				t.Fatalf("migrate to %d: %v", from, err)
			}
			seed, ok := seeds[from]
			if !ok {
				t.Fatalf("no seed for schema version %d: add one to seeds", from)
			}
			seed(t, raw)
		}
		raw.Close()

		d, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open at version %d: %v", from, err)
		}
		var v int64
		d.sql.QueryRow(`SELECT max(version_id) FROM goose_db_version`).Scan(&v)
		if v != latest {
			t.Fatalf("from %d: schema version %d, want %d", from, v, latest)
		}
		if from > 0 {
			checkSeed(t, d)
		}
		d.Close()
	}
}
