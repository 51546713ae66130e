package mcp

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// Integration tests against the real servers .ci/install-mcp.sh installs
// from npm. They skip (saying how to install) when the servers are absent;
// CI installs them.

// nodeBin returns the path of an npm-installed server binary, or skips.
func nodeBin(t testing.TB, name string) string {
	t.Helper()
	prefix := os.Getenv("AGENT_MCP_NODE_PREFIX")
	if prefix == "" {
		_, file, _, _ := runtime.Caller(0)
		prefix = filepath.Join(filepath.Dir(file), "..", "..", ".ci", "node_modules", "mcp")
	}
	p := filepath.Join(prefix, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed in %s: run .ci/install-mcp.sh (or set AGENT_MCP_NODE_PREFIX)", name, prefix)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the npm MCP servers need it")
	}
	return p
}

// freePort finds a loopback port for a server to listen on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serveHTTP starts server-everything on an HTTP transport and waits until
// it accepts connections.
func serveHTTP(t testing.TB, bin, mode string) string {
	t.Helper()
	base, _ := serveHTTPOn(t, bin, mode, freePort(t))
	return base
}

// serveHTTPOn runs server-everything in mode on port; stop ends it.
func serveHTTPOn(t testing.TB, bin, mode string, port int) (base string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	t.Cleanup(stop)
	base = fmt.Sprintf("http://127.0.0.1:%d", port)
	// Node starts slowly on a loaded machine (load averages of 30 on two
	// cores were seen in CI-like runs).
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
		if err == nil {
			c.Close()
			return base, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s did not listen on %s: %s", mode, base, out.String())
		}
		// Poll: the server gives no other readiness signal.
		if r, err := http.Get(base); err == nil { //nolint:noctx // readiness probe
			_ = r.Body.Close()
		}
	}
}

func TestRealServerEverything(t *testing.T) {
	t.Parallel()
	bin := nodeBin(t, "mcp-server-everything")
	httpBase := serveHTTP(t, bin, "streamableHttp")
	sseBase := serveHTTP(t, bin, "sse")
	servers := []config.MCPServer{
		{Name: "everything", Type: config.MCPStdio, Command: bin, Args: []string{"stdio"}},
		{Name: "everything-http", Type: config.MCPHTTP, URL: httpBase + "/mcp"},
		{Name: "everything-sse", Type: config.MCPSSE, URL: sseBase + "/sse"},
	}
	m, _, errs := startManager(t, Options{StartTimeout: 60 * time.Second}, servers...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		t.Run(s.Type, func(t *testing.T) {
			st := m.Status()[slices.IndexFunc(m.Status(), func(x Status) bool { return x.Name == s.Name })]
			if st.State != StateRunning || st.Tools < 10 {
				t.Fatalf("status %+v", st)
			}
			echo, ok := set.Lookup(s.Name + "__echo")
			if !ok || !set.IsDeferred(s.Name+"__echo") {
				t.Fatalf("%s__echo missing or not deferred", s.Name)
			}
			// The server's JSON schema keeps $schema, which mcp-go's typed decoding drops.
			if !strings.Contains(string(echo.Schema), `"$schema"`) {
				t.Errorf("schema not verbatim: %s", echo.Schema)
			}
			if r := call(t, set, s.Name+"__echo", `{"message":"hello"}`); r.IsError || !strings.Contains(r.Text, "hello") {
				t.Errorf("echo: %+v", r)
			}
			if _, ok := set.Lookup(s.Name + "__get-sum"); ok {
				if r := call(t, set, s.Name+"__get-sum", `{"a":2,"b":3}`); !strings.Contains(r.Text, "5") {
					t.Errorf("get-sum: %+v", r)
				}
			}
			if _, ok := set.Lookup(s.Name + "__get-tiny-image"); ok {
				if r := call(t, set, s.Name+"__get-tiny-image", `{}`); len(r.Images) != 1 || r.Images[0].MediaType != "image/png" {
					t.Errorf("get-tiny-image: %+v", r)
				}
			}
		})
	}
	for _, tl := range set.All() {
		if strings.Contains(string(tl.Schema), "icons") {
			t.Errorf("%s: icons reached the schema", tl.Name)
		}
	}
}

func TestRealServerFilesystem(t *testing.T) {
	t.Parallel()
	bin := nodeBin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the filesystem"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The server resolves symlinks (macOS /var → /private/var).
	dir, _ = filepath.EvalSymlinks(dir)
	m, _, errs := startManager(t, Options{StartTimeout: 60 * time.Second},
		config.MCPServer{Name: "fs", Type: config.MCPStdio, Command: bin, Args: []string{dir}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	if n := len(set.All()); n < 10 {
		t.Errorf("%d tools", n)
	}
	args := fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "hello.txt"))
	if r := call(t, set, "fs__read_text_file", args); r.IsError || !strings.Contains(r.Text, "hello from the filesystem") {
		t.Errorf("read_text_file: %+v", r)
	}
	if r := call(t, set, "fs__read_text_file", `{"path":"/etc/passwd"}`); !r.IsError {
		t.Errorf("reading outside the allowed directory must be an error result: %+v", r)
	}
}

func TestRealServerMemory(t *testing.T) {
	t.Parallel()
	bin := nodeBin(t, "mcp-server-memory")
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	m, _, errs := startManager(t, Options{StartTimeout: 60 * time.Second},
		config.MCPServer{Name: "memory", Type: config.MCPStdio, Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": file}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	r := call(t, set, "memory__create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`)
	if r.IsError {
		t.Fatalf("create_entities: %+v", r)
	}
	if r := call(t, set, "memory__read_graph", `{}`); !strings.Contains(r.Text, "wrote the first program") {
		t.Errorf("read_graph: %+v", r)
	}
}
