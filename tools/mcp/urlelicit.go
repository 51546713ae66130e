package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// A tools/call a server answers with URLElicitationRequiredError (-32042,
// protocol 2025-11-25) carries URL-mode elicitations the user must complete
// before the call can succeed. Each is put to the Host with Retry set; the
// Host returns when the user is done (the TUI: "retry now"; print mode: the
// settings), and its context ends early when the server sends
// notifications/elicitation/complete for it. The call is then retried once.

// ErrElicitationComplete is the cause of the context a Host's Elicit gets
// for a URL elicitation once the server said, with
// notifications/elicitation/complete, that the user finished it.
var ErrElicitationComplete = errors.New("the server says the URL elicitation is complete")

// elicitWaits are the URL elicitations a connection waits on, by
// elicitationId.
type elicitWaits struct {
	mu sync.Mutex
	m  map[string]context.CancelCauseFunc
}

func (w *elicitWaits) add(id string, cancel context.CancelCauseFunc) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]context.CancelCauseFunc{}
	}
	w.m[id] = cancel
}

func (w *elicitWaits) remove(id string) {
	w.mu.Lock()
	delete(w.m, id)
	w.mu.Unlock()
}

// complete handles notifications/elicitation/complete. Unknown and already
// completed ids are ignored, as the specification requires.
func (w *elicitWaits) complete(n mcpgo.JSONRPCNotification) {
	id, _ := n.Params.AdditionalFields["elicitationId"].(string)
	w.mu.Lock()
	cancel, ok := w.m[id]
	delete(w.m, id)
	w.mu.Unlock()
	if ok {
		cancel(ErrElicitationComplete)
	}
}

// urlElicitationRequired reports whether err is a -32042 answer.
func urlElicitationRequired(err error) (mcpgo.URLElicitationRequiredError, bool) {
	var need mcpgo.URLElicitationRequiredError
	ok := errors.As(err, &need)
	return need, ok
}

// satisfy puts the elicitations of a -32042 answer to the Host. ok=false:
// the call is not retried, and res (or err, the turn's cancellation) is its
// answer.
func (c *conn) satisfy(ctx context.Context, tool string, need mcpgo.URLElicitationRequiredError) (res tools.Result, ok bool, err error) {
	if len(need.Elicitations) == 0 {
		return errResult(fmt.Sprintf("MCP server %s answered %s with URLElicitationRequiredError (-32042) but listed no elicitation to complete", c.cfg.Name, tool)), false, nil
	}
	var es []Elicitation
	for i, p := range need.Elicitations {
		e := Elicitation{Server: c.cfg.Name, Mode: p.Mode, Message: p.Message, URL: p.URL, ID: p.ElicitationID, Retry: true}
		if e.Mode != mcpgo.ElicitationModeURL || e.ID == "" {
			return errResult(fmt.Sprintf("MCP server %s answered %s with URLElicitationRequiredError whose elicitation %d is not a URL elicitation with an elicitationId (mode %q); the call was not retried", c.cfg.Name, tool, i+1, p.Mode)), false, nil
		}
		if err := checkElicitURL(e.URL); err != nil {
			return errResult(fmt.Sprintf("MCP server %s answered %s with URLElicitationRequiredError: %v; the call was not retried", c.cfg.Name, tool, err)), false, nil
		}
		es = append(es, e)
	}
	// Every id is watched before the first is shown: the server may say
	// one is complete while the user reads another.
	ctxs := make([]context.Context, len(es))
	for i, e := range es {
		ectx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		ctxs[i] = ectx
		c.waits.add(e.ID, cancel)
		defer c.waits.remove(e.ID)
	}
	hst := c.m.opts.Host
	for i, e := range es {
		if context.Cause(ctxs[i]) == ErrElicitationComplete {
			continue
		}
		ans := ElicitAnswer{Action: ActionDecline}
		if hst != nil {
			if ans, err = hst.Elicit(ctxs[i], e); err != nil && ctx.Err() == nil && context.Cause(ctxs[i]) != ErrElicitationComplete {
				return errResult(fmt.Sprintf("MCP server %s needs you to open %s before %s can run: %v", c.cfg.Name, e.URL, tool, err)), false, nil
			}
		}
		switch {
		case ctx.Err() != nil:
			return tools.Result{}, false, ctx.Err()
		case context.Cause(ctxs[i]) == ErrElicitationComplete, ans.Action == ActionAccept:
			c.m.log.Info("mcp url elicitation done", "server", c.cfg.Name, "tool", tool, "id", e.ID,
				"notified", context.Cause(ctxs[i]) == ErrElicitationComplete)
		default:
			what := "declined"
			if ans.Action == ActionCancel {
				what = "cancelled"
			}
			return errResult(fmt.Sprintf("MCP server %s needs the user to open %s (%s) before %s can run; the user %s, so the call was not retried",
				c.cfg.Name, e.URL, e.Message, tool, what)), false, nil
		}
	}
	return tools.Result{}, true, nil
}

// stillRequired is the answer when the retried call asked again.
func (c *conn) stillRequired(tool string, need mcpgo.URLElicitationRequiredError) tools.Result {
	var urls []string
	for _, e := range need.Elicitations {
		urls = append(urls, e.URL)
	}
	return errResult(fmt.Sprintf("MCP server %s still needs the user to complete %s before %s can run (the call was retried once)",
		c.cfg.Name, strings.Join(urls, ", "), tool))
}

// checkElicitURL accepts the http(s) URLs a user may be sent to.
func checkElicitURL(s string) error {
	if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("url elicitation: %q is not an http(s) URL", s)
	}
	return nil
}
