// Package httpx is the HTTP layer every provider adapter shares: it posts a
// request under the agent's two provider timeouts, reads a provider's error
// body, and reads the server's retry hint. Adapters keep their own wire
// formats; only this plumbing is common.
//
// The whole API:
//
//	c := httpx.Client{HTTP: o.HTTPClient, Provider: "anthropic",
//		Timeouts: httpx.Timeouts{FirstByte: o.FirstByteTimeout, StreamIdle: o.StreamIdleTimeout}}
//	resp, err := c.Post(ctx, url, body, stream, header) // err may be a *TimeoutError
//	resp, err = c.Get(ctx, url, header)                  // the same, for a GET
//	defer resp.Body.Close()                            // reads may fail with a *TimeoutError
//	if resp.StatusCode/100 != 2 {
//		raw := httpx.ReadErrorBody(resp)      // at most 1 MiB
//		msg := httpx.Snippet(raw)             // trimmed, cut to 500 bytes on a rune boundary
//		ra := httpx.RetryAfter(resp.Header)   // seconds as text, "" when absent or unusable
//	}
package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agent-dev/agent/agent"
)

// Defaults of the two timeouts (config keys first_byte_timeout and
// stream_idle_timeout).
const (
	DefaultFirstByte  = 60 * time.Second
	DefaultStreamIdle = 5 * time.Minute
)

// Timeouts bound a request. Zero values take the defaults.
type Timeouts struct {
	// FirstByte bounds the wait from sending a streaming request to the
	// response headers.
	FirstByte time.Duration
	// StreamIdle bounds every wait for the stream's next event with
	// content once it started (keep-alives and stray bytes do not count),
	// and the wait for the whole answer of a non-streaming request.
	StreamIdle time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.FirstByte <= 0 {
		t.FirstByte = DefaultFirstByte
	}
	if t.StreamIdle <= 0 {
		t.StreamIdle = DefaultStreamIdle
	}
	return t
}

// Config keys named by TimeoutError.
const (
	KeyFirstByte  = "first_byte_timeout"
	KeyStreamIdle = "stream_idle_timeout"
)

// TimeoutError says which timeout fired and how to change it. It is
// retryable: the core retries it while nothing has streamed.
type TimeoutError struct {
	// Key is KeyFirstByte or KeyStreamIdle.
	Key   string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	what := "no answer"
	if e.Key == KeyStreamIdle {
		what = "the stream stalled: nothing arrived"
	}
	return fmt.Sprintf("%s for %s (%s); retry, or raise %q in the config file (a duration such as \"%s\")",
		what, e.After, e.Key, e.Key, 2*e.After)
}

// Timeout reports true: a TimeoutError is a net.Error, so the core files it
// under its timeout kind.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary reports true (net.Error).
func (e *TimeoutError) Temporary() bool { return true }

var _ net.Error = (*TimeoutError)(nil)

// Is makes errors.Is(err, agent.ErrTimeout) hold: its kind is timeout.
func (e *TimeoutError) Is(target error) bool { return target == agent.ErrTimeout }

// Retryable reports true: the same request may well succeed.
func (e *TimeoutError) Retryable() bool { return true }

// ConnError is a request that got no answer: sending it or waiting for the
// response's headers failed. It is retryable when a connection was made
// and then lost (closed or reset) before any of the answer came: a
// kept-alive connection the server, or a proxy, dropped as the request
// went out. Nothing of the answer was read, and the official SDKs send
// such a request again (openai-go, anthropic-sdk-go: a request without a
// response is retried); Go's transport does so itself only when nothing
// of the request was written yet. A connection never made (refused, no
// such host) is not retried: a server not running or a mistyped
// --base-url, told at once with its hint.
type ConnError struct{ Err error }

func (e *ConnError) Error() string { return e.Err.Error() }

func (e *ConnError) Unwrap() error { return e.Err }

// Retryable reports whether the connection was lost after it was made.
func (e *ConnError) Retryable() bool {
	var op *net.OpError
	if errors.As(e.Err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return false
	}
	return errors.Is(e.Err, io.EOF) || errors.Is(e.Err, io.ErrUnexpectedEOF) || errors.Is(e.Err, net.ErrClosed) ||
		errors.Is(e.Err, syscall.ECONNRESET) || errors.Is(e.Err, syscall.EPIPE) || errors.Is(e.Err, syscall.ECONNABORTED)
}

// Client posts requests for one provider.
type Client struct {
	// HTTP defaults to a client without an overall timeout: a stream lasts
	// as long as the answer, and Timeouts bound the waits inside it.
	HTTP *http.Client
	// Provider names the provider in errors ("anthropic").
	Provider string
	Timeouts Timeouts
}

// Post sends body to url with header (Content-Type defaults to
// application/json; Accept to text/event-stream when stream is set, else
// application/json). A non-2xx answer is returned as a response, not an
// error. The response body fails a read with a *TimeoutError once
// StreamIdle passes without an event (read through package sse, which
// reports progress) or, for a non-streaming request, once StreamIdle passes
// before the whole answer; the caller must close it.
func (c Client) Post(ctx context.Context, url string, body []byte, stream bool, header http.Header) (*http.Response, error) {
	return c.PostParts(ctx, url, [][]byte{body}, stream, header)
}

// PostParts is Post with the body given as parts sent one after another:
// a large request (a tools array rendered once per conversation between
// the rest of the body) is written without being copied into one buffer
// on every request.
func (c Client) PostParts(ctx context.Context, url string, parts [][]byte, stream bool, header http.Header) (*http.Response, error) {
	return c.send(ctx, http.MethodPost, url, parts, stream, header)
}

// Get sends a GET to url with header (Accept defaults to
// application/json), bounded as a non-streaming Post: StreamIdle for the
// whole answer. A non-2xx answer is returned as a response, not an error.
func (c Client) Get(ctx context.Context, url string, header http.Header) (*http.Response, error) {
	return c.send(ctx, http.MethodGet, url, nil, false, header)
}

func (c Client) send(ctx context.Context, method, url string, parts [][]byte, stream bool, header http.Header) (*http.Response, error) {
	t := c.Timeouts.withDefaults()
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithCancelCause(ctx)
	if sent := agent.SentHook(ctx); sent != nil {
		// The session waits for the request to be written, not answered:
		// work it holds back while the request goes out runs then.
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				sent()
			}
		}})
	}
	size := int64(0)
	for _, p := range parts {
		size += int64(len(p))
	}
	newBody := func() io.ReadCloser {
		rs := make([]io.Reader, len(parts))
		for i, p := range parts {
			rs[i] = bytes.NewReader(p)
		}
		return io.NopCloser(io.MultiReader(rs...))
	}
	req, err := http.NewRequestWithContext(ctx, method, url, newBody())
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("%s: build request: %w", c.Provider, err)
	}
	req.ContentLength = size
	req.GetBody = func() (io.ReadCloser, error) { return newBody(), nil }
	if size == 0 {
		req.Body, req.GetBody = http.NoBody, nil
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if method == http.MethodPost && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		if stream {
			req.Header.Set("Accept", "text/event-stream")
		} else {
			req.Header.Set("Accept", "application/json")
		}
	}
	first := &TimeoutError{Key: KeyFirstByte, After: t.FirstByte}
	if !stream {
		// The answer comes whole: the first byte is the last.
		first = &TimeoutError{Key: KeyStreamIdle, After: t.StreamIdle}
	}
	timer := time.AfterFunc(first.After, func() { cancel(first) })
	resp, err := hc.Do(req)
	timer.Stop()
	if err != nil {
		var te *TimeoutError
		cause := context.Cause(ctx)
		cancel(nil)
		if errors.As(cause, &te) {
			return nil, fmt.Errorf("%s: %w", c.Provider, te)
		}
		return nil, fmt.Errorf("%s: send request: %w", c.Provider, &ConnError{Err: err})
	}
	g := &guard{rc: resp.Body, ctx: ctx, cancel: cancel, idle: &TimeoutError{Key: KeyStreamIdle, After: t.StreamIdle}}
	g.timer = time.AfterFunc(t.StreamIdle, func() { cancel(g.idle) })
	resp.Body = g
	return resp, nil
}

// guard is a response body that fails once idle passes without progress.
// Bytes are not progress: a server (or a proxy) sending keep-alives, or
// one byte a second, would hold a turn forever. A stream's reader (package
// sse) reports each event with content through Progress; a non-streaming
// answer gets idle for the whole body.
type guard struct {
	rc     io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *TimeoutError
	timer  *time.Timer
	once   sync.Once
}

// Progress restarts the idle wait: an event with content arrived.
func (g *guard) Progress() { g.timer.Reset(g.idle.After) }

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.rc.Read(p)
	if err != nil && err != io.EOF {
		var te *TimeoutError
		if errors.As(context.Cause(g.ctx), &te) {
			return n, te
		}
	}
	return n, err
}

func (g *guard) Close() error {
	g.once.Do(func() {
		g.timer.Stop()
		g.cancel(nil)
	})
	return g.rc.Close()
}

// ErrorBodyLimit is how much of an error body ReadErrorBody reads.
const ErrorBodyLimit = 1 << 20

// ReadErrorBody reads at most ErrorBodyLimit bytes of a failed response.
func ReadErrorBody(resp *http.Response) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, ErrorBodyLimit))
	return b
}

// SnippetLimit is the longest Snippet in bytes, before its ellipsis.
const SnippetLimit = 500

// Snippet is an error body as a message: trimmed and cut to SnippetLimit
// bytes on a rune boundary, with "…" when cut.
func Snippet(body []byte) string {
	return Cut(strings.TrimSpace(string(body)), SnippetLimit)
}

// Cut shortens s to at most n bytes without splitting a UTF-8 character,
// adding "…" when it cut.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// RetryAfter reads the server's retry hint: retry-after-ms (OpenAI's precise
// form) or retry-after in seconds or as an HTTP date. It returns seconds as
// text, or "" when there is none or it is not a finite, non-negative number
// of seconds that fits a time.Duration (the caller then backs off as usual).
func RetryAfter(h http.Header) string {
	if ms := strings.TrimSpace(h.Get("retry-after-ms")); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && usable(v/1000) {
			return strconv.FormatFloat(v/1000, 'f', -1, 64)
		}
	}
	ra := strings.TrimSpace(h.Get("retry-after"))
	if ra == "" {
		return ""
	}
	if v, err := strconv.ParseFloat(ra, 64); err == nil {
		if usable(v) {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return ""
	}
	if at, err := http.ParseTime(ra); err == nil {
		v := time.Until(at).Seconds()
		if v < 0 {
			v = 0
		}
		if usable(v) {
			return strconv.FormatFloat(math.Ceil(v), 'f', -1, 64)
		}
	}
	return ""
}

// usable reports whether secs is finite, non-negative and fits a Duration.
func usable(secs float64) bool {
	return !math.IsNaN(secs) && !math.IsInf(secs, 0) && secs >= 0 && secs < float64(math.MaxInt64)/float64(time.Second)
}
