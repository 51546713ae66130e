package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// linkServer's tool pay answers URLElicitationRequiredError (-32042) until
// the user "opened the link": the test's stderr, on seeing the URL, marks
// it done and the server sends notifications/elicitation/complete.
type linkServer struct {
	*server.MCPServer
	mu      sync.Mutex
	calls   int
	done    bool
	session server.ClientSession
}

func newLinkServer() *linkServer {
	l := &linkServer{MCPServer: server.NewMCPServer("bank", "1.0.0", server.WithToolCapabilities(true))}
	l.AddTool(mcpgo.NewTool("pay", mcpgo.WithDescription("Pays")),
		func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.calls++
			if l.done {
				return mcpgo.NewToolResultText("paid"), nil
			}
			l.session = server.ClientSessionFromContext(ctx)
			return nil, mcpgo.URLElicitationRequiredError{Elicitations: []mcpgo.ElicitationParams{{
				Mode: "url", ElicitationID: "e1", URL: "https://bank.example/link", Message: "Link your account."}}}
		})
	return l
}

// userOpens is stderr: a line with the link makes the user "open" it.
type userOpens struct {
	mu  sync.Mutex
	buf bytes.Buffer
	l   *linkServer
	// opens: the user follows the link. Without --yes they do not: had the
	// server's completion arrived before the declined answer was read, the
	// call would rightly be retried, and the test would depend on which
	// came first (it failed so once in CI at load).
	opens bool
}

func (u *userOpens) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.opens && strings.Contains(string(p), "https://bank.example/link") {
		u.l.mu.Lock()
		u.l.done = true
		sess := u.l.session
		u.l.mu.Unlock()
		_ = u.l.SendElicitationComplete(context.Background(), sess, "e1")
	}
	return u.buf.Write(p)
}

// TestPrintURLElicitationRequired: in -p a call answered -32042 says the
// URL on stderr and as a stream-json event; with --yes the run waits for
// the server's notifications/elicitation/complete and retries the call
// once, without it the call fails at once saying how to go on.
func TestPrintURLElicitationRequired(t *testing.T) {
	for _, yes := range []bool{true, false} {
		t.Run(map[bool]string{true: "yes", false: "default"}[yes], func(t *testing.T) {
			f := newFixture(t, false)
			l := newLinkServer()
			srv := httptest.NewServer(legacyHTTP(l.MCPServer))
			t.Cleanup(srv.Close)
			cfg := filepath.Join(t.TempDir(), "mcp.json")
			writeFile(t, cfg, `{"mcpServers": {"bank": {"type": "http", "url": "`+srv.URL+`/mcp"}}}`)
			f.flags.MCPConfig = cfg
			f.fake.Script = anthropictest.NewScript(anthropictest.Turn{Call: "bank__pay", Input: map[string]any{}}, anthropictest.Turn{Text: "Done."})
			a := f.open(t, nil)
			a.opts.Yes = yes
			var out bytes.Buffer
			stderr := &userOpens{l: l, opens: yes}
			if err := a.Print(t.Context(), "pay", PrintOptions{Format: "stream-json", Yes: yes, Stdout: &out, Stderr: stderr}); err != nil {
				t.Fatalf("print: %v (%s)", err, stderr.buf.String())
			}
			var elicits []agent.ElicitationEvent
			var finished []agent.ToolEvent
			sc := bufio.NewScanner(&out)
			for sc.Scan() {
				var ev agent.Event
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					continue // the init and result lines
				}
				if ev.Type == agent.EventElicitation && ev.Elicitation != nil {
					elicits = append(elicits, *ev.Elicitation)
				}
				if ev.Type == agent.EventToolFinished {
					finished = append(finished, *ev.Tool)
				}
			}
			want := agent.ElicitationEvent{Server: "bank", Mode: "url", Message: "Link your account.", URL: "https://bank.example/link", ID: "e1", Retry: true, Action: "decline"}
			wantCalls := 1
			if yes {
				want.Action, wantCalls = "accept", 2
			}
			if len(elicits) != 1 || !reflect.DeepEqual(elicits[0], want) {
				t.Errorf("elicitation events %+v, want %+v", elicits, want)
			}
			if !strings.Contains(stderr.buf.String(), "MCP server bank asks you to open https://bank.example/link (Link your account.)") {
				t.Errorf("stderr %q", stderr.buf.String())
			}
			if len(finished) != 1 || finished[0].IsError == yes {
				t.Errorf("tool calls %+v (yes=%v)", finished, yes)
			}
			if l.calls != wantCalls {
				t.Errorf("the server got %d calls, want %d", l.calls, wantCalls)
			}
		})
	}
}

// TestPrintURLElicitationWaitSays: in -p with --yes, what the line says the
// wait ends with: a -32042 call's elicitation has an id the server says is
// complete; a 2026-07-28 input request's has none, only the wait ends it.
func TestPrintURLElicitationWaitSays(t *testing.T) {
	for _, tc := range []struct {
		id, want, not string
	}{
		{"e1", "retried when the server says it is done", "sent again"},
		{"", "the request is sent again in 2m0s", "server says"},
	} {
		var got []agent.Event
		a := &App{turnEmit: func(ev agent.Event) { got = append(got, ev) }}
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // the wait is not what is tested
		ans := a.elicitURL(ctx, mcptools.Elicitation{Server: "bank", Mode: "url", URL: "https://bank.example/link", ID: tc.id, Retry: true}, "accept-defaults")
		if ans.Action != mcptools.ActionAccept || len(got) != 1 {
			t.Fatalf("id %q: answer %+v, events %+v", tc.id, ans, got)
		}
		if !strings.Contains(got[0].Text, tc.want) || strings.Contains(got[0].Text, tc.not) {
			t.Errorf("id %q: %q, want it to say %q", tc.id, got[0].Text, tc.want)
		}
	}
}
