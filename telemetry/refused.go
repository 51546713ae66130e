package telemetry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

// Before the first export (the metrics at start), probe connects to the
// collector: refused, that export is not made (nothing listens there, and
// encoding it would cost the run for nothing); connected, the export takes
// that connection, so the collector sees no empty connection.
//
// A collector that refused a connection is asked once more, with a bare
// TCP connect, before the last export: refused again, nothing listens
// there, and the last export neither encodes nor sends (it could not be
// delivered); it is logged as not sent. An answer, or no answer within
// probeWait, and the last export goes as usual. The exports before it are
// never skipped: each one dials, so a collector that comes up while the
// agent runs gets what follows.

// probeWait bounds the connect that confirms a refusal: a refused
// connection is answered at once, anything slower is not a refusal.
const probeWait = 100 * time.Millisecond

// dialer wraps the transport's dial to note the address of a refused
// connection (cleared by one that goes through), and to hand it the
// connection probe opened.
func (cn *conn) dialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if p := cn.pre.Swap(nil); p != nil {
			if p.network == network && p.addr == addr {
				return p.c, nil
			}
			_ = p.c.Close()
		}
		c, err := d.DialContext(ctx, network, addr)
		switch {
		case err == nil:
			cn.refused.Store(nil)
			cn.dialed.Store(true)
		case errors.Is(err, syscall.ECONNREFUSED):
			cn.refused.Store(&dialAddr{network, addr})
		}
		return c, err
	}
}

type dialAddr struct{ network, addr string }

type preDialed struct {
	dialAddr
	c net.Conn
}

// probe connects to rawURL's host as the transport would (not through a
// proxy: with one, it does nothing) and keeps the connection for the next
// dial. It reports whether the connection was refused.
func (cn *conn) probe(ctx context.Context, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	if cn.proxy != nil {
		if p, err := cn.proxy(&http.Request{URL: u}); p != nil || err != nil {
			return false
		}
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	c, err := cn.dialer(&net.Dialer{})(ctx, "tcp", addr)
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	if old := cn.pre.Swap(&preDialed{dialAddr{"tcp", addr}, c}); old != nil {
		_ = old.c.Close()
	}
	return false
}

// confirmDown connects again to the address whose dial was refused, if
// any, and marks the connection down when it is refused again.
func (cn *conn) confirmDown(ctx context.Context) {
	a := cn.refused.Load()
	if a == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, a.network, a.addr)
	switch {
	case err == nil:
		_ = c.Close()
		cn.refused.Store(nil)
	case errors.Is(err, syscall.ECONNREFUSED):
		cn.down.Store(a)
	}
}

// notSent is the error of an export skipped because the collector's
// connection is down (confirmDown).
func (s *sender) notSent() error {
	a := s.http.down.Load()
	if a == nil {
		return nil
	}
	return &exportError{What: "OTLP export to " + s.cfg.url, Detail: s.what + " not sent: " + a.addr + " refused the connection twice"}
}

// confirmDown probes each connection whose last dial was refused, at once.
func (cs *clients) confirmDown(ctx context.Context) {
	cs.mu.Lock()
	conns := make([]*conn, 0, len(cs.m))
	for _, cn := range cs.m {
		conns = append(conns, cn)
	}
	cs.mu.Unlock()
	done := make(chan struct{}, len(conns))
	for _, cn := range conns {
		go func() {
			cn.confirmDown(ctx)
			done <- struct{}{}
		}()
	}
	for range conns {
		<-done
	}
}
