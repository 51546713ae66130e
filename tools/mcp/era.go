package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
)

// Which protocol revision the agent speaks to a server: its era. The
// 2026-07-28 specification (basic/versioning, "Backward Compatibility with
// Initialization-Based Versions") has a client of both revisions detect a
// server's era per transport, cache it for the server's process (stdio)
// or origin (HTTP), and may keep it across restarts, probing again when
// the cached assumption fails. The agent keeps it with the server's
// cached catalog (cachedExtras.Era), so a server whose era is known costs
// no probe on a later start.
//
//   - Streamable HTTP, era not known or known 2026-07-28: server/discover
//     first. A server that answers it is spoken to in 2026-07-28
//     (server/discover, then tools/list, no session, no GET stream); any
//     other answer (-32601, HTTP 400/404/405 without a modern error body,
//     a session-required error) is a 2025-11-25 server, sent initialize
//     next on the same transport. Known 2025-11-25: initialize only, and a
//     refused initialize probes (modern.go's fallsForward).
//   - stdio, era not known or known 2025-11-25: initialize first. The
//     specification says a dual-era client SHOULD probe there too, but a
//     server of an earlier revision may take a first message that is not
//     initialize badly: some exit (browser39 before 1.9.0 ended with rc=1
//     on server/discover), some never answer it, which costs the probe's
//     timeout on every first start. A server of 2026-07-28 only refuses
//     initialize naming the versions it supports (-32022), and the agent
//     falls forward then (fallsForward); after that its era is known and
//     later starts send server/discover first.
//   - The legacy SSE transport predates both: initialize.
type era int32

const (
	eraUnknown era = iota
	eraLegacy      // answered initialize: 2025-11-25 or earlier
	eraModern      // answered server/discover: 2026-07-28
)

// The revision names the cache keeps for each era (cachedExtras.Era).
const (
	eraNameLegacy = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	eraNameModern = mcpgo.ProtocolVersion20260728
)

func (e era) String() string {
	switch e {
	case eraLegacy:
		return eraNameLegacy
	case eraModern:
		return eraNameModern
	}
	return ""
}

// eraOf reads a cached era; anything else is not known.
func eraOf(name string) era {
	switch {
	case name == "":
		return eraUnknown
	case mcpgo.IsModernProtocol(name):
		return eraModern
	case mcpgo.IsValidProtocolVersion(name):
		return eraLegacy
	}
	return eraUnknown
}

func (c *conn) getEra() era  { return era(c.era.Load()) }
func (c *conn) setEra(e era) { c.era.Store(int32(e)) }

// probes reports whether the next connection sends server/discover
// first (see era above, and the server's "protocol" setting:
// protocol.go).
func (c *conn) probes() bool {
	if c.cfg.Type == config.MCPSSE {
		return false // a transport of the revisions before 2026-07-28
	}
	switch c.pinned() {
	case eraLegacy:
		return false
	case eraModern:
		return true
	}
	switch c.cfg.Type {
	case config.MCPHTTP:
		return c.getEra() != eraLegacy
	case config.MCPStdio:
		return c.getEra() == eraModern
	}
	return false
}

// learnEra records the era of the revision cl settled on.
func (c *conn) learnEra(cl *client.Client) {
	if mcpgo.IsModernProtocol(cl.ProtocolVersion()) {
		c.setEra(eraModern)
	} else {
		c.setEra(eraLegacy)
	}
}

// eitherEra is a streamable HTTP transport that listens on the GET stream
// once a 2025-11-25 session is up, and is still probed with
// server/discover. mcp-go's client takes a transport with continuous
// listening for one of an earlier revision and skips the probe
// (RequiresLegacyProtocol); its transport opens the GET stream only when
// the revision initialize settled on is an earlier one, so the one
// transport serves a server of either era, whichever answers.
//
// It also reads the probe's answer as the specification asks, where
// mcp-go's client does not: see SendRequest.
type eitherEra struct {
	*transport.StreamableHTTP
	// refused is the probe's refusal for want of a sign-in: initialize
	// is not sent after it (see SendRequest).
	refused error
	// guard minds the handshake for the server's "protocol" setting
	// (protocol.go); it sees the probe's answer as read here.
	guard *eraGuard
}

// RequiresLegacyProtocol: no, see eitherEra.
func (*eitherEra) RequiresLegacyProtocol() bool { return false }

// SendRequest sends req; server/discover, and the initialize mcp-go sends
// when the probe failed, are read as the 2026-07-28 versioning rules say:
//   - A refusal naming among the versions the server supports the one
//     the probe asked for (-32022) is a server of 2026-07-28 that refused
//     this once: it is asked again, not taken for an older server (mcp-go
//     retries only for another version).
//   - An answer without supportedVersions naming a 2026-07-28 revision is
//     not a server of that revision (a server of an earlier one that
//     answers any method it does not know): a failed probe, so mcp-go
//     sends initialize.
//   - A refusal for want of a sign-in says nothing of the era: the start
//     fails with it (initialize is not sent, only to be refused too, or
//     let through by a server that guards only its tools), and the sign-in
//     follows (signin.go); the next start probes again.
func (t *eitherEra) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcpgo.MethodInitialize) && t.refused != nil {
		return nil, t.refused // before the guard: the sign-in, not the revision, is what is missing
	}
	return t.guard.send(ctx, req, t.sendEither)
}

// sendEither is SendRequest without the guard.
func (t *eitherEra) sendEither(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	switch req.Method {
	case string(mcpgo.MethodServerDiscover):
	default:
		return t.StreamableHTTP.SendRequest(ctx, req)
	}
	status := new(atomic.Int32)
	ctx = context.WithValue(ctx, probeStatusKey{}, status)
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	if err == nil && refusedAgain(req, resp) {
		resp, err = t.StreamableHTTP.SendRequest(ctx, req)
	}
	if code := int(status.Load()); code == http.StatusUnauthorized || code == http.StatusForbidden || errors.Is(err, oauth.ErrSignInRequired) {
		// A 403 is also what the sign-in's transport passes on once its
		// step-ups are spent (oauth/transport.go).
		if err == nil {
			err = accessRefusedError{status: code}
		}
		t.refused = err
		return nil, err
	}
	if err != nil || resp.Error != nil {
		return resp, err
	}
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(resp.Result, &r) != nil || !slices.ContainsFunc(r.SupportedVersions, mcpgo.IsModernProtocol) {
		return &transport.JSONRPCResponse{JSONRPC: mcpgo.JSONRPC_VERSION, ID: resp.ID, Error: &mcpgo.JSONRPCErrorDetails{
			Code: mcpgo.METHOD_NOT_FOUND, Message: "server/discover answered without a 2026-07-28 revision among supportedVersions"}}, nil
	}
	return resp, nil
}

// accessRefusedError is a probe refused with HTTP 401 or 403 whose body
// the transport read as a JSON-RPC answer. The body, the server's words,
// is left out.
type accessRefusedError struct{ status int }

func (e accessRefusedError) Error() string {
	return fmt.Sprintf("server/discover: HTTP %d %s", e.status, http.StatusText(e.status))
}

// refusedAgain reports whether resp refuses req's protocol version while
// naming it among those the server supports.
func refusedAgain(req transport.JSONRPCRequest, resp *transport.JSONRPCResponse) bool {
	if resp.Error == nil || resp.Error.Code != mcpgo.UNSUPPORTED_PROTOCOL_VERSION {
		return false
	}
	b, err := json.Marshal(resp.Error.Data)
	var data mcpgo.UnsupportedProtocolVersionData
	if err != nil || json.Unmarshal(b, &data) != nil {
		return false
	}
	var params struct {
		Meta map[string]any `json:"_meta"`
	}
	if b, err = json.Marshal(req.Params); err != nil || json.Unmarshal(b, &params) != nil {
		return false
	}
	asked, _ := params.Meta[mcpgo.MetaKeyProtocolVersion].(string)
	return asked != "" && slices.Contains(data.Supported, asked)
}

// streamableOf is cl's streamable HTTP transport, nil for another.
func streamableOf(cl *client.Client) *transport.StreamableHTTP {
	switch t := cl.GetTransport().(type) {
	case *transport.StreamableHTTP:
		return t
	case *eitherEra:
		return t.StreamableHTTP
	}
	return nil
}

// probeStatusKey marks the context of a probe with where the HTTP status
// of its answer goes: probeAnswer stores it.
type probeStatusKey struct{}

// probeAnswer is the HTTP answer resp to req as the transport is to read
// it: the status of a probe's answer is noted (eitherEra.SendRequest),
// and a 404 is read by unknownMethod.
func probeAnswer(req *http.Request, resp *http.Response) *http.Response {
	if status, ok := req.Context().Value(probeStatusKey{}).(*atomic.Int32); ok {
		status.Store(int32(resp.StatusCode))
	}
	if resp.StatusCode == http.StatusNotFound {
		return unknownMethod(req, resp)
	}
	return resp
}

// unknownMethod passes on a 2026-07-28 server's answer to a method it
// does not have, HTTP 404 with a JSON-RPC -32601 error (the revision's
// streamable HTTP transport), as the error it is. mcp-go's transport takes
// every 404 for a session the server forgot (2025-11-25), which a
// stateless request has none of: a server without tools would fail its
// start ("session terminated") instead of answering tools/list with an
// error the start takes for an empty list. Any other 404 is left as it
// came.
func unknownMethod(req *http.Request, resp *http.Response) *http.Response {
	if req.Method != http.MethodPost || !mcpgo.IsModernProtocol(req.Header.Get(mcpgo.HeaderProtocolVersion)) {
		return resp
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err != nil || json.Unmarshal(b, &msg) != nil || msg.Error == nil || msg.Error.Code != mcpgo.METHOD_NOT_FOUND {
		return resp
	}
	out := *resp
	out.StatusCode, out.Status = http.StatusOK, "200 OK"
	out.Header = resp.Header.Clone()
	out.Header.Set("Content-Type", "application/json")
	out.ContentLength = int64(len(b))
	return &out
}

// listenBackoff bounds the wait before a subscriptions/listen stream that
// ended is opened again.
const listenBackoff = 30 * time.Second

// listen opens the subscriptions/listen stream of a server of protocol
// 2026-07-28, which has no other way to tell of a changed list: its
// notifications reach the handlers a 2025-11-25 server's do (conn.go's
// tools/list_changed, extras.go's resources and prompts), so a change
// applies at the next turn as it does there. Only the lists the server
// says may change are asked for; a server that may change none costs no
// request. The returned channel is closed once the server acknowledged
// the stream or the first try ended: the start lists the tools after it,
// so that no change falls between the listing and the stream. A stream
// that ends (a restarted server, a proxy's idle timeout) is opened again
// while cl is the connection's; a refusal (a JSON-RPC error: the server
// has no such method) ends it.
func (c *conn) listen(gen uint64, cl *client.Client) <-chan struct{} {
	settled := make(chan struct{})
	var once sync.Once
	settle := func() { once.Do(func() { close(settled) }) }
	if !mcpgo.IsModernProtocol(cl.ProtocolVersion()) {
		settle()
		return settled
	}
	caps := cl.GetServerCapabilities()
	var f mcpgo.SubscriptionFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if f.IsEmpty() {
		settle()
		return settled
	}
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == mcpgo.MethodNotificationSubscriptionsAcknowledged {
			settle()
		}
	})
	go func() {
		wait := time.Second
		for {
			start := time.Now()
			err := cl.Listen(c.m.ctx, f)
			settle()
			if c.m.ctx.Err() != nil || !c.isCurrent(gen, cl) {
				return
			}
			var te *transport.Error
			if err != nil && !errors.As(err, &te) {
				c.m.log.Info("mcp: the server refused subscriptions/listen: its list changes are not heard", "server", c.cfg.Name, "err", err)
				return
			}
			c.m.log.Info("mcp: subscriptions/listen stream ended; opening it again", "server", c.cfg.Name, "err", err)
			if time.Since(start) > listenBackoff {
				wait = time.Second // it was up a while: not a server that ends it at once
			}
			select {
			case <-time.After(wait):
			case <-c.m.ctx.Done():
				return
			}
			wait = min(2*wait, listenBackoff)
			if !c.isCurrent(gen, cl) {
				return
			}
		}
	}()
	return settled
}

// awaitListen waits for listen's stream to be acknowledged, bounded by
// the initialize timeout: a server that never acknowledges it is listed
// all the same.
func (c *conn) awaitListen(ctx context.Context, settled <-chan struct{}) {
	select {
	case <-settled:
		return
	default:
	}
	t := time.NewTimer(c.m.opts.InitTimeout)
	defer t.Stop()
	select {
	case <-settled:
	case <-t.C:
	case <-ctx.Done():
	}
}

// isCurrent reports whether cl, of connection attempt gen, is still the
// running connection.
func (c *conn) isCurrent(gen uint64, cl *client.Client) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen == gen && c.cl == cl && c.state == StateRunning
}
