package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The requests a server sends the client are answered here, on the
// transport: ping, roots/list, sampling/createMessage, elicitation/create,
// and, because the client runs the last two as tasks when a server asks
// (taskrecv.go), tasks/get, tasks/result, tasks/list and tasks/cancel.
// mcp-go's client dispatches only the first four, through a private
// handler that knows no tasks and turns every failure into -32603;
// serveRequests puts this one in its place once the client has started
// (Client.Start installs mcp-go's) and before initialize, so no server
// request reaches mcp-go's.

// rpcError is a failure with its JSON-RPC error code.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

// invalidParams is a request the client refuses as malformed (-32602).
func invalidParams(format string, a ...any) error {
	return &rpcError{code: mcpgo.INVALID_PARAMS, msg: fmt.Sprintf(format, a...)}
}

// codeUserRejected is the specification's code for a sampling request the
// user refused.
const codeUserRejected = -1

// maxEarlyCancels is how many cancellations of requests not (yet) seen
// are kept.
const maxEarlyCancels = 32

// errServerCancelled ends a request the server cancelled
// (notifications/cancelled).
var errServerCancelled = errors.New("the server cancelled its request")

// errConnectionLost ends the requests of a connection that died (the
// process exited, the SSE stream was lost) or was closed: nobody waits
// for their answers any more.
var errConnectionLost = errors.New("the connection to the server was lost")

// RequestEnded says, in a few words, why the context of a server's request
// ended before it was answered: for the line that withdraws its dialog.
func RequestEnded(ctx context.Context) string {
	cause := context.Cause(ctx)
	switch {
	case cause == nil:
		return ""
	case errors.Is(cause, errServerCancelled), errors.Is(cause, errConnectionLost), errors.Is(cause, ErrElicitationComplete):
		return cause.Error()
	case errors.Is(cause, context.DeadlineExceeded):
		return "the request timed out"
	}
	return "the request ended"
}

// requestsLost is closed when the connection cl is marked down or closed
// (endRequests): the requests it brought end with errConnectionLost.
func (c *conn) requestsLost(cl *client.Client) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reqs.lost != nil {
		close(c.reqs.lost) // a connection replaced without being marked down
	}
	c.reqs = reqConn{cl: cl, lost: make(chan struct{})}
	return c.reqs.lost
}

// endRequests ends the requests of the connection cl.
func (c *conn) endRequests(cl *client.Client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reqs.cl == cl && c.reqs.lost != nil {
		close(c.reqs.lost)
		c.reqs = reqConn{}
	}
}

// reqConn is the connection whose server requests are being answered.
type reqConn struct {
	cl   *client.Client
	lost chan struct{}
	// handle answers a request an SSE stream brought (sserequests.go).
	handle transport.RequestHandler
}

// serveRequests answers cl's server requests from now on, with a task
// store of its own (a task belongs to the session that created it), and
// routes the server's task status notifications to the calls waiting on
// those tasks (tasks.go). A request the server cancels with
// notifications/cancelled is stopped (its dialog withdrawn) and, as the
// specification asks, not answered.
func (c *conn) serveRequests(cl *client.Client) {
	store := newTaskStore(c, cl)
	var mu sync.Mutex
	live := map[string]context.CancelCauseFunc{}
	// The transports start each request's handler on a goroutine and
	// deliver notifications in order: a cancellation can come before its
	// request is registered. Such ids are kept a while (the last few).
	var early []string
	lost := c.requestsLost(cl)
	handle := func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		// A stdio transport's requests live as long as the manager:
		// a dead connection must end them (and withdraw their dialogs).
		go func() {
			select {
			case <-lost:
				cancel(errConnectionLost)
			case <-ctx.Done():
			}
		}()
		key := req.ID.String()
		mu.Lock()
		live[key] = cancel
		if i := slices.Index(early, key); i >= 0 {
			early = slices.Delete(early, i, i+1)
			cancel(errServerCancelled)
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(live, key)
			mu.Unlock()
			cancel(nil)
		}()
		res, err := c.answer(ctx, store, req)
		if errors.Is(context.Cause(ctx), errServerCancelled) {
			return nil, nil
		}
		return reply(req.ID, res, err), nil
	}
	if sh := streamableOf(cl); sh != nil {
		sh.SetRequestHandler(c.unbounded(cl, sh, handle))
	} else if bt, ok := cl.GetTransport().(transport.BidirectionalInterface); ok {
		bt.SetRequestHandler(handle)
	} else {
		// The legacy SSE transport takes a request for an answer and drops
		// it: the stream's requests are taken off before (sserequests.go).
		c.mu.Lock()
		c.reqs.handle = handle
		c.mu.Unlock()
	}
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		switch n.Method {
		case mcpgo.MethodNotificationTasksStatus:
			c.tasks.onStatus(n)
		case string(mcpgo.MethodNotificationCancelled):
			key := mcpgo.NewRequestId(n.Params.AdditionalFields["requestId"]).String()
			mu.Lock()
			cancel := live[key]
			if cancel == nil {
				early = append(early, key)
				if len(early) > maxEarlyCancels {
					early = early[1:]
				}
			}
			mu.Unlock()
			if cancel != nil {
				c.m.log.Info("mcp: the server cancelled its request", "server", c.cfg.Name, "request", key, "reason", n.Params.AdditionalFields["reason"])
				cancel(errServerCancelled)
			}
		}
	})
}

// answer runs one server request; the result is marshalled as it is.
func (c *conn) answer(ctx context.Context, store *taskStore, req transport.JSONRPCRequest) (any, error) {
	switch req.Method {
	case string(mcpgo.MethodPing):
		return struct{}{}, nil
	case string(mcpgo.MethodListRoots):
		return host{c}.ListRoots(ctx, mcpgo.ListRootsRequest{})
	case string(mcpgo.MethodSamplingCreateMessage), string(mcpgo.MethodElicitationCreate):
		raw, err := json.Marshal(req.Params)
		if err != nil {
			return nil, invalidParams("%s: unreadable params: %v", req.Method, err)
		}
		var aug struct {
			Task *mcpgo.TaskParams `json:"task"`
		}
		if err := json.Unmarshal(raw, &aug); err != nil {
			return nil, invalidParams("%s: %v", req.Method, err)
		}
		if aug.Task != nil {
			// Task-augmented (the client declares both kinds in
			// tasks.requests): answered at once with the task.
			return store.create(req.Method, raw, aug.Task.TTL)
		}
		return c.serve(ctx, req.Method, raw)
	case string(mcpgo.MethodTasksGet):
		id, err := taskID(req)
		if err != nil {
			return nil, err
		}
		return store.get(id)
	case string(mcpgo.MethodTasksResult):
		id, err := taskID(req)
		if err != nil {
			return nil, err
		}
		return store.result(ctx, id)
	case string(mcpgo.MethodTasksList):
		var p struct {
			Cursor string `json:"cursor"`
		}
		if err := decodeParams(req, &p); err != nil {
			return nil, err
		}
		return store.list(p.Cursor)
	case string(mcpgo.MethodTasksCancel):
		id, err := taskID(req)
		if err != nil {
			return nil, err
		}
		return store.cancel(id)
	}
	return nil, &rpcError{code: mcpgo.METHOD_NOT_FOUND, msg: "method not found: " + req.Method}
}

// serve runs a sampling or elicitation request to its answer.
func (c *conn) serve(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	h := host{c}
	if method == string(mcpgo.MethodElicitationCreate) {
		var p mcpgo.ElicitationParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, invalidParams("elicitation/create: %v", err)
		}
		if err := p.Validate(); err != nil {
			return nil, invalidParams("elicitation/create: %v", err)
		}
		return h.Elicit(ctx, mcpgo.ElicitationRequest{Params: p})
	}
	var p mcpgo.CreateMessageParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("sampling/createMessage: %v", err)
	}
	for i := range p.Messages {
		content, err := mcpgo.ParseSamplingContent(p.Messages[i].Content)
		if err != nil {
			return nil, invalidParams("sampling message %d: %v", i, err)
		}
		p.Messages[i].Content = content
	}
	return h.CreateMessage(ctx, mcpgo.CreateMessageRequest{CreateMessageParams: p})
}

// taskID reads the taskId of a tasks/get, tasks/result or tasks/cancel.
func taskID(req transport.JSONRPCRequest) (string, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := decodeParams(req, &p); err != nil {
		return "", err
	}
	if p.TaskID == "" {
		return "", invalidParams("%s: taskId is missing", req.Method)
	}
	return p.TaskID, nil
}

func decodeParams(req transport.JSONRPCRequest, v any) error {
	if req.Params == nil {
		return nil
	}
	raw, err := json.Marshal(req.Params)
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		return invalidParams("%s: unreadable params: %v", req.Method, err)
	}
	return nil
}

// reply builds the response: the result, or the error with its code
// (-32603 for a failure that has none).
func reply(id mcpgo.RequestId, res any, err error) *transport.JSONRPCResponse {
	if err == nil {
		b, merr := json.Marshal(res)
		if merr == nil {
			return transport.NewJSONRPCResultResponse(id, b)
		}
		err = merr
	}
	var re *rpcError
	switch {
	case errors.As(err, &re):
		return transport.NewJSONRPCErrorResponse(id, re.code, re.msg, nil)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return transport.NewJSONRPCErrorResponse(id, mcpgo.REQUEST_INTERRUPTED, "the request was interrupted: "+err.Error(), nil)
	}
	return transport.NewJSONRPCErrorResponse(id, mcpgo.INTERNAL_ERROR, err.Error(), nil)
}
