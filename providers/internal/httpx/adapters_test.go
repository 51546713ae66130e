package httpx_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/internal/httpx"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openairesponses"
)

// adapters builds each adapter against url with short timeouts.
func adapters(url string, first, idle time.Duration) map[string]agent.Provider {
	return map[string]agent.Provider{
		"anthropic": anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url, FirstByteTimeout: first, StreamIdleTimeout: idle}),
		"openai":    openairesponses.New(openairesponses.Options{APIKey: "k", BaseURL: url, FirstByteTimeout: first, StreamIdleTimeout: idle}),
		"chat":      openaichat.New(openaichat.Options{APIKey: "k", BaseURL: url, FirstByteTimeout: first, StreamIdleTimeout: idle}),
	}
}

func request() *agent.Request {
	return &agent.Request{Model: "m", MaxTokens: 10, Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}}}
}

func TestAdaptersTimeOut(t *testing.T) {
	release := make(chan struct{})
	var stall atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stall.Load() {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, ": ping\n\n")
			w.(http.Flusher).Flush()
		}
		<-release
	}))
	defer srv.Close()
	defer close(release)

	for name, p := range adapters(srv.URL, 50*time.Millisecond, time.Hour) {
		_, err := p.Send(context.Background(), request(), nil)
		var te *httpx.TimeoutError
		if !errors.As(err, &te) || te.Key != httpx.KeyFirstByte || !strings.Contains(err.Error(), "first_byte_timeout") {
			t.Errorf("%s: err = %v, want first_byte_timeout", name, err)
		}
		var re interface{ Retryable() bool }
		if !errors.As(err, &re) || !re.Retryable() {
			t.Errorf("%s: a timeout must be retryable", name)
		}
	}
	stall.Store(true)
	for name, p := range adapters(srv.URL, time.Hour, 80*time.Millisecond) {
		_, err := p.Send(context.Background(), request(), nil)
		var te *httpx.TimeoutError
		if !errors.As(err, &te) || te.Key != httpx.KeyStreamIdle || !strings.Contains(err.Error(), "stream_idle_timeout") {
			t.Errorf("%s: err = %v, want stream_idle_timeout", name, err)
		}
	}
}

func TestAdaptersCutErrorBodyOnRuneBoundary(t *testing.T) {
	body := strings.Repeat("a", 499) + "é" + strings.Repeat("b", 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after", "inf")
		w.WriteHeader(502)
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	for name, p := range adapters(srv.URL, 0, 0) {
		_, err := p.Send(context.Background(), request(), nil)
		var ae *agent.APIError
		if !errors.As(err, &ae) {
			t.Fatalf("%s: %v", name, err)
		}
		if ae.Message != strings.Repeat("a", 499)+"…" {
			t.Errorf("%s: message %q", name, ae.Message[480:])
		}
		if ae.RetryAfter != "" {
			t.Errorf("%s: retry-after inf passed on as %q", name, ae.RetryAfter)
		}
	}
}

// A provider timeout reaches the caller of a turn as the timeout kind,
// after the core retried it.
func TestTimeoutIsTheTimeoutKind(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL, FirstByteTimeout: 30 * time.Millisecond})
	s := agent.New(agent.Config{Provider: p, Model: "claude-sonnet-4-5", Retries: 1, Backoff: time.Millisecond})
	err := s.Run(context.Background(), "hi", func(agent.Event) {})
	if !errors.Is(err, agent.ErrTimeout) || !strings.Contains(err.Error(), "first_byte_timeout") {
		t.Fatalf("err = %v, want the timeout kind naming first_byte_timeout", err)
	}
	if hits.Load() != 2 {
		t.Errorf("requests = %d, want 2 (one retry)", hits.Load())
	}
}
