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

// TestHTTPGETAfterListing: a streamable HTTP server's GET stream opens
// once its tools are listed (holdGET), not as soon as initialize is
// answered, where it took a second connection while initialized and
// tools/list were on the first. (Which connection a request gets is up to
// net/http's pool, which takes a connection back asynchronously: the test
// checks the order, TestCapReaderReadsBodyToEnd that the connection of a
// chunked answer can go back at all.)
func TestHTTPGETAfterListing(t *testing.T) {
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
}

// endReader hands out its parts one Read at a time, then io.EOF, and
// says whether a Read has returned io.EOF.
type endReader struct {
	parts []string
	eof   bool
}

func (r *endReader) Read(p []byte) (int, error) {
	if len(r.parts) == 0 {
		r.eof = true
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	if r.parts[0] == "" {
		r.parts = r.parts[1:]
	}
	return n, nil
}

// TestCapReaderReadsBodyToEnd: a JSON body is read to its end (io.EOF) by
// the time a json.Decoder over the capReader has its value, as mcp-go
// decodes an answer: a body left short of its end (the newline after the
// value, a chunked body's last chunk) closed its connection when mcp-go
// cancelled the request. An event stream is never read past what the
// caller asks for.
func TestCapReaderReadsBodyToEnd(t *testing.T) {
	t.Parallel()
	value := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`
	tests := []struct {
		name    string
		parts   []string
		lines   bool
		wantEOF bool
	}{
		{"the newline in the value's read", []string{value + "\n"}, false, true},
		{"the newline read apart", []string{value, "\n"}, false, true},
		{"value cut across reads", []string{value[:20], value[20:], "\n"}, false, true},
		{"event stream", []string{"data: " + value + "\n\n", "data: {}\n\n"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &endReader{parts: tt.parts}
			cr := newCapReader(r, 1<<20, tt.lines)
			if tt.lines {
				// As mcp-go reads an event: a line at a time.
				line := make([]byte, len("data: "+value+"\n"))
				if _, err := io.ReadFull(cr, line); err != nil {
					t.Fatal(err)
				}
			} else {
				var v map[string]any
				if err := json.NewDecoder(cr).Decode(&v); err != nil {
					t.Fatal(err)
				}
			}
			if r.eof != tt.wantEOF {
				t.Errorf("read to the end: %v, want %v", r.eof, tt.wantEOF)
			}
		})
	}
}
