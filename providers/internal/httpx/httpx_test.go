package httpx

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/sse"
)

// hang serves a handler that blocks until the test ends.
func hang(t *testing.T, h func(w http.ResponseWriter, release <-chan struct{})) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, release)
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL
}

func TestFirstByteTimeout(t *testing.T) {
	url := hang(t, func(w http.ResponseWriter, release <-chan struct{}) { <-release })
	c := Client{Provider: "p", Timeouts: Timeouts{FirstByte: 50 * time.Millisecond, StreamIdle: time.Hour}}
	start := time.Now()
	_, err := c.Post(context.Background(), url, []byte(`{}`), true, nil) //nolint:bodyclose // it times out: no response
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != KeyFirstByte {
		t.Fatalf("err = %v, want a first_byte_timeout TimeoutError", err)
	}
	if !te.Retryable() || !te.Timeout() {
		t.Fatal("a timeout must be retryable")
	}
	if !strings.Contains(err.Error(), `raise "first_byte_timeout" in the config file`) || !strings.HasPrefix(err.Error(), "p: ") {
		t.Fatalf("message does not say how to change it: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestNonStreamingWaitIsBoundByIdle(t *testing.T) {
	url := hang(t, func(w http.ResponseWriter, release <-chan struct{}) { <-release })
	c := Client{Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: 50 * time.Millisecond}}
	_, err := c.Post(context.Background(), url, nil, false, nil) //nolint:bodyclose // it times out: no response
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != KeyStreamIdle {
		t.Fatalf("err = %v, want stream_idle_timeout", err)
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	url := hang(t, func(w http.ResponseWriter, release <-chan struct{}) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 3; i++ {
			_, _ = io.WriteString(w, "data: {}\n\n")
			w.(http.Flusher).Flush()
		}
		<-release
	})
	c := Client{Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: 100 * time.Millisecond}}
	resp, err := c.Post(context.Background(), url, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != KeyStreamIdle {
		t.Fatalf("err = %v, want stream_idle_timeout", err)
	}
	if !strings.Contains(string(b), "data: {}") {
		t.Fatalf("data before the stall lost: %q", b)
	}
	if !strings.Contains(err.Error(), "stream_idle_timeout") {
		t.Fatal(err)
	}
}

func TestSteadyStreamOutlivesIdle(t *testing.T) {
	// Each gap is below the idle timeout, the whole stream above it.
	url := hang(t, func(w http.ResponseWriter, release <-chan struct{}) {
		for i := 0; i < 12; i++ {
			_, _ = io.WriteString(w, "data: x\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	c := Client{Timeouts: Timeouts{StreamIdle: 400 * time.Millisecond}}
	resp, err := c.Post(context.Background(), url, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := sse.NewReader(resp.Body) // events are the progress that counts
	for {
		if _, err := rd.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

func TestHeaders(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header }))
	defer srv.Close()
	resp, err := Client{}.Post(context.Background(), srv.URL, nil, true, http.Header{"X-Api-Key": {"k"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-got
	if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "text/event-stream" || h.Get("X-Api-Key") != "k" {
		t.Fatalf("headers %v", h)
	}
}

// Get sends a bodiless GET asking for JSON, with the caller's headers, and
// is bounded as a non-streaming Post.
func TestGet(t *testing.T) {
	got := make(chan *http.Request, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	resp, err := Client{}.Get(context.Background(), srv.URL+"/models", http.Header{"X-Api-Key": {"k"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-got
	if r.Method != http.MethodGet || r.ContentLength != 0 || r.Header.Get("Content-Type") != "" ||
		r.Header.Get("Accept") != "application/json" || r.Header.Get("X-Api-Key") != "k" || resp.StatusCode != 404 {
		t.Fatalf("%s %d, headers %v, status %d", r.Method, r.ContentLength, r.Header, resp.StatusCode)
	}
	url := hang(t, func(w http.ResponseWriter, release <-chan struct{}) { <-release })
	c := Client{Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: 50 * time.Millisecond}}
	_, err = c.Get(context.Background(), url, nil) //nolint:bodyclose // it times out: no response
	var te *TimeoutError
	if !errors.As(err, &te) || te.Key != KeyStreamIdle {
		t.Fatalf("err = %v, want stream_idle_timeout", err)
	}
}

func TestCutOnRuneBoundary(t *testing.T) {
	s := strings.Repeat("a", 499) + "é" + "tail" // é straddles byte 500
	got := Cut(s, 500)
	if !utf8.ValidString(got) || got != strings.Repeat("a", 499)+"…" {
		t.Fatalf("Cut = %q", got[490:])
	}
	if Cut("short", 500) != "short" {
		t.Fatal("short text changed")
	}
	if got := Snippet([]byte("  " + strings.Repeat("日本", 300) + "  ")); !utf8.ValidString(got) || len(got) > SnippetLimit+len("…") {
		t.Fatalf("Snippet = %q", got)
	}
}

func TestRetryAfter(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	for _, c := range []struct {
		h    http.Header
		want string
	}{
		{http.Header{"Retry-After": {"3"}}, "3"},
		{http.Header{"Retry-After": {"1.5"}}, "1.5"},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, "0.25"},
		{http.Header{"Retry-After-Ms": {"junk"}, "Retry-After": {"9"}}, "9"},
		{http.Header{"Retry-After": {"86400"}}, "86400"},
		{http.Header{"Retry-After": {"inf"}}, ""},
		{http.Header{"Retry-After": {"NaN"}}, ""},
		{http.Header{"Retry-After": {"-4"}}, ""},
		{http.Header{"Retry-After": {"1e12"}}, ""},
		{http.Header{"Retry-After": {"soon"}}, ""},
		{http.Header{}, ""},
	} {
		if got := RetryAfter(c.h); got != c.want {
			t.Errorf("RetryAfter(%v) = %q, want %q", c.h, got, c.want)
		}
	}
	got := RetryAfter(http.Header{"Retry-After": {future}})
	if got == "" || got > "91" || got < "88" {
		t.Errorf("HTTP date: %q", got)
	}
	if usable(math.Inf(1)) || usable(float64(math.MaxInt64)) {
		t.Fatal("usable")
	}
}

// A request's SentHook is called once the request has been written, before
// the server answers: the server here answers only after it.
func TestSentHookBeforeTheAnswer(t *testing.T) {
	sent := make(chan struct{})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != `{"a":1}` {
			t.Errorf("body %q", b)
		}
		select {
		case <-sent:
		case <-time.After(10 * time.Second): // answered anyway: the test fails below
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	ctx := agent.WithSentHook(t.Context(), func() {
		if n.Add(1) == 1 {
			close(sent)
		}
	})
	c := Client{Provider: "p", Timeouts: Timeouts{FirstByte: time.Hour, StreamIdle: time.Hour}}
	resp, err := c.PostParts(ctx, srv.URL, [][]byte{[]byte(`{"a"`), []byte(`:1}`)}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n.Load() != 1 {
		t.Errorf("the hook was called %d times, want 1", n.Load())
	}
}
