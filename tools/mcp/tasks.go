package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// MCP tasks (protocol 2025-11-25), the requestor's side: on a server that
// declares tasks.requests.tools.call, a tool whose execution.taskSupport is
// "required" or "optional" is called with params.task. The server answers
// with a task (CreateTaskResult). tasks/result, which the specification
// makes wait for the task's end, is asked at once, so a task costs no poll
// interval; meanwhile tasks/get is polled at the server's pollInterval and
// notifications/tasks/status are heard, the status message shown as
// progress. A call that ends first (timeout, esc) sends tasks/cancel.
//
// An "optional" tool runs as a task too: tasks/cancel is a request the
// server confirms (notifications/cancelled is advisory), its status
// messages reach the user as progress, and a tasks/result that fails (a
// dropped HTTP stream) is asked again while the task lives, where a plain
// call would be lost. Its cost is one request more.
//
// A server without the capability never gets a task: its required tools
// stay hidden, with the reason, as the specification says.

// Task polling bounds: the server's pollInterval within them, the lower
// one when it gives none.
const (
	minTaskPoll = 100 * time.Millisecond
	maxTaskPoll = 5 * time.Second
)

// runsTasks reports whether the server takes task-augmented tools/call.
func (c *conn) runsTasks() bool {
	c.ex.mu.Lock()
	defer c.ex.mu.Unlock()
	return c.ex.taskTools
}

// hiddenReason is why the tool is not offered ("" when it is).
func (c *conn) hiddenReason(t rawTool) string {
	m := t.Meta
	if m != nil && m.AppOnly {
		return `_meta.ui.visibility leaves out "model" (an MCP Apps tool for the server's own UI, which the agent does not show)`
	}
	if m != nil && m.TaskSupport == "required" && !c.runsTasks() {
		return `execution.taskSupport is "required" (it runs only as an MCP task), but the server does not declare tasks.requests.tools.call`
	}
	return c.headerProblem(t)
}

// asTask reports whether tool is called as a task.
func (c *conn) asTask(tool string) bool {
	t, ok := c.rawTool(tool)
	return ok && t.Meta != nil && (t.Meta.TaskSupport == "required" || t.Meta.TaskSupport == "optional") && c.runsTasks()
}

// taskCreated reads a task-augmented tools/call's answer: the task, or
// ok=false when the server answered with the result itself.
func taskCreated(raw json.RawMessage) (mcpgo.Task, bool) {
	var r struct {
		Task *mcpgo.Task `json:"task"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Task == nil || r.Task.TaskId == "" {
		return mcpgo.Task{}, false
	}
	return *r.Task, true
}

// taskAnswer is a tasks/result's answer.
type taskAnswer struct {
	res *mcpgo.CallToolResult
	err error
	// lost: the request itself failed (transport), not the task.
	lost bool
}

// maxResultTries bounds how often a lost tasks/result is asked again.
const maxResultTries = 3

// awaitTask follows the task to its end within tctx and returns its result.
func (c *conn) awaitTask(ctx, tctx context.Context, cl *client.Client, tool string, task mcpgo.Task) (*mcpgo.CallToolResult, error) {
	c.m.log.Info("mcp task created", "server", c.cfg.Name, "tool", tool, "task", task.TaskId, "status", task.Status)
	notes, unwatch := c.tasks.watch(task.TaskId)
	defer unwatch()
	rctx, stop := context.WithCancel(tctx)
	defer stop()
	answers := make(chan taskAnswer, 1)
	pending, tries := false, 0
	id := task.TaskId // task is replaced by its status notes below, while a tasks/result runs
	ask := func() {
		pending = true
		tries++
		go func() { answers <- c.taskResult(rctx, cl, id) }()
	}
	// input_required: the server's request (an elicitation) comes through
	// tasks/result's answer, as the specification's flow has it.
	ask()
	shown := ""
	show := func(t mcpgo.Task) {
		if t.StatusMessage != "" && string(t.Status)+t.StatusMessage != shown {
			shown = string(t.Status) + t.StatusMessage
			tools.ReportProgress(ctx, tools.Progress{Message: string(t.Status) + ": " + t.StatusMessage})
		}
	}
	show(task)
	poll := time.NewTimer(pollWait(task))
	defer poll.Stop()
	for {
		select {
		case <-tctx.Done():
			return nil, c.taskEnded(ctx, tctx, cl, task)
		case a := <-answers:
			pending = false
			if !a.lost {
				return a.res, a.err
			}
			if tctx.Err() != nil {
				return nil, c.taskEnded(ctx, tctx, cl, task)
			}
			if tries >= maxResultTries {
				return nil, a.err
			}
			c.m.log.Warn("mcp: tasks/result failed; polling the task", "server", c.cfg.Name, "task", task.TaskId, "err", a.err)
		case t := <-notes:
			task = t
		case <-poll.C:
			got, err := cl.GetTask(rctx, mcpgo.GetTaskRequest{Params: mcpgo.GetTaskParams{TaskId: task.TaskId}})
			switch {
			case tctx.Err() != nil:
				return nil, c.taskEnded(ctx, tctx, cl, task)
			case err == nil:
				task = got.Task
			case !pending:
				return nil, fmt.Errorf("tasks/get %s: %w", task.TaskId, err)
			default:
				// tasks/result is still the authority.
				c.m.log.Warn("mcp: tasks/get failed", "server", c.cfg.Name, "task", task.TaskId, "err", err)
			}
			poll.Reset(pollWait(task))
		}
		show(task)
		if task.Status == mcpgo.TaskStatusCancelled {
			return nil, fmt.Errorf("the server cancelled the task (%s)", task.StatusMessage)
		}
		if !pending && (task.Status.IsTerminal() || task.Status == mcpgo.TaskStatusInputRequired) {
			ask()
		}
	}
}

// pollWait is the wait before the next tasks/get: the server's
// pollInterval within bounds.
func pollWait(t mcpgo.Task) time.Duration {
	if t.PollInterval == nil {
		return minTaskPoll
	}
	return min(max(time.Duration(*t.PollInterval)*time.Millisecond, minTaskPoll), maxTaskPoll)
}

// taskResult asks tasks/result, which waits for the task's end. A failed
// task's answer is the tool's error result, or a JSON-RPC error: both are
// the call's answer.
func (c *conn) taskResult(ctx context.Context, cl *client.Client, id string) taskAnswer {
	req := transport.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION, ID: mcpgo.NewRequestId(fmt.Sprintf("agent-task-%d", rpcSeq.Add(1))),
		Method: string(mcpgo.MethodTasksResult), Params: mcpgo.TaskResultParams{TaskId: id}}
	if err := c.stampModern(cl, &req); err != nil {
		return taskAnswer{err: err}
	}
	resp, err := cl.GetTransport().SendRequest(ctx, req)
	if err != nil {
		return taskAnswer{err: transport.NewError(err), lost: true}
	}
	if resp.Error != nil {
		return taskAnswer{err: resp.Error.AsError()}
	}
	res, err := mcpgo.ParseCallToolResult(&resp.Result)
	if err != nil {
		return taskAnswer{err: fmt.Errorf("tasks/result %s: unreadable result: %w", id, err)}
	}
	return taskAnswer{res: res}
}

// taskWatch routes notifications/tasks/status to the calls waiting on
// their tasks.
type taskWatch struct {
	mu sync.Mutex
	m  map[string]chan mcpgo.Task
}

// watch subscribes to the task's status notifications; only the latest
// is kept for a reader that lags.
func (w *taskWatch) watch(id string) (<-chan mcpgo.Task, func()) {
	ch := make(chan mcpgo.Task, 1)
	w.mu.Lock()
	if w.m == nil {
		w.m = map[string]chan mcpgo.Task{}
	}
	w.m[id] = ch
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.m, id)
		w.mu.Unlock()
	}
}

// onStatus delivers a notifications/tasks/status (the full task) to its
// call; one for a task nobody waits on is ignored.
func (w *taskWatch) onStatus(n mcpgo.JSONRPCNotification) {
	b, err := json.Marshal(n.Params.AdditionalFields)
	if err != nil {
		return
	}
	var t mcpgo.Task
	if json.Unmarshal(b, &t) != nil || t.TaskId == "" || t.Status == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.m[t.TaskId]
	if !ok {
		return
	}
	select {
	case <-ch: // replaced by the newer state
	default:
	}
	ch <- t
}

// taskEnded cancels a task whose call ended (timeout or the user) and
// returns the call's error, of the kind call reports as a timeout or the
// turn's cancellation.
func (c *conn) taskEnded(ctx, tctx context.Context, cl *client.Client, task mcpgo.Task) error {
	reason := "timed out"
	if ctx.Err() != nil {
		reason = "cancelled by the user"
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNoticeTimeout)
	defer cancel()
	if _, err := cl.CancelTask(cctx, mcpgo.CancelTaskRequest{Params: mcpgo.CancelTaskParams{TaskId: task.TaskId}}); err != nil {
		c.m.log.Warn("mcp: tasks/cancel failed", "server", c.cfg.Name, "task", task.TaskId, "err", err)
	} else {
		c.m.log.Info("mcp: task cancelled at the server", "server", c.cfg.Name, "task", task.TaskId, "reason", reason)
	}
	return transport.NewError(tctx.Err())
}
