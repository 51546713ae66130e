package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
)

// replyRejecter is a streamable HTTP server whose one tool asks the client
// something (a ping, as roots/list would be) on the call's own stream, and
// whose session then rejects the client's answer with status: a server that
// lost the session while the tool ran, or one behind a balancer that sent
// the answer to another instance. The tool ran; it ends with an error.
type replyRejecter struct {
	status int
	reply  chan struct{} // the client's answer arrived

	mu    sync.Mutex
	calls int
}

func (s *replyRejecter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed) // no GET stream
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	answer := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch msg.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "s1")
		answer(`{"protocolVersion":` + strconv.Quote(msg.Params.ProtocolVersion) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"replies","version":"1"}}`)
	case "tools/list":
		answer(`{"tools":[{"name":"run","inputSchema":{"type":"object"}}]}`)
	case "tools/call":
		s.mu.Lock()
		s.calls++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-s.reply:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second): // no answer came: the call still ends
		}
		_, _ = fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32603,\"message\":\"the ping was not answered\"}}\n\n", msg.ID)
	case "":
		if msg.ID != nil { // the client's answer to the ping
			w.WriteHeader(s.status)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			s.reply <- struct{}{}
			return
		}
		fallthrough
	default:
		w.WriteHeader(http.StatusAccepted) // notifications
	}
}

// A tool call during which the server rejected the client's answer to one
// of its requests is not sent again: that answer goes out with the call's
// context (mcp-go answers a request that came on a call's stream with it),
// but the call itself was accepted and ran. Resending it ran the tool twice.
func TestHTTPSessionRejectedAnswerNotResent(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			h := &replyRejecter{status: status, reply: make(chan struct{}, 4)}
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "rr", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			set := register(t, m)
			if r := call(t, set, "rr__run", `{}`); !r.IsError {
				t.Errorf("the tool failed, yet: %+v", r)
			}
			h.mu.Lock()
			n := h.calls
			h.mu.Unlock()
			if n != 1 {
				t.Errorf("tools/call sent %d times; want 1 (the tool ran)", n)
			}
		})
	}
}
