package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// A server's "protocol" setting (config.MCPServer.Protocol) overrides the
// era detection of era.go: "2025-11-25" speaks initialize only, never a
// probe; "2026-07-28" speaks that revision only, and a server that does
// not answer server/discover fails its start instead of being sent
// initialize. It is the way out for a server of both eras whose tools
// send requests of their own (elicitation/create, sampling/createMessage,
// roots/list), which 2026-07-28 does not have: mcp-go 1.2 refuses them
// inside the handler in that revision, and the call fails.
//
// The agent cannot tell such a failure from any other without matching
// the server's words: mcp-go answers the handler's error as -32603 with
// the error's text and no data (server/handler_errors.go), a handler that
// catches it answers an isError result, and the 2026-07-28 schema defines
// no error code for it (-32021 is a capability the client did not
// declare; the agent declares elicitation, sampling and roots). Nor would
// the call be safe to send again in 2025-11-25: the handler ran up to its
// request, and whatever it did before (a write, a payment) would be done
// twice. So the agent does not fall back by itself; a call of a server of
// both eras that fails in 2026-07-28 names the setting (protocolHint).

// pinned is the era the server's "protocol" setting fixes, eraUnknown for
// "auto" (era.go decides).
func (c *conn) pinned() era {
	switch c.cfg.Protocol {
	case config.ProtocolLegacy:
		return eraLegacy
	case config.ProtocolModern:
		return eraModern
	}
	return eraUnknown
}

// eraGuard is what a transport that may carry either era's handshake
// (eitherEra over streamable HTTP, procTransport over stdio) does with
// it: it notes whether server/discover named revisions of both eras, and
// refuses to send initialize for a server set to 2026-07-28 only.
type eraGuard struct {
	// modernOnly: the server's "protocol" is "2026-07-28".
	modernOnly bool
	// both is the connection's: server/discover listed a revision of
	// each era (protocolHint).
	both *atomic.Bool
	// probe says how server/discover failed, for the refusal of
	// initialize after it. mcp-go's client sends the two one after the
	// other from one goroutine.
	probe string
}

// guard is the era guard of a new connection of c.
func (c *conn) guard() *eraGuard {
	c.bothEras.Store(false)
	return &eraGuard{modernOnly: c.pinned() == eraModern, both: &c.bothEras}
}

// send passes req to send, the transport's own SendRequest, minding the
// handshake (see eraGuard).
func (g *eraGuard) send(ctx context.Context, req transport.JSONRPCRequest,
	send func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error)) (*transport.JSONRPCResponse, error) {
	if g == nil {
		return send(ctx, req)
	}
	switch req.Method {
	case string(mcpgo.MethodInitialize):
		if g.modernOnly {
			return nil, notModernError{probe: g.probe}
		}
	case string(mcpgo.MethodServerDiscover):
		resp, err := send(ctx, req)
		g.discovered(resp, err)
		return resp, err
	}
	return send(ctx, req)
}

// discovered notes server/discover's answer.
func (g *eraGuard) discovered(resp *transport.JSONRPCResponse, err error) {
	switch {
	case err != nil:
		g.probe = err.Error()
		return
	case resp == nil:
		g.probe = "no answer"
		return
	case resp.Error != nil:
		g.probe = fmt.Sprintf("%s (%d)", resp.Error.Message, resp.Error.Code)
		return
	}
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(resp.Result, &r) != nil {
		g.probe = "an unreadable answer"
		return
	}
	g.probe = ""
	modern := slices.ContainsFunc(r.SupportedVersions, mcpgo.IsModernProtocol)
	legacy := slices.ContainsFunc(r.SupportedVersions, func(v string) bool {
		return mcpgo.IsValidProtocolVersion(v) && !mcpgo.IsModernProtocol(v)
	})
	g.both.Store(modern && legacy)
}

// notModernError is the start of a server set to "protocol": "2026-07-28"
// that did not answer server/discover as a server of that revision: it is
// not sent initialize, which its setting rules out.
type notModernError struct {
	// probe says how server/discover failed (the server's words, one
	// line), "" when not known.
	probe string
}

func (e notModernError) Error() string {
	why := ""
	if e.probe != "" {
		why = " (server/discover: " + firstLine(e.probe, 200) + ")"
	}
	return fmt.Sprintf(`it does not speak protocol %s, which its "protocol" setting asks for%s: set "protocol" to %q or %q to speak the revision it has`,
		config.ProtocolModern, why, config.ProtocolAuto, config.ProtocolLegacy)
}

// notLegacyError is the start of a server set to "protocol": "2025-11-25"
// that refused initialize: naming only revisions of 2026-07-28 or later
// (supported), or over streamable HTTP with a 4xx, which mcp-go's
// transport reads as a legacy SSE server and which a server of
// 2026-07-28 only answers too (its -32022 body is not passed on).
type notLegacyError struct {
	supported []string
	status4xx bool
}

func (e notLegacyError) Error() string {
	if e.status4xx {
		return fmt.Sprintf(`initialize, protocol %s as its "protocol" setting asks, was refused with an HTTP 4xx: it may be a server of protocol %s only (then set "protocol" to %q or %q), or of the legacy SSE transport (then set "type": "sse")`,
			config.ProtocolLegacy, config.ProtocolModern, config.ProtocolAuto, config.ProtocolModern)
	}
	return fmt.Sprintf(`it does not speak protocol %s, which its "protocol" setting asks for (it supports %s): set "protocol" to %q or %q`,
		config.ProtocolLegacy, firstLine(fmt.Sprint(e.supported), 200), config.ProtocolAuto, config.ProtocolModern)
}

// pinnedRefusal is the one-line error for a handshake err that failed
// because the server does not speak the revision its "protocol" setting
// names, nil for any other.
func (c *conn) pinnedRefusal(err error) error {
	var nm notModernError
	if errors.As(err, &nm) {
		return nm // not the transport's wrapping, which reads as a lost connection
	}
	if c.pinned() != eraLegacy {
		return nil
	}
	var unsupported mcpgo.UnsupportedProtocolVersionError
	if errors.As(err, &unsupported) && len(unsupported.Supported) > 0 &&
		!slices.ContainsFunc(unsupported.Supported, func(v string) bool { return !mcpgo.IsModernProtocol(v) }) {
		return notLegacyError{supported: unsupported.Supported}
	}
	if c.cfg.Type == config.MCPHTTP && errors.Is(err, transport.ErrLegacySSEServer) {
		return notLegacyError{status4xx: true}
	}
	return nil
}

// protocolHint is the line added to a failed call of a server spoken to in
// 2026-07-28 by "auto" that also speaks 2025-11-25: the call may have
// failed for a request of the tool's own that 2026-07-28 does not have,
// which the agent cannot tell (see above). "" for any other server.
func (c *conn) protocolHint(protocolVersion string) string {
	if c.pinned() != eraUnknown || !mcpgo.IsModernProtocol(protocolVersion) || !c.bothEras.Load() {
		return ""
	}
	return fmt.Sprintf(`(MCP server %s was spoken to in protocol %s and also speaks %s: if this tool asks for input through a request of its own (elicitation, sampling, roots), which %s does not have, "protocol": %q in the server's config may let it run)`,
		c.cfg.Name, config.ProtocolModern, config.ProtocolLegacy, config.ProtocolModern, config.ProtocolLegacy)
}

// revision is the revision the server is spoken to in, or was when last
// started, for /mcp and agent mcp list; "" when not known. A server set
// to one revision is spoken to in it or not at all.
func (c *conn) revision() string {
	switch {
	case c.cfg.Type == config.MCPSSE:
		return eraLegacy.String()
	case c.pinned() != eraUnknown:
		return c.pinned().String()
	}
	return c.getEra().String()
}

// ProtocolSet reports whether the server's "protocol" setting names a
// revision rather than leaving it to "auto".
func (s Status) ProtocolSet() bool {
	return s.Protocol != "" && s.Protocol != config.ProtocolAuto
}
