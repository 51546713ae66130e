package httpx

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestConnErrorRetryable: a request whose connection was lost before the
// answer (a kept-alive connection dropped as the request went out, or
// reset) is retryable; one whose connection was never made is not.
func TestConnErrorRetryable(t *testing.T) {
	// dropSecond answers the first request on a connection and drops the
	// connection once it has read the second; reset resets it instead.
	server := func(reset bool) string {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if n.Add(1) == 1 {
				_, _ = io.WriteString(w, `{}`)
				return
			}
			c, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if reset {
				_ = c.(*net.TCPConn).SetLinger(0)
			}
			_ = c.Close()
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		return "http://" + addr
	}
	for _, c := range []struct {
		name      string
		url       func() string
		retryable bool
	}{
		{"kept-alive connection dropped after the request", func() string { return server(false) }, true},
		{"connection reset after the request", func() string { return server(true) }, true},
		{"connection refused", refused, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			cl := Client{HTTP: &http.Client{Transport: tr}, Provider: "p"}
			url := c.url()
			var err error
			for range 2 {
				var resp *http.Response
				if resp, err = cl.Post(context.Background(), url, []byte(`{"a":1}`), true, nil); err != nil {
					break
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
			var ce *ConnError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a ConnError", err)
			}
			if ce.Retryable() != c.retryable {
				t.Fatalf("%v: Retryable() = %v, want %v", err, ce.Retryable(), c.retryable)
			}
		})
	}
}
