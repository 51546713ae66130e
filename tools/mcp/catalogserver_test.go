package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// catalogPath is ../shared/catalogs/ALL.json, the 282 tools of the eleven
// servers the start bench (bench/startbench) serves.
func catalogPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "catalogs", "ALL.json")
}

// serveCatalogHTTP serves ALL.json's servers over streamable HTTP on
// loopback, as bench/startbench does, and prints one line "name url" a
// server, then "ready". It is the test binary re-executed (mode
// "catalog-http"), so that the servers' CPU is not the benchmark's.
func serveCatalogHTTP() {
	b, err := os.ReadFile(catalogPath())
	if err != nil {
		fmt.Fprintln(os.Stderr, "fatal:", err)
		os.Exit(2)
	}
	var ts []struct {
		Server      string          `json:"server"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &ts); err != nil {
		fmt.Fprintln(os.Stderr, "fatal:", err)
		os.Exit(2)
	}
	byServer := map[string][]server.ServerTool{}
	for _, t := range ts {
		byServer[t.Server] = append(byServer[t.Server], server.ServerTool{Tool: mcpgo.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema),
			Handler: func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			}})
	}
	for name, sts := range byServer {
		s := server.NewMCPServer(name, "1.0.0", server.WithToolCapabilities(false))
		s.AddTools(sts...)
		l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "fatal:", err)
			os.Exit(2)
		}
		go func() { _ = (&http.Server{Handler: server.NewStreamableHTTPServer(s)}).Serve(l) }()
		fmt.Printf("%s http://%s/mcp\n", name, l.Addr())
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the benchmark ends
}
