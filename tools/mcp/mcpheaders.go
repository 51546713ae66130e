package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// Headers from tool parameters (protocol 2026-07-28, SEP-2243). A tool's
// inputSchema may mark a property with "x-mcp-header": NAME; a tools/call
// over streamable HTTP then carries the argument's value as the header
// Mcp-Param-NAME too, so that gateways and load balancers can route on it
// without reading the body (and the server checks that the two agree). A
// string is sent as it is when it is visible ASCII without surrounding
// whitespace, else as =?base64?...?= of its UTF-8 bytes (as is a plain
// value that looks like that wrapper); an integer in decimal; a boolean as
// true or false; a null or absent argument sends no header. mcp-go's codec
// (mcpgo.GenerateParamHeaders) does the encoding: the agent sends
// tools/call itself (progress.go), so it adds the headers itself.
//
// The annotation's rules: a non-empty HTTP token (no space, colon, control
// or non-ASCII character), unique among the schema's annotations ignoring
// case, and only on a string, integer or boolean property (not number, not
// an object or array). A client over streamable HTTP must not use a tool
// that breaks them: such a tool is hidden (hiddenReason), listed with why
// by agent tools, agent mcp list and /mcp, and never offered to the model.
// Other transports have no headers, and their tools are left alone; so
// are those of a server known to speak 2025-11-25, which is sent none.

// mentionsHeader reports whether a schema may carry an x-mcp-header
// annotation: the check that keeps the schemas of the other tools (nearly
// all) from being decoded. A key spelt with \u escapes is not seen; no
// SDK writes one, and the tool's call would only lack the header.
func mentionsHeader(schema json.RawMessage) bool {
	return bytes.Contains(schema, []byte("x-mcp-header"))
}

// headerProblem is why the tool cannot be used on this server because of
// its x-mcp-header annotations ("" when it can). The verdict is kept per
// tool and schema: mcp-go's check re-encodes and decodes the whole schema,
// and every status, registration and listing asks again; a run at 282
// tools asked four times for each of the github server's annotated tools,
// about 12 ms of CPU a run before the first request.
func (c *conn) headerProblem(t rawTool) string {
	// A server known to speak 2025-11-25 gets no Mcp-Param headers: the
	// annotation means nothing there, and its tools are used as before.
	// (An era not yet known is taken as 2026-07-28's.)
	if c.cfg.Type != config.MCPHTTP || c.getEra() == eraLegacy || !mentionsHeader(t.Schema) {
		return ""
	}
	c.hdrMu.Lock()
	v, ok := c.hdr[t.Name]
	c.hdrMu.Unlock()
	// The same list's schema is the same slice, which bytes.Equal finds
	// equal without reading it; another list's is compared whole.
	if ok && bytes.Equal(v.schema, t.Schema) {
		return v.reason
	}
	reason := c.checkHeaders(t)
	c.hdrMu.Lock()
	if c.hdr == nil {
		c.hdr = make(map[string]headerVerdict)
	}
	c.hdr[t.Name] = headerVerdict{schema: t.Schema, reason: reason}
	c.hdrMu.Unlock()
	return reason
}

// headerVerdict is headerProblem's answer for one schema of a tool.
type headerVerdict struct {
	schema json.RawMessage
	reason string
}

// checkHeaders is headerProblem's check itself.
func (c *conn) checkHeaders(t rawTool) string {
	err := mcpgo.ValidateParamHeaderAnnotations(&mcpgo.Tool{Name: t.Name, RawInputSchema: t.Schema})
	if err == nil {
		return ""
	}
	// mcp-go's message quotes the server's names and values (%q): no
	// control character of theirs reaches the terminal.
	reason := fmt.Sprintf("its inputSchema's x-mcp-header is invalid (%v): a client over streamable HTTP must not use it (MCP 2026-07-28, SEP-2243)", err)
	if _, warned := headerWarned.LoadOrStore(c.cfg.Name+"\x00"+t.Name+"\x00"+reason, true); !warned {
		c.m.log.Warn("mcp: a tool is not offered: invalid x-mcp-header", "server", c.cfg.Name, "tool", t.Name, "err", err)
	}
	return reason
}

// headerWarned: the tools whose invalid annotation was logged, once each
// (hiddenReason is asked at every listing and status).
var headerWarned sync.Map

// paramHeaders adds the Mcp-Param-* headers of a tools/call of protocol
// 2026-07-28 over streamable HTTP.
func (c *conn) paramHeaders(cl *client.Client, req *transport.JSONRPCRequest, tool string) error {
	if c.cfg.Type != config.MCPHTTP || !mcpgo.IsModernProtocol(cl.ProtocolVersion()) {
		return nil
	}
	t, ok := c.rawTool(tool)
	if !ok || !mentionsHeader(t.Schema) {
		return nil
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return fmt.Errorf("%s: %w", req.Method, err)
	}
	hs := mcpgo.GenerateParamHeaders(&mcpgo.Tool{Name: t.Name, RawInputSchema: t.Schema}, params)
	if len(hs) == 0 {
		return nil
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	for k, v := range hs {
		req.Header.Set(k, v)
	}
	return nil
}
