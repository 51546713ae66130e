package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// capAll runs s through a capReader, one byte a read, in one read, and in
// one read with the string runs off (keepRun): the three must agree (the
// state machine does not depend on how bytes arrive).
func capAll(t *testing.T, s string, limit int, lines bool) string {
	t.Helper()
	whole, err := io.ReadAll(newCapReader(strings.NewReader(s), limit, lines))
	if err != nil {
		t.Fatal(err)
	}
	bytewise, err := io.ReadAll(newCapReader(iotest.OneByteReader(strings.NewReader(s)), limit, lines))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole, bytewise) {
		t.Fatalf("chunking changed the output:\n%.300s\n%.300s", whole, bytewise)
	}
	slow := newCapReader(strings.NewReader(s), limit, lines)
	slow.byteAtATime = true
	fed, err := io.ReadAll(slow)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole, fed) {
		t.Fatalf("the string runs changed the output:\n%.300s\n%.300s", whole, fed)
	}
	return string(whole)
}

var cutNoteFull = regexp.MustCompile(`\[tool result cut: (\d+) more bytes dropped over max_tool_result_bytes \((\d+)\)\]`)

// response is a tools/call answer in the TypeScript SDK's key order: the
// id comes last, after the whole result.
func response(content string) string {
	return `{"result":{"content":[` + content + `],"isError":false},"jsonrpc":"2.0","id":7}`
}

func textBlock(s string) string {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
	return string(b)
}

func TestCapReaderCutsResultStrings(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		limit   int
		cut     bool // a cut note must appear
		keepAll bool // the output must equal the input
	}{
		{"short text passes", response(textBlock("hello")), 100, false, true},
		{"long text cut", response(textBlock(strings.Repeat("A", 10_000))), 100, true, false},
		{"escapes at the cut", response(textBlock(strings.Repeat("\"\\\u0001é\n", 2_000))), 101, true, false},
		{"multibyte at the cut", response(textBlock(strings.Repeat("é€😀", 3_000))), 99, true, false},
		{"structuredContent string", `{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"x":"` + strings.Repeat("b", 5000) + `"}}}`, 100, true, false},
		{"tools/list untouched", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"` + strings.Repeat("d", 5000) + `","inputSchema":{"type":"object"}}]}}`, 100, false, true},
		{"error untouched", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"` + strings.Repeat("e", 500) + `"}}`, 100, false, true},
		{"request params untouched", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"content":"` + strings.Repeat("p", 500) + `"}}`, 100, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := capAll(t, tt.in, tt.limit, true)
			if tt.keepAll && out != tt.in {
				t.Fatalf("changed:\n%.300s", out)
			}
			if !json.Valid([]byte(out)) {
				t.Fatalf("not JSON any more:\n%.500s", out)
			}
			if !utf8.ValidString(out) {
				t.Fatalf("a character was split: %.500q", out)
			}
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(out), &msg); err != nil || msg.ID == 0 {
				t.Fatalf("id lost: %v %.300s", err, out)
			}
			m := cutNoteFull.FindStringSubmatch(out)
			if (m != nil) != tt.cut {
				t.Fatalf("cut note %v, want %v:\n%.500s", m, tt.cut, out)
			}
			if m == nil {
				return
			}
			if len(out) > tt.limit+minKept+300 {
				t.Errorf("kept %d bytes for a limit of %d", len(out), tt.limit)
			}
			// The note says by how much: kept + dropped is what was sent.
			var dropped int
			fmt.Sscan(m[1], &dropped)
			if got := len(out) - len(cutNoteFull.FindString(out)) - len(`\n\n`) + dropped; got != len(tt.in) {
				t.Errorf("kept and dropped add up to %d bytes, the message had %d", got, len(tt.in))
			}
		})
	}
}

// A flood of small content blocks is cut too: past the limit and its
// margin the remaining blocks are dropped, and one text block says so.
func TestCapReaderDropsFloodedElements(t *testing.T) {
	blocks := make([]string, 50_000)
	for i := range blocks {
		blocks[i] = textBlock("a")
	}
	in := response(strings.Join(blocks, ","))
	out := capAll(t, in, 1000, false)
	if len(out) > 1000+capMargin+1000 {
		t.Fatalf("kept %d of %d bytes", len(out), len(in))
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %.300s", err, out[len(out)-300:])
	}
	res, err := mcpgo.ParseCallToolResult(&r.Result)
	if err != nil {
		t.Fatal(err)
	}
	last, ok := res.Content[len(res.Content)-1].(mcpgo.TextContent)
	if !ok || !cutNoteFull.MatchString(last.Text) {
		t.Fatalf("last block %+v", res.Content[len(res.Content)-1])
	}
}

// Line mode starts again at each line: a broken line (an unclosed string)
// does not spill into the next message.
func TestCapReaderLinesResync(t *testing.T) {
	good := response(textBlock("fine"))
	out := capAll(t, "{\"broken\": \"never closed\n"+good+"\n", 10, true)
	if lines := strings.Split(out, "\n"); len(lines) != 3 || lines[1] != good {
		t.Fatalf("%q", out)
	}
}

// hugeLine streams a tools/call answer with n bytes of text without ever
// holding it: memory used reading it is the reader's, not the server's.
func hugeLine(n int) io.Reader {
	return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`),
		io.LimitReader(repeatReader('x'), int64(n)), strings.NewReader(`"}]}}`+"\n"))
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// #26: a 100 MB stdio result used 730 MB. Read as mcp-go's stdio transport
// reads (a line at a time), the capped line stays near the cap.
func TestCapReaderBoundsMemory(t *testing.T) {
	const size = 100 << 20
	var line string
	alloc := allocated(func() {
		var err error
		line, err = bufio.NewReader(newCapReader(hugeLine(size), 1<<20, true)).ReadString('\n')
		if err != nil {
			t.Error(err)
		}
	})
	if len(line) > 1<<20+1000 || !cutNoteFull.MatchString(line) {
		t.Fatalf("line of %d bytes: %.200s", len(line), line[len(line)-200:])
	}
	if alloc > 24<<20 {
		t.Errorf("reading a %d MB reply allocated %d MB", size>>20, alloc>>20)
	}
}

// #26 end to end over stdio: a server answering with 32 MB of text gives
// the model a cut result with a note, and the agent does not hold it.
func TestStdioHugeResultIsCut(t *testing.T) {
	cfg := testServerConfig(t, "huge", "huge")
	// What is held is the cut and the memory, not the time: the 32 MB
	// answer (encoded by a race-built server) took 110 s under -race at
	// load 22, on main as at ce3de11, near the 2 min default, which it
	// passed at higher load (go test -race -count=3 ./tools/mcp).
	cfg.ToolTimeout = 10 * time.Minute
	m, _, errs := startManager(t, Options{MaxToolResultBytes: 1 << 20, MaxResultBytes: 2 << 20}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	var r string
	alloc := allocated(func() { r = call(t, set, "huge__flood", `{}`).Text })
	if !cutNoteFull.MatchString(r) || len(r) > 1<<20+1000 {
		t.Fatalf("result of %d bytes: %.200s", len(r), r[max(0, len(r)-200):])
	}
	t.Logf("a 32 MB result allocated %d MB", alloc>>20)
	if alloc > 24<<20 {
		t.Errorf("a 32 MB result allocated %d MB", alloc>>20)
	}
}

// #26 end to end over streamable HTTP: a reply of 32 MB (sent as it is
// produced, chunked) is cut as it is read.
func TestHTTPHugeResultIsCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hugeHTTPServer))
	t.Cleanup(srv.Close)
	cfg := config.MCPServer{Name: "huge", Type: config.MCPHTTP, URL: srv.URL, Source: "test"}
	m, _, errs := startManager(t, Options{MaxToolResultBytes: 1 << 20, MaxResultBytes: 2 << 20}, cfg)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	var r string
	alloc := allocated(func() { r = call(t, set, "huge__flood", `{}`).Text })
	if !cutNoteFull.MatchString(r) || len(r) > 1<<20+1000 {
		t.Fatalf("result of %d bytes: %.200s", len(r), r[max(0, len(r)-200):])
	}
	t.Logf("a 32 MB result allocated %d MB", alloc>>20)
	if alloc > 24<<20 {
		t.Errorf("a 32 MB result allocated %d MB", alloc>>20)
	}
}

// hugeHTTPServer speaks streamable HTTP's JSON answers: initialize, the
// initialized notification (202), tools/list with one tool, and a
// tools/call answered with 32 MB of text written as it is made. The GET
// stream is refused with 405, as the transport allows.
func hugeHTTPServer(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch req.Method {
	case "initialize":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"huge","version":"1"}}}`, req.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"flood","description":"32 MB of text","inputSchema":{"type":"object"}}]}}`, req.ID)
	case "tools/call":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, req.ID)
		_, _ = io.Copy(w, io.LimitReader(repeatReader('x'), 32<<20))
		fmt.Fprint(w, `"}]}}`)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
	}
}

// The text cap (maxResultBytes) after the read cap still says what the
// tool returned: what was kept plus what the read cap dropped.
func TestTruncateCountsWhatWasCut(t *testing.T) {
	out := capAll(t, response(textBlock(strings.Repeat("y", 50_000))), 10_000, true)
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	res, err := mcpgo.ParseCallToolResult(&r.Result)
	if err != nil {
		t.Fatal(err)
	}
	got := convertResult(res, 1000)
	// Kept, dropped and the note: 50,000 bytes and a little more.
	if !regexp.MustCompile(`the tool returned 50\d\d\d bytes; only the first 1000 are shown\]$`).MatchString(got.Text) {
		t.Errorf("%q", got.Text[max(0, len(got.Text)-120):])
	}
}
