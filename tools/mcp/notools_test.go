package mcp

import (
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// A server that offers no tools capability (resources or prompts only)
// starts with no tools: tools/list is not asked of it.
func TestServerWithoutToolsStarts(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("res", "1", server.WithResourceCapabilities(false, false))
	ts := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(ts.Close)
	m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "res", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, st := range m.Status() {
		if st.State != StateRunning {
			t.Errorf("%s: %s (%v), want running", st.Name, st.State, st.Error)
		}
	}
}
