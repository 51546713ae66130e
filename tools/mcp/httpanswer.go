package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// mcp-go's streamable HTTP client gives the handler of a server's request
// 30 s and sends the answer with that same context: a sampling dialog or a
// form left longer was withdrawn as timed out, and an answer after it was
// lost. Sampling and elicitation are answered here instead, bounded by
// the server's tool timeout (a tool call that waits on them is bounded by
// it anyway), and the answer is POSTed as mcp-go posts its own.

// unbounded wraps handle for the streamable HTTP transport sh of cl.
func (c *conn) unbounded(cl *client.Client, sh *transport.StreamableHTTP, handle transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method != string(mcpgo.MethodSamplingCreateMessage) && req.Method != string(mcpgo.MethodElicitationCreate) {
			return handle(ctx, req)
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.toolTimeout())
			defer cancel()
			resp, err := handle(ctx, req)
			if err != nil || resp == nil {
				return // cancelled by the server: not answered
			}
			c.postAnswer(cl, sh, req.Method, resp)
		}()
		return nil, nil // answered above, not by mcp-go
	}
}

// postAnswer sends the answer to a server's request over streamable HTTP.
func (c *conn) postAnswer(cl *client.Client, sh *transport.StreamableHTTP, method string, resp *transport.JSONRPCResponse) {
	body, err := json.Marshal(resp)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.m.ctx, 30*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return
	}
	for k, v := range c.cfg.Headers {
		r.Header.Set(k, v)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if id := sh.GetSessionId(); id != "" {
		r.Header.Set(transport.HeaderKeySessionID, id)
	}
	if v := cl.ProtocolVersion(); v != "" {
		r.Header.Set(transport.HeaderKeyProtocolVersion, v)
	}
	res, err := c.httpClient().Do(r)
	if err != nil {
		c.m.log.Warn("mcp: the answer to a server's request was not sent", "server", c.cfg.Name, "method", method, "err", err)
		return
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusAccepted {
		c.m.log.Warn("mcp: the server refused the answer to its request", "server", c.cfg.Name, "method", method, "status", res.StatusCode)
	}
}
