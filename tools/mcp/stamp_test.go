package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agent-dev/agent/config"
)

// TestModernCallKeepsArguments: a tools/call of protocol 2026-07-28 goes
// out with the model's arguments as they were, whatever stamping its _meta
// does to the params: an integer past 2^53 (a 64-bit id) and a decimal
// of many digits arrive with every digit. Before, the params went through
// a map of Go values, and 9007199254740993 reached the server as
// 9007199254740992.
func TestModernCallKeepsArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args string
	}{
		{"integer past 2^53", `{"message":"hi","id":9007199254740993}`},
		{"64-bit id", `{"message":"hi","id":18446744073709551615}`},
		{"long decimal", `{"message":"hi","ratio":0.10000000000000000555111512312578270211815834045}`},
		{"exponent", `{"message":"hi","big":1e400}`},
	}
	s := &modernOnly{}
	var mu sync.Mutex
	var sent []json.RawMessage // the arguments of each tools/call
	h := s.handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := readAllAndRestore(r)
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(b, &msg) == nil && msg.Method == "tools/call" {
				mu.Lock()
				sent = append(sent, msg.Params.Arguments)
				mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "modern", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if len(errs) > 0 {
		t.Fatalf("start: %v", errs)
	}
	set := register(t, m)
	for _, tt := range tests {
		mu.Lock()
		sent = nil
		mu.Unlock()
		call(t, set, ToolName("modern", "echo"), tt.args)
		mu.Lock()
		got := sent
		mu.Unlock()
		if len(got) != 1 {
			t.Fatalf("%s: %d tools/call requests, want 1", tt.name, len(got))
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(tt.args)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[0], want.Bytes()) {
			t.Errorf("%s: the server got arguments %s, want %s", tt.name, got[0], want.Bytes())
		}
	}
}
