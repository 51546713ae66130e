package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Two requests in flight on the old session of a restarted server: the
// first one rejected renews the session; the other, still waiting for its
// answer, is not cut by the old client's close but gets its own rejection
// and is sent again on the new session. The server here answers the second
// rejection only once the new session is up (as a slower answer would be):
// the old client was closed before, and the request failed with "context
// canceled". The notice says the server is connected again.
func TestHTTPSessionRenewedWithAnotherInFlight(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			srv := newRestartable(t, newTSSessions(status, "", true))
			m, ev, set := srv.start()
			send := sessionRequests["resources/read"]
			if _, err := send(t, m, set); err != nil {
				t.Fatalf("before the restart: %v", err)
			}
			second := newTSSessions(status, "", true)
			var mu sync.Mutex
			old := 0                       // requests on the old session so far
			both := make(chan struct{})    // both are in flight
			renewed := make(chan struct{}) // the new session is up
			var bothOnce, renewedOnce sync.Once
			srv.restart(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var msg struct{ Method string }
				_ = json.Unmarshal(body, &msg)
				id := r.Header.Get("Mcp-Session-Id")
				second.mu.Lock()
				stale := id != "" && !second.known[id]
				second.mu.Unlock()
				if stale && msg.Method == "resources/read" {
					mu.Lock()
					old++
					n := old
					mu.Unlock()
					wait := renewed
					if n == 1 {
						wait = both // the first is answered once the other is sent
					} else {
						bothOnce.Do(func() { close(both) })
					}
					select {
					case <-wait:
					case <-r.Context().Done():
						return
					case <-time.After(10 * time.Second): // the test fails below
					}
				}
				second.ServeHTTP(w, r)
				if msg.Method == "notifications/initialized" {
					renewedOnce.Do(func() { close(renewed) })
				}
			}))
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					if got, err := send(t, m, set); err != nil {
						t.Errorf("after the restart: %q, %v", got, err)
					}
				})
			}
			wg.Wait()
			// The user is told the server is being connected again, not
			// that it stopped until a next call.
			down := ev.wait(t, "server_down", func(e Event) bool { return e.Kind == EventServerDown })
			if want := "MCP server ts did not accept its session (HTTP " + strconv.Itoa(status) + "), as after a restart: connecting with a new session"; down.Text != want {
				t.Errorf("the notice %q, want %q", down.Text, want)
			}
		})
	}
}
