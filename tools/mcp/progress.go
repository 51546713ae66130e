package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// A tools/call is sent as a raw request, not through mcp-go's CallTool, for
// two things the library does not do: every call carries
// _meta.progressToken (its own request id), so servers report progress;
// and a call whose context ends (its timeout, esc, ctrl+c, a cancelled
// turn) is cancelled at the server with notifications/cancelled over every
// transport, HTTP included, before anything else happens (a stdio server
// that hung is killed only after).

// progressFns maps a call's progress token to its listener. Tokens are
// unique in the process (rpcSeq).
var progressFns sync.Map // string -> func(tools.Progress)

// cancelNoticeTimeout bounds sending notifications/cancelled: a server
// that does not read must not hold up the end of a call.
const cancelNoticeTimeout = 2 * time.Second

// send runs tools/call on cl within tctx, more (inputResponses,
// requestState) added to its params. ctx is the turn's: when either ends
// before the answer, the server is told to stop. An answer of protocol
// 2026-07-28 that asks for input is an *inputAskError, for call to
// answer outside tctx (mrtr.go).
func (c *conn) send(ctx, tctx context.Context, cl *client.Client, tool string, args json.RawMessage, more map[string]any) (*mcpgo.CallToolResult, error) {
	task := c.asTask(tool)
	// Each round, and a resend on a new session, is a request of its own:
	// a new id (the specification requires it), so a new progress token.
	id := fmt.Sprintf("agent-call-%d", rpcSeq.Add(1))
	defer progressFns.Delete(id)
	resp, err := c.sendRound(ctx, tctx, cl, tool, args, id, task, more)
	if err != nil {
		return nil, err
	}
	if t, ok := taskCreated(resp.Result); task && ok {
		// The task runs: its requests must not have the call resent.
		return c.awaitTask(ctx, unwatched(tctx), cl, tool, t)
	}
	ask, again, err := readInputAsk(resp.Result)
	if err != nil {
		return nil, err
	}
	if again {
		return nil, &inputAskError{ask}
	}
	res, err := mcpgo.ParseCallToolResult(&resp.Result)
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: unreadable result: %w", tool, err)
	}
	return res, nil
}

// sendRound sends one tools/call request with id, the fields of more
// (inputResponses, requestState) added to its params.
func (c *conn) sendRound(ctx, tctx context.Context, cl *client.Client, tool string, args json.RawMessage, id string, task bool, more map[string]any) (*transport.JSONRPCResponse, error) {
	params := map[string]any{"name": tool, "_meta": map[string]any{"progressToken": id}}
	if len(args) > 0 {
		params["arguments"] = args
	}
	maps.Copy(params, more)
	if task {
		// Kept a while past the call's own timeout: a task that expired
		// at the timeout could no longer be cancelled (tasks/cancel).
		params["task"] = map[string]any{"ttl": (c.toolTimeout() + time.Minute).Milliseconds()}
	}
	if tools.HasProgress(ctx) {
		var mu sync.Mutex
		last := math.Inf(-1)
		progressFns.Store(id, func(p tools.Progress) {
			// The progress value must increase with each notification
			// (MCP). One that does not came late by another stream (mcp-go's
			// HTTP server may send a call's notification on the session's
			// own stream): shown, it would move the card back.
			mu.Lock()
			defer mu.Unlock()
			if p.Progress <= last {
				return
			}
			last = p.Progress
			tools.ReportProgress(ctx, p)
		})
	}
	req := transport.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION, ID: mcpgo.NewRequestId(id),
		Method: string(mcpgo.MethodToolsCall), Params: params}
	if err := c.stampModern(cl, &req); err != nil {
		return nil, err
	}
	if err := c.paramHeaders(cl, &req, tool); err != nil {
		return nil, err
	}
	resp, err := cl.GetTransport().SendRequest(tctx, req)
	if err != nil && tctx.Err() == nil {
		if dl, ok := tctx.Deadline(); ok && time.Until(dl) < 100*time.Millisecond {
			// The SSE transport's own timer gives up a moment before our
			// deadline, with an untyped error: it is our timeout.
			<-tctx.Done()
		}
	}
	if err != nil {
		if tctx.Err() != nil {
			reason := "the call timed out"
			if ctx.Err() != nil {
				reason = "the user cancelled the call"
			}
			if streamableOf(cl) == nil || !mcpgo.IsModernProtocol(cl.ProtocolVersion()) {
				// Protocol 2026-07-28 over streamable HTTP cancels by
				// ending the request's stream, done with tctx; the
				// specification expects no notification there, and the
				// call is not to wait for one to be written.
				c.cancelRequest(cl, req.ID, reason)
			}
			return nil, transport.NewError(tctx.Err())
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp, nil
}

// cancelRequest sends notifications/cancelled for the request id and waits
// (briefly) until it is written, so it goes out before whatever follows the
// cancellation (a kill, a restart, the next request).
func (c *conn) cancelRequest(cl *client.Client, id mcpgo.RequestId, reason string) {
	n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
		Method: string(mcpgo.MethodNotificationCancelled),
		Params: mcpgo.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
	}}
	ctx, cancel := context.WithTimeout(c.m.ctx, cancelNoticeTimeout)
	defer cancel()
	if err := cl.GetTransport().SendNotification(ctx, n); err != nil {
		c.m.log.Warn("mcp: could not send notifications/cancelled", "server", c.cfg.Name, "request", id.String(), "err", err)
		return
	}
	c.m.log.Info("mcp: call cancelled at the server", "server", c.cfg.Name, "request", id.String(), "reason", reason)
}

// onProgress delivers a notifications/progress to its call's listener.
func onProgress(n mcpgo.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	token := fmt.Sprint(f["progressToken"])
	fn, ok := progressFns.Load(token)
	if !ok {
		return
	}
	p := tools.Progress{}
	p.Progress, _ = f["progress"].(float64)
	p.Total, _ = f["total"].(float64)
	p.Message, _ = f["message"].(string)
	fn.(func(tools.Progress))(p)
}
