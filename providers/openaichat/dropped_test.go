package openaichat

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
)

// TestLostConnectionIsRetried: a turn whose request lost its connection
// before any of the answer came is sent again and answered, as the
// official SDKs and Codex do, instead of ending the turn. The start
// bench's proxy cut answers this way after their headers (its flake, #33);
// a server or a proxy drops a kept-alive connection as a request goes out.
func TestLostConnectionIsRetried(t *testing.T) {
	for _, c := range []struct {
		name string
		// drop is the request (counted from 1) lost, and how.
		drop int
		lose func(w http.ResponseWriter, r *http.Request)
	}{
		{"answer cut after its headers, before any event", 1, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the server closes the connection
		}},
		{"kept-alive connection dropped once the request arrived", 2, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.Close()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := chattest.NewServer(t)
			fake.Script(chattest.Text("one"), chattest.Text("two"))
			var n atomic.Int32
			inner := fake.Config.Handler
			fake.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(n.Add(1)) == c.drop {
					c.lose(w, r)
					return
				}
				inner.ServeHTTP(w, r)
			})
			s := agent.New(agent.Config{
				Provider: New(Options{Name: "fake", BaseURL: fake.BaseURL(), APIKey: fake.APIKey}),
				Model:    "test-model", Backoff: time.Millisecond,
			})
			for i, want := range []string{"one", "two"} {
				var warned bool
				if err := s.Run(t.Context(), "go", func(e agent.Event) { warned = warned || e.Type == agent.EventWarning }); err != nil {
					t.Fatalf("turn %q: %v", want, err)
				}
				h := s.Messages()
				if got := h[len(h)-1].Text(); got != want {
					t.Fatalf("answer %q, want %q", got, want)
				}
				if lost := i == c.drop-1; lost != warned {
					t.Errorf("turn %q: warned = %v, want %v (a retry is told)", want, warned, lost)
				}
			}
			if got := int(n.Load()); got != 3 {
				t.Errorf("requests = %d, want 3 (one lost, sent again)", got)
			}
		})
	}
}
