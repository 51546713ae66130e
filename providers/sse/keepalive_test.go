package sse

import (
	"strings"
	"testing"
)

// counter is a body that counts the progress it is told of.
type counter struct {
	*strings.Reader
	n int
}

func (c *counter) Progress() { c.n++ }

// Keep-alives (Anthropic's ping, typed or named keepalives, events without
// data) are read like any event but are not progress; content events are.
func TestProgressSkipsKeepAlives(t *testing.T) {
	tests := []struct {
		name     string
		stream   string
		events   int
		progress int
	}{
		{"anthropic ping", "event: ping\ndata: {\"type\": \"ping\"}\n\n", 1, 0},
		{"typed keepalive", "data: {\"type\":\"keepalive\"}\n\n", 1, 0},
		{"named keep-alive", "event: keep-alive\ndata: {}\n\n", 1, 0},
		{"event without data: none, per the standard", "event: message\n\n", 0, 0},
		{"empty data", "event: message\ndata:\n\n", 1, 0},
		{"comment only", ": keep-alive\n\n", 0, 0},
		{"content", "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n", 1, 1},
		{"chat chunk", "data: {\"choices\":[{\"delta\":{\"content\":\"ping\"}}]}\n\n", 1, 1},
		{"done marker", "data: [DONE]\n\n", 1, 1},
		{"last event without its blank line", "data: {\"type\":\"message_stop\"}\n", 1, 1},
		{"stream cut inside the last line", "data: {\"type\":\"message_stop\"}", 0, 0},
		{"mixed", "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: {\"type\":\"x\"}\n\n: c\n\ndata: {\"type\":\"y\"}\n\n", 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &counter{Reader: strings.NewReader(tc.stream)}
			r := NewReader(c)
			events := 0
			for {
				if _, err := r.Next(); err != nil {
					break
				}
				events++
			}
			if events != tc.events || c.n != tc.progress {
				t.Fatalf("events %d, progress %d; want %d and %d", events, c.n, tc.events, tc.progress)
			}
		})
	}
}
