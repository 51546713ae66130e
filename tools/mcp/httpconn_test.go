package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// TestHTTPStartOneConnection: a streamable HTTP server's start (initialize,
// initialized, tools/list, then the GET stream) goes over one TCP
// connection. The tools/list answer is large enough to be chunked: read
// only to the end of its value, its connection was closed and the GET
// dialled another (capReader reads the rest); and the GET, opened as soon
// as initialize was answered, took a second connection while initialized
// and tools/list were on the first (holdGET).
func TestHTTPStartOneConnection(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("big", "1.0.0", server.WithToolCapabilities(true))
	for i := range 40 {
		s.AddTool(mcpgo.NewToolWithRawSchema(fmt.Sprintf("tool_%02d", i), strings.Repeat("A tool that does a thing. ", 10), json.RawMessage(rawSchema)),
			func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			})
	}
	type req struct{ what, conn string }
	var mu sync.Mutex
	var reqs []req
	gotGET := make(chan struct{})
	var getOnce sync.Once
	h := server.NewStreamableHTTPServer(s)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		what := r.Method
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(b, &m)
			what += " " + m.Method
		}
		mu.Lock()
		reqs = append(reqs, req{what, r.RemoteAddr})
		mu.Unlock()
		if r.Method == http.MethodGet {
			getOnce.Do(func() { close(gotGET) })
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "big", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if n := len(m.Tools(false)); n != 40 {
		t.Fatalf("%d tools listed, want 40", n)
	}
	select {
	case <-gotGET:
	case <-t.Context().Done():
		t.Fatal("no GET stream")
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, r := range reqs {
		got = append(got, r.what)
	}
	want := []string{"POST initialize", "POST notifications/initialized", "POST tools/list", "GET"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("requests %q, want %q", got, want)
	}
	for _, r := range reqs[1:] {
		if r.conn != reqs[0].conn {
			t.Errorf("%s came on connection %s, initialize on %s: %+v", r.what, r.conn, reqs[0].conn, reqs)
		}
	}
}
