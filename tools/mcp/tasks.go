package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// MCP tasks (protocol 2025-11-25), the requestor's side: a tool whose
// execution.taskSupport is "required" is called with params.task on a
// server that declares tasks.requests.tools.call. The server answers with
// a task (CreateTaskResult); the call polls tasks/get at the server's
// pollInterval (its status message shown as progress) until the task is
// terminal (or needs input), then reads tasks/result, the tool's
// CallToolResult. A call that
// ends first (timeout, esc) sends tasks/cancel. A server without the
// capability never gets a task: its required tools stay hidden, with the
// reason, as the specification says.

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
func (c *conn) hiddenReason(m *toolMeta) string {
	if m != nil && m.TaskSupport == "required" && !c.runsTasks() {
		return `execution.taskSupport is "required" (it runs only as an MCP task), but the server does not declare tasks.requests.tools.call`
	}
	return ""
}

// taskRequired reports whether tool is called as a task.
func (c *conn) taskRequired(tool string) bool {
	t, ok := c.rawTool(tool)
	return ok && t.Meta != nil && t.Meta.TaskSupport == "required" && c.runsTasks()
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

// awaitTask polls the task to its end within tctx and returns its result.
func (c *conn) awaitTask(ctx, tctx context.Context, cl *client.Client, tool string, task mcpgo.Task) (*mcpgo.CallToolResult, error) {
	c.m.log.Info("mcp task created", "server", c.cfg.Name, "tool", tool, "task", task.TaskId, "status", task.Status)
	// input_required: the server's request (an elicitation) comes through
	// tasks/result's answer, so it is called at once (the specification's
	// input_required flow), as for a terminal task.
	for !task.Status.IsTerminal() && task.Status != mcpgo.TaskStatusInputRequired {
		if task.StatusMessage != "" {
			tools.ReportProgress(ctx, tools.Progress{Message: string(task.Status) + ": " + task.StatusMessage})
		}
		wait := minTaskPoll
		if task.PollInterval != nil {
			wait = min(max(time.Duration(*task.PollInterval)*time.Millisecond, minTaskPoll), maxTaskPoll)
		}
		t := time.NewTimer(wait)
		select {
		case <-tctx.Done():
			t.Stop()
			return nil, c.taskEnded(ctx, tctx, cl, task)
		case <-t.C:
		}
		got, err := cl.GetTask(tctx, mcpgo.GetTaskRequest{Params: mcpgo.GetTaskParams{TaskId: task.TaskId}})
		if err != nil {
			if tctx.Err() != nil {
				return nil, c.taskEnded(ctx, tctx, cl, task)
			}
			return nil, fmt.Errorf("tasks/get %s: %w", task.TaskId, err)
		}
		task = got.Task
	}
	if task.Status == mcpgo.TaskStatusCancelled {
		return nil, fmt.Errorf("the server cancelled the task (%s)", task.StatusMessage)
	}
	// tasks/result of a failed task carries the tool's error result, or a
	// JSON-RPC error: both are the call's answer.
	req := transport.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION, ID: mcpgo.NewRequestId(fmt.Sprintf("agent-task-%d", rpcSeq.Add(1))),
		Method: string(mcpgo.MethodTasksResult), Params: mcpgo.TaskResultParams{TaskId: task.TaskId}}
	resp, err := cl.GetTransport().SendRequest(tctx, req)
	if err != nil {
		if tctx.Err() != nil {
			return nil, transport.NewError(tctx.Err())
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	res, err := mcpgo.ParseCallToolResult(&resp.Result)
	if err != nil {
		return nil, fmt.Errorf("tasks/result %s: unreadable result: %w", task.TaskId, err)
	}
	return res, nil
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
