package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/internal/starttrace"
	"github.com/agent-dev/agent/tools"
)

// maxBackoff caps the wait between restarts of a server that keeps failing.
const maxBackoff = time.Minute

// executor runs the server's tool named tool (its own name).
func (c *conn) executor(tool string) tools.Executor {
	return func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return c.call(ctx, tool, args)
	}
}

// call runs one tools/call. Problems the model should hear about (server
// down, timeout, the server's own error) are error results; only the
// turn's cancellation is a Go error. A call the server answers with
// URLElicitationRequiredError is retried once, after the user completed
// the elicitations it lists (urlelicit.go). One a server of protocol
// 2026-07-28 answers input_required is sent again with the input it asked
// for (mrtr.go): each round within the tool timeout, the user's answers
// between rounds outside it, as they are for -32042 (a slow answer is not
// a hung server, which the timeout would restart).
func (c *conn) call(ctx context.Context, tool string, args json.RawMessage) (tools.Result, error) {
	starttrace.Markf("tool call", c.cfg.Name, tool)
	defer starttrace.Markf("tool answered", c.cfg.Name, tool)
	var more map[string]any
	retriedURL := false
	for round := 1; ; round++ {
		res, err := c.callTimed(ctx, tool, args, more)
		if need, ok := urlElicitationRequired(err); ok {
			if retriedURL {
				return c.stillRequired(tool, need), nil
			}
			retriedURL = true
			if res, ok, err := c.satisfy(ctx, tool, need); !ok {
				return res, err
			}
			continue
		}
		var asked *inputAskError
		if !errors.As(err, &asked) {
			return res, err
		}
		if more, res, err = c.nextRound(ctx, tool, round, asked.ask); more == nil {
			return res, err
		}
	}
}

// callTimed sends one tools/call within the tool timeout, more (the input
// a server of 2026-07-28 asked for) added to its params.
func (c *conn) callTimed(ctx context.Context, tool string, args json.RawMessage, more map[string]any) (tools.Result, error) {
	cl, err := c.ensure(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return errResult(err.Error()), nil
	}
	timeout := c.toolTimeout()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A line on stdout that is not JSON answers nothing: the request that
	// waits fails at once instead of at its timeout.
	p := c.procOf(cl)
	var malformed atomic.Pointer[string]
	if p != nil {
		p.drainBad()
		go func() {
			select {
			case line := <-p.bad:
				malformed.Store(&line)
				cancel()
			case <-tctx.Done():
			}
		}()
	}
	sctx, w := watchSession(tctx)
	done := c.use(cl)
	res, err := c.send(ctx, sctx, cl, tool, args, more)
	done()
	if status := w.lost(err); status != 0 && tctx.Err() == nil {
		// The server answered 400 or 404 to a request that carried the
		// session id, or a 404 had ended the session before it went out:
		// the server has likely restarted and lost the session
		// (sessionlost.go). A request so rejected was not run, so sending
		// it once more on a new session is safe; a second rejection is the
		// answer.
		ncl, rerr := c.renewSession(ctx, cl, status, err)
		if rerr != nil {
			if ctx.Err() != nil {
				return tools.Result{}, ctx.Err()
			}
			return errResult(rerr.Error()), nil
		}
		cl = ncl
		res, err = c.send(ctx, tctx, cl, tool, args, more)
	}
	if line := malformed.Load(); err != nil && line != nil && ctx.Err() == nil {
		return errResult(fmt.Sprintf("MCP server %s answered %s with a message that is not JSON: %q; the call failed (the server must write only MCP messages on stdout, one per line)", c.cfg.Name, tool, *line)), nil
	}
	switch {
	case err == nil:
		limit := c.cfg.MaxResultBytes
		if limit <= 0 {
			limit = c.m.opts.MaxResultBytes
		}
		out := convertResult(res, limit)
		c.checkOutput(tool, res, &out)
		c.noteLinks(res)
		if res.IsError {
			// A handler that caught its refused request answers so.
			out.Text = withHint(out.Text, c.protocolHint(cl.ProtocolVersion()))
		}
		return out, nil
	case ctx.Err() != nil:
		return tools.Result{}, ctx.Err()
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("MCP tool %s on server %s did not answer within %s and was cancelled", tool, c.cfg.Name, timeout)
		if p != nil && !c.asTask(tool) { // a task is slow, not hung: tasks/cancel ended it
			// A stdio server that hangs on one call usually hangs on all:
			// it is killed with its process group and started again, so
			// its other tools answer at once instead of each timing out.
			p.kill()
			c.markDown(cl, fmt.Errorf("tool %s did not answer within %s; the server was stopped", tool, timeout))
			go func() { _, _ = c.ensure(c.m.ctx) }()
			msg += "; the server was stopped and is being restarted"
		}
		if l := p.noiseLine(); l != "" {
			msg += fmt.Sprintf("; it wrote a line that is not JSON on stdout: %q", l)
		}
		return errResult(msg), nil
	case isTransportError(err):
		c.markDown(cl, err)
		return errResult(c.downMessage()), nil
	}
	var asked *inputAskError
	if _, ok := urlElicitationRequired(err); ok || errors.As(err, &asked) {
		return tools.Result{}, err // call asks the user, then retries
	}
	text := fmt.Sprintf("MCP server %s could not run %s: %v", c.cfg.Name, tool, err)
	if errors.Is(err, mcpgo.ErrInternalError) {
		// What mcp-go makes of a handler's error, its refused request's too.
		text = withHint(text, c.protocolHint(cl.ProtocolVersion()))
	}
	return errResult(text), nil
}

// withHint is text with hint on a line of its own after it, text alone
// when there is none.
func withHint(text, hint string) string {
	if hint == "" {
		return text
	}
	return text + "\n" + hint
}

// toolTimeout bounds one call of the server's tools: its own toolTimeout,
// else Options.ToolTimeout.
func (c *conn) toolTimeout() time.Duration {
	if c.cfg.ToolTimeout > 0 {
		return c.cfg.ToolTimeout
	}
	return c.m.opts.ToolTimeout
}

// sseResponseTimeout is the SSE transport's own limit on waiting for an
// answer. mcp-go's default (60 s) is shorter than the tool timeout (120 s
// by default), so a long call over SSE failed at 60 s: the limit is the
// longest of the tool and start timeouts, with a margin so the call's own
// deadline (which says which call timed out and cancels it at the server)
// comes first.
func (c *conn) sseResponseTimeout() time.Duration {
	return max(c.toolTimeout(), c.startTimeout()) + 5*time.Second
}

// procOf is the process of the stdio connection cl, nil for other transports
// or a connection that is gone.
func (c *conn) procOf(cl *client.Client) *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != cl {
		return nil
	}
	return c.proc
}

func errResult(text string) tools.Result { return tools.Result{Text: text, IsError: true} }

// isTransportError tells a broken connection from an error the server
// answered with (mcp-go wraps the former in *transport.Error).
func isTransportError(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) || errors.Is(err, transport.ErrTransportClosed)
}

func (c *conn) downMessage() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.downMessageLocked()
}

func (c *conn) downMessageLocked() string {
	cause := "it stopped"
	if c.err != nil {
		cause = c.err.Error()
	}
	msg := fmt.Sprintf("MCP server %s is not running: %s%s; it will be restarted on the next call", c.cfg.Name, cause, c.cachedNoteLocked())
	if wait := time.Until(c.nextTry); wait > 0 {
		msg += fmt.Sprintf(" after %s", wait.Round(time.Second))
	}
	return msg
}

// ensure returns a live client, reconnecting a server that died. Failed
// reconnections back off (1 s, 2 s, 4 s... up to a minute); a call made
// during the wait fails at once with a message that says when the next
// attempt is.
func (c *conn) ensure(ctx context.Context) (*client.Client, error) {
	// A server still starting (in the background, from the cache) is
	// waited for: by this call only, and within its start timeout. A lazy
	// one starts now.
	c.startNow()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if cl, err, retry := c.current(); !retry {
		return cl, err
	}
	c.dialMu.Lock()
	defer c.dialMu.Unlock()
	// Another call may have reconnected while this one waited.
	if cl, err, retry := c.current(); !retry {
		return cl, err
	}
	err := c.connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.mu.Lock()
		c.fails++
		c.nextTry = time.Now().Add(min(time.Second<<(c.fails-1), maxBackoff))
		if c.state != StateFailed {
			c.state = StateDown
		}
		c.err = fmt.Errorf("restart failed: %w", err)
		msg := c.downMessageLocked()
		c.mu.Unlock()
		return nil, errors.New(msg)
	}
	n := len(c.agentTools(false))
	c.m.emit(Event{Kind: EventServerUp, Server: c.cfg.Name, Tools: n,
		Text: fmt.Sprintf("MCP server %s restarted (%s)", c.cfg.Name, toolCount(n))})
	// The new process may offer other tools than the old one.
	c.m.toolsChanged(c.cfg.Name)
	c.mu.Lock()
	cl := c.cl
	c.mu.Unlock()
	return cl, nil
}

// current returns the live client, or an error for a server that must not
// be retried now, or retry=true when a reconnection should be attempted.
func (c *conn) current() (cl *client.Client, err error, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.state == StateRunning && c.cl != nil:
		return c.cl, nil, false
	case c.state == StateDisabled:
		return nil, fmt.Errorf("MCP server %s is disabled", c.cfg.Name), false
	case c.m.isClosed():
		return nil, fmt.Errorf("MCP server %s is not running: the agent is shutting down", c.cfg.Name), false
	case time.Now().Before(c.nextTry):
		return nil, errors.New(c.downMessageLocked()), false
	}
	return nil, nil, true
}

// startFailed records a failed first start. A server whose cached tools are
// registered gets the restart backoff, so its tools answer at once with the
// error instead of each waiting for another start timeout.
func (c *conn) startFailed(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.err = StateFailed, err
	if c.cached {
		c.fails = 1
		c.nextTry = time.Now().Add(time.Second)
	}
}

// startFailedText is the warning for a server that failed in the
// background.
func (c *conn) startFailedText(err error) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.cached {
		return err.Error()
	}
	return fmt.Sprintf("%v; its %d cached tools stay listed and answer with this error until it starts", err, len(c.list))
}
