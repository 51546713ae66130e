package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// lockedWriter serialises the SSE server's writes with the test's.
type lockedWriter struct {
	http.ResponseWriter
	mu *sync.Mutex
}

func (w lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w lockedWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ResponseWriter.(http.Flusher).Flush()
}

// A server's requests over the legacy SSE transport are answered: a
// roots/list and a ping written on the stream (mcp-go's SSE server sends
// none itself) get their answers POSTed to the message endpoint, the id
// of the first the same as a request of the client's (mcp-go's SSE client
// took such a request for an answer to its own and dropped it). The
// connection goes on working.
func TestSSEServerRequestsAnswered(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("sse", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("noop"), func(_ context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	})
	var mu sync.Mutex
	streams := make(chan lockedWriter, 1)
	answers := make(chan map[string]any, 4)
	ts := httptest.NewUnstartedServer(nil)
	sse := server.NewSSEServer(s, server.WithBaseURL("http://"+ts.Listener.Addr().String()))
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			lw := lockedWriter{w, &mu}
			select {
			case streams <- lw:
			default:
			}
			sse.ServeHTTP(lw, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg map[string]any
		if json.Unmarshal(body, &msg) == nil && msg["method"] == nil {
			answers <- msg // an answer to the server's own request
			w.WriteHeader(http.StatusAccepted)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sse.ServeHTTP(w, r)
	})
	ts.Start()
	t.Cleanup(ts.Close)
	_, set := startRegistered(t, Options{Workdir: t.TempDir()}, config.MCPServer{Name: "sse", Type: config.MCPSSE, URL: ts.URL + "/sse"})
	stream := <-streams
	for _, ev := range []string{`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, `{"jsonrpc":"2.0","id":"p","method":"ping"}`} {
		if _, err := stream.Write([]byte("event: message\ndata: " + ev + "\n\n")); err != nil {
			t.Fatal(err)
		}
		stream.Flush()
	}
	got := map[string]map[string]any{}
	for len(got) < 2 {
		select {
		case a := <-answers:
			b, _ := json.Marshal(a["id"])
			got[string(b)] = a
		case <-time.After(10 * time.Second):
			t.Fatalf("answers to the server's requests never came: %v", got)
		}
	}
	roots, _ := got["1"]["result"].(map[string]any)
	if list, _ := roots["roots"].([]any); len(list) != 1 {
		t.Errorf("roots/list answered %v", got["1"])
	}
	if _, ok := got[`"p"`]["result"]; !ok {
		t.Errorf("ping answered %v", got[`"p"`])
	}
	tl, _ := set.Lookup("sse__noop")
	if res, err := tl.Exec(t.Context(), nil); err != nil {
		t.Errorf("a call after the requests: %v %v", res, err)
	}
}
