package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// A first run (no database file) asks its MCP servers for their tools
// while the database is created: the server has the initialize request
// before the database is opened. The catalog it listed is in the database
// after Close (the next run starts the server lazily, from the cache), and
// a run with the database in place starts no server before it is opened.
func TestFirstRunConnectsServersBeforeTheDatabase(t *testing.T) {
	f := newFixture(t, false)
	asked := make(chan struct{})
	var once sync.Once
	mcpSrv := server.NewStreamableHTTPServer(testMCPServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			once.Do(func() { close(asked) })
		}
		mcpSrv.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, cfg, `{"mcpServers": {"tt": {"type": "http", "url": "`+srv.URL+`/mcp"}}}`)
	f.flags.MCPConfig = cfg

	var sawAsked bool
	testHookOpenDB = func() {
		select {
		case <-asked:
			sawAsked = true
		case <-time.After(30 * time.Second):
		}
	}
	t.Cleanup(func() { testHookOpenDB = func() {} })
	a := f.open(t, nil)
	if !sawAsked {
		t.Fatal("the database was opened before the MCP server was asked for anything")
	}
	if st := a.mcp.Status(); len(st) != 1 || st[0].State != mcptools.StateRunning || st[0].Tools != 2 || st[0].Cached {
		t.Fatalf("first run: servers %+v", st)
	}
	if _, ok := a.Session().Tools().Lookup("tt__get_weather"); !ok {
		t.Fatal("the listed tools are not registered")
	}
	a.Close()

	sawAsked = false
	testHookOpenDB = func() {
		select {
		case <-asked:
			sawAsked = true
		default:
		}
	}
	asked = make(chan struct{})
	once = sync.Once{}
	b := f.open(t, nil)
	if sawAsked {
		t.Fatal("a run with a database asked a server for something before opening it")
	}
	if st := b.mcp.Status(); len(st) != 1 || st[0].State != mcptools.StateIdle || st[0].Tools != 2 || !st[0].Cached {
		t.Fatalf("second run: servers %+v (the first run's catalog was not kept)", st)
	}
}

// A first run that fails after its servers were started early (no API
// key) ends them and returns the provider's error; no goroutine outlives
// it (TestMain).
func TestFirstRunFailingEndsEarlyServers(t *testing.T) {
	f := newFixture(t, true)
	delete(f.env, "ANTHROPIC_API_KEY")
	s, err := Load(f.flags, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test"})
	if err == nil {
		a.Close()
		t.Fatal("opened without an API key")
	}
	if !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("error %v does not name the missing key", err)
	}
}

func TestLateCache(t *testing.T) {
	e := tools.CatalogEntry{Server: "s", ConfigHash: "h", Tools: []byte("x")}
	for _, tt := range []struct {
		name   string
		db     bool // the database opened
		before bool // the save is made before the database is ready
	}{
		{"saved once the database opens and the session exists", true, true},
		{"saved at once when it is open", true, false},
		{"refused when it failed to open", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var db *store.DB
			if tt.db {
				var err error
				if db, err = store.Open(t.Context(), filepath.Join(t.TempDir(), "a.db")); err != nil {
					t.Fatal(err)
				}
				defer db.Close()
			}
			em := &earlyMCP{cache: &lateCache{ready: make(chan struct{})}}
			if _, ok, err := em.cache.LoadCatalog(t.Context(), "s", "h"); ok || err != nil {
				t.Fatalf("load before the database: %v %v", ok, err)
			}
			saved := make(chan error, 1)
			if tt.before {
				go func() { saved <- em.cache.SaveCatalog(context.Background(), e) }()
			}
			em.dbReady(db, &sync.Mutex{})
			// Written only once Open has created the session: the
			// database being open does not let the writes go.
			select {
			case <-em.cache.ready:
				t.Fatal("the cache writes were let go when the database opened, before the session was created")
			default:
			}
			em.release()
			if !tt.before {
				saved <- em.cache.SaveCatalog(t.Context(), e)
			}
			err := <-saved
			if !tt.db {
				if !errors.Is(err, errNoDB) {
					t.Fatalf("save without a database: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, ok, err := em.cache.LoadCatalog(t.Context(), "s", "h"); !ok || err != nil || string(got.Tools) != "x" {
				t.Fatalf("load after the save: %v %v %q", ok, err, got.Tools)
			}
		})
	}
}

// A first run whose servers cannot be selected (an --mcp name no config
// has, an MCP config file that does not parse) fails with the usage
// error (exit 2) that names the problem, though the early start reads the
// files and selects the servers in its goroutine while the database is
// created; the goroutine has ended when Open returns (TestMain).
func TestFirstRunBadServersIsUsageError(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, fl *Flags)
		want   string
	}{
		{"unknown --mcp", func(t *testing.T, fl *Flags) { fl.MCP = []string{"nosuch"} }, `"nosuch"`},
		{"broken --mcp-config", func(t *testing.T, fl *Flags) {
			fl.MCPConfig = filepath.Join(t.TempDir(), "mcp.json")
			writeFile(t, fl.MCPConfig, `{"mcpServers": {`)
		}, "mcp.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, true)
			fl := f.flags
			c.change(t, &fl)
			s, err := Load(fl, f.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if !dbAbsent(s.DBPath) {
				t.Fatal("the fixture's database exists: not a first run")
			}
			a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test"})
			if err == nil {
				a.Close()
				t.Fatal("opened with servers that cannot be selected")
			}
			if ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v (exit %d): want a usage error naming %s", err, ExitCode(err), c.want)
			}
		})
	}
}

// A first -p run creates its session while its servers list, before it
// waits for them (the insert was between the last list and the first
// request); an Open that fails after that (a server named with --mcp that
// does not start) deletes it: no session is left, as before. A run with a
// UI keeps the order. Without createWhileListing the first case finds no
// session at the wait; without dropCreated the failing case leaves one.
func TestFirstRunCreatesSessionWhileListing(t *testing.T) {
	for _, c := range []struct {
		name         string
		deadServer   bool // the --mcp server refuses connections
		interactive  bool
		atWait, left int // sessions when the lists are waited for, after Open
	}{
		{name: "-p", atWait: 1, left: 1},
		{name: "-p, named server fails", deadServer: true, atWait: 1, left: 0},
		{name: "UI", interactive: true, atWait: 0, left: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, true)
			fl := f.flags
			if c.deadServer {
				dead := httptest.NewServer(http.NotFoundHandler())
				dead.Close() // its port now refuses
				fl.MCPConfig = filepath.Join(t.TempDir(), "mcp.json")
				writeFile(t, fl.MCPConfig, `{"mcpServers": {"dead": {"type": "http", "url": "`+dead.URL+`/mcp"}}}`)
				fl.MCP = []string{"dead"}
			}
			s, err := Load(fl, f.getenv)
			if err != nil {
				t.Fatal(err)
			}
			atWait := -1
			testHookListWait = func(a *App) {
				l, err := a.db.List(t.Context(), store.ListOptions{Empty: true}) // the session has no message yet
				if err != nil {
					t.Error(err)
				}
				atWait = len(l)
			}
			t.Cleanup(func() { testHookListWait = func(*App) {} })
			a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test", Title: "first", Interactive: c.interactive})
			if c.deadServer != (err != nil) {
				t.Fatalf("open: %v", err)
			}
			var id string
			if a != nil {
				id = a.Session().ID()
				a.Close()
			}
			if atWait != c.atWait {
				t.Errorf("%d sessions stored when the lists were waited for, want %d", atWait, c.atWait)
			}
			db, err := store.Open(t.Context(), s.DBPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			l, err := db.List(t.Context(), store.ListOptions{Empty: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(l) != c.left || (c.left == 1 && l[0].ID != id) {
				t.Fatalf("sessions after the run: %+v, want %d (id %q)", l, c.left, id)
			}
		})
	}
}
