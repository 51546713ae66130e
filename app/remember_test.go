package app

import (
	"encoding/json"
	"testing"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/store"
)

// A server a resumed session brings back from its stored definition starts
// as it was configured: the revision it was pinned to and when it starts
// are kept (a both-era server pinned to 2025-11-25 would otherwise be
// spoken 2026-07-28 again, and an eager server would wait for a call), and
// a definition stored before they were kept still reads, as the defaults.
func TestRememberedServerKeepsSettings(t *testing.T) {
	tests := []struct {
		name         string
		stored       func(t *testing.T) []byte
		wantProtocol string
		wantStart    string
	}{
		{"pinned and eager", func(t *testing.T) []byte {
			b, err := json.Marshal(serverDef(config.MCPServer{Name: "s", Type: "http", URL: "http://127.0.0.1:1/mcp",
				Protocol: "2025-11-25", Start: "eager", Source: "/cfg/mcp.json"}))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, "2025-11-25", "eager"},
		{"stdio of 2026-07-28", func(t *testing.T) []byte {
			b, err := json.Marshal(serverDef(config.MCPServer{Name: "s", Type: "stdio", Command: "srv",
				Protocol: "2026-07-28", Start: "lazy", Source: "/cfg/mcp.json"}))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}, "2026-07-28", "lazy"},
		{"stored before the settings were kept", func(*testing.T) []byte {
			return []byte(`{"name":"s","type":"http","url":"http://127.0.0.1:1/mcp","source":"/cfg/mcp.json"}`)
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d store.MCPServerDef
			if err := json.Unmarshal(tt.stored(t), &d); err != nil {
				t.Fatal(err)
			}
			a := &App{remembered: []store.MCPServerDef{d}}
			configured := map[string]config.MCPServer{}
			a.rememberServers(configured)
			got, ok := configured["s"]
			if !ok {
				t.Fatalf("not brought back: warnings %q", a.warnings)
			}
			if got.Protocol != tt.wantProtocol || got.Start != tt.wantStart {
				t.Errorf("protocol %q, start %q; want %q, %q", got.Protocol, got.Start, tt.wantProtocol, tt.wantStart)
			}
		})
	}
}
