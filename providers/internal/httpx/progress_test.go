package httpx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/sse"
)

// paced serves a stream that writes each of chunks in turn, every gap,
// and after the last, writes rest over and over until the test ends (nil
// rest: the stream ends).
func paced(t *testing.T, gap time.Duration, chunks []string, rest string) string {
	return hang(t, func(w http.ResponseWriter, release <-chan struct{}) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for i := 0; ; i++ {
			c := rest
			if i < len(chunks) {
				c = chunks[i]
			} else if rest == "" {
				return
			}
			if _, err := io.WriteString(w, c); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-release:
				return
			case <-tick.C:
			}
		}
	})
}

// #26: stream_idle_timeout counts progress, meaning events with content:
// a stream of pings, of comments, or of one byte at a time times out; a
// stream of content events paced under the timeout does not, however long.
func TestStreamIdleCountsEventsNotBytes(t *testing.T) {
	const idle = 400 * time.Millisecond
	content := make([]string, 20) // 20 × 30 ms: longer than idle in all
	for i := range content {
		content[i] = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"x\"}}\n\n"
	}
	oneEvent := "data: {\"type\":\"response.output_text.delta\",\"delta\":\"never ends\"}\n\n"
	var bytewise []string
	for i := range len(oneEvent) - 1 { // never the closing blank line
		bytewise = append(bytewise, oneEvent[i:i+1])
	}
	tests := []struct {
		name     string
		chunks   []string
		rest     string
		wantIdle bool
	}{
		{"anthropic pings", []string{"event: message_start\ndata: {\"type\":\"message_start\"}\n\n"}, "event: ping\ndata: {\"type\": \"ping\"}\n\n", true},
		{"typed keepalive", nil, "data: {\"type\":\"keepalive\"}\n\n", true},
		{"comments", nil, ": keep-alive\n\n", true},
		{"one byte at a time", bytewise, " ", true},
		{"content events", content, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := paced(t, 30*time.Millisecond, tc.chunks, tc.rest)
			c := Client{Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: idle}}
			// The test's own deadline: a stream that never times out
			// fails here instead of hanging.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			resp, err := c.Post(ctx, url, nil, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			start := time.Now()
			rd := sse.NewReader(resp.Body)
			events := 0
			for {
				_, err = rd.Next()
				if err != nil {
					break
				}
				events++
			}
			var te *TimeoutError
			if tc.wantIdle {
				if !errors.As(err, &te) || te.Key != KeyStreamIdle {
					t.Fatalf("after %s and %d events: err = %v, want stream_idle_timeout", time.Since(start), events, err)
				}
				return
			}
			if !errors.Is(err, io.EOF) || events != len(content) {
				t.Fatalf("err = %v after %d events, want all %d and the end", err, events, len(content))
			}
		})
	}
}

// A non-streaming answer trickled a byte at a time gets stream_idle_timeout
// for the whole body, not per byte.
func TestNonStreamingTrickleTimesOut(t *testing.T) {
	url := paced(t, 30*time.Millisecond, nil, "{")
	c := Client{Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: 300 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := c.Post(ctx, url, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != KeyStreamIdle {
		t.Fatalf("err = %v, want stream_idle_timeout", err)
	}
}
