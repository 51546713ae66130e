package startbench

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// proxy forwards to a fake and notes when the first request of a run
// arrived.
type proxy struct {
	url      string
	mu       sync.Mutex
	upstream *url.URL
	first    time.Time
	close    func()
	// onBody sees each request body before the fake does.
	onBody func([]byte)
	// transport reaches the fake (nil: http.DefaultTransport).
	transport http.RoundTripper
}

func newProxy() (*proxy, error) { return startProxy(nil) }

// startProxy serves a proxy whose requests to the fake go through rt (nil:
// http.DefaultTransport).
func startProxy(rt http.RoundTripper) (*proxy, error) {
	p := &proxy{transport: rt}
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: p}
	go func() { _ = hs.Serve(l) }()
	p.url = "http://" + l.Addr().String()
	p.close = func() { _ = hs.Close() }
	return p, nil
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	p.mu.Lock()
	if p.first.IsZero() {
		p.first = now
	}
	up, onBody := p.upstream, p.onBody
	p.mu.Unlock()
	// The body is read whole before the fake gets it, never passed through:
	// an HTTP/1 server drains and closes a request's body when the handler
	// writes the response headers, here as soon as the fake's arrive. The
	// transport, having sent Content-Length bytes to the fake, reads the
	// body once more to check nothing follows; when that read comes after
	// the close it fails ("invalid Read on closed Body"), and the transport
	// closes its connection to the fake mid-answer: the agent saw "stream
	// was cut: unexpected EOF" and the bench logged "ReverseProxy read
	// error during body copy: ... use of closed network connection", once
	// in a few hundred runs (golang/go#40747; TestProxyBodyOutlivesHeaders).
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if onBody != nil && r.Method == http.MethodPost {
		onBody(b)
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.FlushInterval = -1
	rp.Transport = p.transport
	rp.ServeHTTP(w, r)
}

func (p *proxy) setUpstream(s string) {
	u, _ := url.Parse(s)
	p.mu.Lock()
	p.upstream = u
	p.mu.Unlock()
}

func (p *proxy) reset() {
	p.mu.Lock()
	p.first = time.Time{}
	p.mu.Unlock()
}

func (p *proxy) firstAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}
