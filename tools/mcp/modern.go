package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// Protocol 2026-07-28 is stateless: no initialize handshake, no session;
// every request carries its protocol version and the client's
// capabilities in _meta, and over HTTP the Mcp-Method (and for a call
// Mcp-Name) headers. Which servers are spoken to in it, and how that is
// found out and remembered, is era.go's. A request's answer that asks for
// input (the revision's multi round-trip results) is answered in mrtr.go,
// so the requests the agent sends itself declare what it answers.

// fallsForward reports whether err, the failure of a 2025-11-25 handshake
// sent without server/discover first (era.go's probes), warrants a second
// try that probes: a streamable HTTP server that refused initialize with
// a 4xx (a server known to be of 2025-11-25 that is no longer), or any
// server that answered it with -32022 naming 2026-07-28 among the versions
// it supports (a stdio server of that revision only: the TypeScript SDK
// v2's serveStdio with legacy: 'reject'). A stdio server is started again
// for the second try.
func (c *conn) fallsForward(err error) bool {
	if c.probes() {
		return false // it was probed: initialize was its answer to a refusal
	}
	if c.pinned() != eraUnknown {
		return false // its "protocol" setting says which revision, and no other
	}
	if c.cfg.Type == config.MCPHTTP && errors.Is(err, transport.ErrLegacySSEServer) {
		return true
	}
	var unsupported mcpgo.UnsupportedProtocolVersionError
	return errors.As(err, &unsupported) && slices.ContainsFunc(unsupported.Supported, mcpgo.IsModernProtocol)
}

// stampModern adds to a request the agent builds itself (tools/list,
// tools/call, tasks) what protocol 2026-07-28 requires of every request,
// when cl speaks it: the protocol version, client capabilities and
// client info in _meta, and the standard headers. Other requests go
// through mcp-go's client, which does the same.
func (c *conn) stampModern(cl *client.Client, req *transport.JSONRPCRequest) error {
	v := cl.ProtocolVersion()
	if !mcpgo.IsModernProtocol(v) {
		return nil
	}
	// The params are kept as the JSON they are, only _meta's members
	// added: decoded into Go values, a tool's arguments lost the digits
	// of an integer past 2^53 (float64) and failed on a number past
	// float64's range.
	params := map[string]json.RawMessage{}
	if req.Params != nil {
		b, err := json.Marshal(req.Params)
		if err != nil {
			return fmt.Errorf("%s: %w", req.Method, err)
		}
		if err := json.Unmarshal(b, &params); err != nil {
			return fmt.Errorf("%s: params are not an object: %w", req.Method, err)
		}
		if params == nil { // null
			params = map[string]json.RawMessage{}
		}
	}
	meta := map[string]json.RawMessage{}
	if m, ok := params["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return fmt.Errorf("%s: _meta is not an object: %w", req.Method, err)
		}
		if meta == nil { // null
			meta = map[string]json.RawMessage{}
		}
	}
	for k, val := range map[string]any{
		mcpgo.MetaKeyProtocolVersion:    v,
		mcpgo.MetaKeyClientCapabilities: modernCapabilities(),
		mcpgo.MetaKeyClientInfo:         mcpgo.Implementation{Name: c.m.opts.ClientName, Version: c.m.opts.ClientVersion},
	} {
		b, err := json.Marshal(val)
		if err != nil {
			return fmt.Errorf("%s: %w", req.Method, err)
		}
		meta[k] = b
	}
	mb, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("%s: %w", req.Method, err)
	}
	params["_meta"] = mb
	req.Params = params
	enc, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: %w", req.Method, err)
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	for k, val := range mcpgo.StandardHeaders(v, mcpgo.MCPMethod(req.Method), enc) {
		req.Header.Set(k, val)
	}
	return nil
}

// inputRequired reports whether a result is 2026-07-28's input_required.
func inputRequired(res json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(res, &r) == nil && r.ResultType == "input_required"
}
