package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// mcp-go's legacy SSE client reads every "message" event with an id as the
// answer to one of its own requests: a server's request (sampling,
// elicitation, roots, ping) was dropped, or, when its id matched a request
// of the client's still waiting, taken for that request's answer. So the
// SSE stream is read through sseTap, which takes the server's requests off
// the stream before mcp-go sees it, answers them with the handler every
// other transport uses (serveRequests), and POSTs the answers to the
// session's message endpoint as the transport posts its own requests.

// sseClient is the HTTP client of an SSE server's transport.
func (c *conn) sseClient() *http.Client {
	hc := c.httpClient()
	hc.Transport = sseTap{base: hc.Transport, c: c}
	return hc
}

// sseTap filters the event streams of an SSE connection.
type sseTap struct {
	base http.RoundTripper
	c    *conn
}

func (t sseTap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	resp.Body = &sseFilter{rc: resp.Body, br: bufio.NewReader(resp.Body), c: t.c}
	return resp, nil
}

// sseFilter passes an event stream on event by event, less the events that
// are a server's requests, which it hands to the connection.
type sseFilter struct {
	rc  io.ReadCloser
	br  *bufio.Reader
	c   *conn
	out []byte // what is passed on and not yet read
	err error
}

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 && f.err == nil {
		f.next()
	}
	if len(f.out) > 0 {
		n := copy(p, f.out)
		f.out = f.out[n:]
		return n, nil
	}
	return 0, f.err
}

func (f *sseFilter) Close() error { return f.rc.Close() }

// next reads one event (its lines up to the blank line that ends it) into
// out, or hands it to the connection when it is a request.
func (f *sseFilter) next() {
	var event []byte
	var data [][]byte
	name := "message"
	for {
		line, err := f.br.ReadBytes('\n')
		event = append(event, line...)
		if err != nil {
			f.out, f.err = event, err
			return
		}
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 {
			break
		}
		switch {
		case bytes.HasPrefix(text, []byte("event:")):
			name = string(bytes.TrimSpace(text[len("event:"):]))
		case bytes.HasPrefix(text, []byte("data:")):
			d := text[len("data:"):]
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	if name == "message" && len(data) > 0 {
		if req, ok := serverRequest(bytes.Join(data, []byte("\n"))); ok {
			go f.c.answerSSE(req)
			return
		}
	}
	f.out = event
}

// serverRequest reads msg as a request of the server's: a method and an id.
func serverRequest(msg []byte) (transport.JSONRPCRequest, bool) {
	var req transport.JSONRPCRequest
	if !bytes.Contains(msg, []byte(`"method"`)) || json.Unmarshal(msg, &req) != nil || req.Method == "" || req.ID.IsNil() {
		return req, false
	}
	return req, true
}

// answerSSE answers a request an SSE stream brought and posts the answer
// to the connection's message endpoint.
func (c *conn) answerSSE(req transport.JSONRPCRequest) {
	c.mu.Lock()
	handle, cl := c.reqs.handle, c.reqs.cl
	c.mu.Unlock()
	if handle == nil || cl == nil {
		c.m.log.Warn("mcp: a request from the server before the client could answer it", "server", c.cfg.Name, "method", req.Method)
		return
	}
	resp, err := handle(c.m.ctx, req)
	if err != nil || resp == nil {
		return // cancelled by the server: not answered
	}
	sse, ok := cl.GetTransport().(*transport.SSE)
	if !ok || sse.GetEndpoint() == nil {
		return
	}
	body, err := json.Marshal(resp)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.m.ctx, 30*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, sse.GetEndpoint().String(), bytes.NewReader(body))
	if err != nil {
		return
	}
	r.Header.Set("Content-Type", "application/json")
	for k, v := range c.cfg.Headers {
		r.Header.Set(k, v)
	}
	res, err := c.httpClient().Do(r)
	if err != nil {
		c.m.log.Warn("mcp: the answer to a server's request was not sent", "server", c.cfg.Name, "method", req.Method, "err", err)
		return
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	if res.StatusCode >= 300 {
		c.m.log.Warn("mcp: the server refused the answer to its request", "server", c.cfg.Name, "method", req.Method, "status", res.StatusCode)
	}
}
