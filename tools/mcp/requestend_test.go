package mcp

import (
	"context"
	"testing"
	"time"
)

// endHost holds each sampling request until its context ends and reports
// why it ended, as the TUI's dialog says it.
type endHost struct {
	gateHost
	started chan struct{}
	why     chan string
}

func (h *endHost) Sample(ctx context.Context, r SamplingRequest) (SamplingAnswer, error) {
	h.started <- struct{}{}
	<-ctx.Done()
	h.why <- RequestEnded(ctx)
	return SamplingAnswer{}, ctx.Err()
}

// A sampling request the server cancels, or whose connection drops (the
// process exits: markDown; the manager closes: close), ends its context
// with a cause the withdrawn dialog names. The drop used to leave a stdio
// server's request, and its dialog, waiting for ever: the transport's
// context lives as long as the manager.
func TestServerRequestEnds(t *testing.T) {
	t.Parallel()
	sampling := map[string]any{"maxTokens": 5, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}
	for _, tc := range []struct {
		name string
		end  func(s *rawServer, id int)
		want string
	}{
		{"server cancels", func(s *rawServer, id int) {
			s.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "done"})
		}, "the server cancelled its request"},
		{"connection closed", func(s *rawServer, _ int) {
			s.c.mu.Lock()
			s.c.cl, s.c.state = s.cl, StateRunning
			s.c.mu.Unlock()
			s.c.close()
		}, "the connection to the server was lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &endHost{gateHost: *newGateHost(), started: make(chan struct{}, 1), why: make(chan string, 1)}
			s := newRawServer(t, h)
			s.send("sampling/createMessage", sampling)
			s.mu.Lock()
			id := s.nextID
			s.mu.Unlock()
			select {
			case <-h.started:
			case <-time.After(10 * time.Second):
				t.Fatal("the sampling request never reached the host")
			}
			tc.end(s, id)
			select {
			case why := <-h.why:
				if why != tc.want {
					t.Errorf("ended because %q, want %q", why, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the request's context never ended: its dialog would stay up")
			}
		})
	}
}
