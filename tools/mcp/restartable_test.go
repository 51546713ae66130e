package mcp

import (
	"net"
	"net/http"
	"testing"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// restartable is a streamable HTTP server on a loopback address that a
// test stops and starts again on the same address, as a server restarts.
// Keep-alives are off: the client finds an old server's keep-alive
// connection closed a moment after it went, not at once, and a request on
// it fails ("server closed idle connection"); closing the client's idle
// connections after the restart is not enough, net/http may put one back
// in the pool after (seen with many cases at once).
type restartable struct {
	t    *testing.T
	addr string
	hs   *http.Server
}

func newRestartable(t *testing.T, h http.Handler) *restartable {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &restartable{t: t, addr: l.Addr().String()}
	r.serve(l, h)
	return r
}

func (r *restartable) serve(l net.Listener, h http.Handler) {
	hs := &http.Server{Handler: h}
	hs.SetKeepAlivesEnabled(false)
	go func() { _ = hs.Serve(l) }()
	r.t.Cleanup(func() { _ = hs.Close() })
	r.hs = hs
}

// restart stops the server and serves h on the same address: a server
// that knows none of the old one's sessions. A test whose address was
// taken meanwhile is skipped.
func (r *restartable) restart(h http.Handler) {
	r.t.Helper()
	_ = r.hs.Close()
	l, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Skipf("cannot listen on %s again: %v", r.addr, err)
	}
	r.serve(l, h)
}

// start starts a manager with the server as "ts" and registers its tools.
func (r *restartable) start() (*Manager, *events, *tools.Set) {
	r.t.Helper()
	m, ev, errs := startManager(r.t, Options{}, config.MCPServer{Name: "ts", Type: config.MCPHTTP, URL: "http://" + r.addr + "/mcp"})
	if len(errs) > 0 {
		r.t.Fatal(errs)
	}
	return m, ev, register(r.t, m)
}
