package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools"
)

// runBurstServer is a stdio server that sends tools/list_changed in a
// burst, as server-everything does when it registers its tools for the
// client's capabilities after initialize (seven notifications, one a
// tool). Its first listing announces a change; the listing that change
// asks for is held while five more notifications go out, until the
// client has answered a roots/list sent after them (so it has read them
// all) and the test, told so, has looked. Every listing lists "count", which answers how many listings the
// server was asked for, and "listN", N the listing's number.
func runBurstServer() {
	out := json.NewEncoder(os.Stdout)
	send := func(v map[string]any) { v["jsonrpc"] = "2.0"; _ = out.Encode(v) }
	notify := func() { send(map[string]any{"method": "notifications/tools/list_changed"}) }
	lists := 0
	var held any // the id of the held listing
	listing := func(id any) {
		tool := func(name string) map[string]any {
			return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
		}
		send(map[string]any{"id": id, "result": map[string]any{"tools": []any{tool("count"), tool("list" + strconv.Itoa(lists))}}})
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":   map[string]any{"name": "burst", "version": "1"}}})
		case m.Method == "tools/list":
			lists++
			switch lists {
			case 1:
				listing(m.ID)
				notify()
			case 2:
				held = m.ID
				for range 5 {
					notify()
				}
				send(map[string]any{"id": "sync", "method": "roots/list"})
			default:
				listing(m.ID)
			}
		case m.ID == "sync" && m.Method == "":
			// The client has read the burst: tell the test, and answer
			// the held listing when it says so.
			c, err := net.Dial("tcp", os.Getenv("AGENT_MCP_TEST_SYNC"))
			if err != nil {
				fmt.Fprintln(os.Stderr, "fatal:", err)
				os.Exit(3)
			}
			_, _ = bufio.NewReader(c).ReadString('\n')
			c.Close()
			listing(held)
		case m.Method == "tools/call":
			send(map[string]any{"id": m.ID, "result": map[string]any{"content": []any{
				map[string]any{"type": "text", "text": strconv.Itoa(lists)}}}})
		case m.Method == "ping":
			send(map[string]any{"id": m.ID, "result": map[string]any{}})
		case m.ID != nil && m.Method != "":
			send(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
}

// Notifications of tools/list_changed that arrive while the tools are
// being listed again are answered by one more listing, not one each: a
// burst of them (server-everything sends seven as it starts) cost a
// tools/list, a parse and a cache write per notification.
func TestListChangedBurstListsOnceMore(t *testing.T) {
	t.Parallel()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := testServerConfig(t, "burst", "burst")
	cfg.Env["AGENT_MCP_TEST_SYNC"] = ln.Addr().String()
	m, ev, errs := startManager(t, Options{}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	// The server holds the listing the first notification asked for
	// until the client has read the five that followed.
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(time.Minute))
	synced, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if n := strings.Count(stacks, "mcp.(*conn).refresh("); n != 1 {
		t.Errorf("%d goroutines list the tools again (or wait to), want 1: the listing under way, and the five notifications that came during it one listing more after it", n)
	}
	fmt.Fprintln(synced, "go")
	synced.Close()
	// The listing after the burst: number 3 when the burst is one listing.
	ev.wait(t, "the listing after the burst", func(e Event) bool {
		return e.Kind == EventToolsChanged && slices.ContainsFunc(e.Added, func(n string) bool {
			k, err := strconv.Atoi(strings.TrimPrefix(n, "burst__list"))
			return err == nil && k >= 3
		})
	})
	if r := call(t, set, "burst__count", `{}`); r.Text != "3" {
		t.Errorf("the server was asked for %s tool listings, want 3 (at start, for the first notification, once for the five that came while it listed): %+v", r.Text, r)
	}
}
