package startbench

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// gatedConn is the proxy's connection to the fake. The Write that carries
// the request body's last bytes delivers them, then returns only once gate
// is closed: the transport is held just before it reads the body once more
// to check nothing follows, while the fake already answers.
type gatedConn struct {
	net.Conn
	tail []byte
	hit  func()
	gate chan struct{}
}

func (c *gatedConn) Write(p []byte) (int, error) {
	last := bytes.HasSuffix(p, c.tail)
	if last {
		c.hit()
	}
	n, err := c.Conn.Write(p)
	if last {
		<-c.gate
	}
	return n, err
}

// TestProxyBodyOutlivesHeaders: the answer of a request whose body the
// fake read whole reaches the client whole, even when the proxy writes
// the answer's headers before its transport has finished with the body.
// The bench's flake: "stream was cut: unexpected EOF" in the agent,
// "ReverseProxy read error during body copy: ... use of closed network
// connection" in the bench. Passing the server's request body through
// fails here every time: writing the headers closes it, and the
// transport's last read of it fails and drops the connection to the fake.
func TestProxyBodyOutlivesHeaders(t *testing.T) {
	// Larger than the transport's write buffer, so the body's last bytes
	// leave in a Write of their own before that last read.
	body := append(bytes.Repeat([]byte("x"), 256<<10), []byte("end-of-body")...)
	more := make(chan struct{})
	var moreOnce sync.Once
	send := func() { moreOnce.Do(func() { close(more) }) }
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, err := io.ReadAll(r.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("the fake read %d bytes (%v), want the %d sent", len(got), err, len(body))
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
		<-more
		_, _ = io.WriteString(w, "data: 2\n\ndata: [DONE]\n\n")
	}))
	defer fake.Close()
	defer send() // before fake.Close, which waits for the handler

	var once sync.Once
	hit := make(chan struct{})
	gate := make(chan struct{})
	var gateOnce sync.Once
	open := func() { gateOnce.Do(func() { close(gate) }) }
	defer open()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &gatedConn{Conn: c, tail: []byte("end-of-body"), hit: func() { once.Do(func() { close(hit) }) }, gate: gate}, nil
	}}
	defer tr.CloseIdleConnections()
	px, err := startProxy(tr)
	if err != nil {
		t.Fatal(err)
	}
	defer px.close()
	px.setUpstream(fake.URL)

	resp, err := http.Post(px.url+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The headers are here while the transport is still held.
	select {
	case <-hit:
	default:
		t.Fatal("the body's last bytes never left in a Write of their own: the test no longer holds the transport where the flake was")
	}
	open()
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || first != "data: 1\n" {
		t.Fatalf("first event %q, %v", first, err)
	}
	send()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("the answer was cut after %q: %v", first+string(rest), err)
	}
	if !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("the answer ended %q, want it to end with [DONE]", rest)
	}
}
