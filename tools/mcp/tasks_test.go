package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-dev/agent/config"
)

// taskServer is an mcp-go server with one task tool, crunch, which answers
// after ms milliseconds (or when stop closes); cancelled hears tasks/cancel
// (nil: no one listens).
func taskServer(stop <-chan struct{}, cancelled chan<- struct{}) *server.MCPServer {
	hooks := &server.TaskHooks{}
	hooks.AddOnTaskCancelled(func(context.Context, server.TaskMetrics) {
		if cancelled != nil {
			cancelled <- struct{}{}
		}
	})
	s := server.NewMCPServer("tasks", "1.0.0", server.WithToolCapabilities(true), server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(hooks))
	// mcp-go's server (v1.2.1) runs a task with its tools/call request's
	// context, which it cancels once the task is created: the handler
	// waits on its own, and tasks/cancel is seen through the hook.
	s.AddTaskTool(mcpgo.NewTool("crunch", mcpgo.WithTaskSupport(mcpgo.TaskSupportRequired), mcpgo.WithNumber("ms")),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CreateTaskResult, error) {
			select {
			case <-time.After(time.Duration(r.GetFloat("ms", 0)) * time.Millisecond):
			case <-stop:
			}
			return &mcpgo.CreateTaskResult{Content: []mcpgo.Content{mcpgo.NewTextContent("crunched")}}, nil
		})
	return s
}

// serveStreamable serves s over streamable HTTP until the test ends and
// returns its endpoint.
func serveStreamable(t *testing.T, s *server.MCPServer) string {
	t.Helper()
	ts := httptest.NewServer(legacyHTTP(s))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// TestTaskTimeoutKeepsStdioServer: a task that times out is cancelled
// with tasks/cancel; the stdio server, which is not hung, is not killed
// (a hung plain call kills it), and its next call answers at once.
func TestTaskTimeoutKeepsStdioServer(t *testing.T) {
	t.Parallel()
	cfg := testServerConfig(t, "tasks", "tasks")
	cfg.ToolTimeout = time.Second
	_, set := startRegistered(t, Options{}, cfg)
	if r := call(t, set, "tasks__crunch", `{"ms":60000}`); !r.IsError || !strings.Contains(r.Text, "did not answer within 1s") || strings.Contains(r.Text, "stopped") {
		t.Errorf("task past the timeout: %+v", r)
	}
	if r := call(t, set, "tasks__crunch", `{"ms":10}`); r.IsError || r.Text != "crunched" {
		t.Errorf("the server after a task's timeout: %+v", r)
	}
}

// TestTaskTools: a taskSupport "required" tool runs as an MCP task on a
// server that declares tasks (created, polled, its result read; a call
// that times out cancels the task with tasks/cancel), and stays hidden,
// with the reason, on a server that does not.
func TestTaskTools(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{}, 1)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	tasks := taskServer(stop, cancelled)
	plain := server.NewMCPServer("plain", "1.0.0", server.WithToolCapabilities(true))
	plain.AddTool(mcpgo.NewTool("crunch", mcpgo.WithTaskSupport(mcpgo.TaskSupportRequired)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("never as a plain call"), nil
		})

	m, set := startRegistered(t, Options{},
		config.MCPServer{Name: "tasks", Type: config.MCPHTTP, URL: serveStreamable(t, tasks), ToolTimeout: 2 * time.Second},
		config.MCPServer{Name: "plain", Type: config.MCPHTTP, URL: serveStreamable(t, plain)})
	if r := call(t, set, "tasks__crunch", `{"ms":50}`); r.IsError || r.Text != "crunched" {
		t.Errorf("task call: %+v", r)
	}
	if r := call(t, set, "tasks__crunch", `{"ms":60000}`); !r.IsError || !strings.Contains(r.Text, "did not answer within 2s") {
		t.Errorf("task past the timeout: %+v", r)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Error("the timed-out task was not cancelled at the server (tasks/cancel)")
	}

	if _, ok := set.Lookup("plain__crunch"); ok {
		t.Error("a task-only tool of a server without tasks is offered")
	}
	for _, st := range m.Status() {
		if st.Name != "plain" {
			continue
		}
		if len(st.Hidden) != 1 || !strings.Contains(st.Hidden[0].Reason, "tasks.requests.tools.call") {
			t.Errorf("plain's hidden tools %+v", st.Hidden)
		}
	}
}

// TestOptionalTaskTool: a taskSupport "optional" tool runs as a task on a
// server that declares tasks, and as a plain call on one that does not.
func TestOptionalTaskTool(t *testing.T) {
	t.Parallel()
	created := make(chan string, 4)
	hooks := &server.TaskHooks{}
	hooks.AddOnTaskCreated(func(_ context.Context, m server.TaskMetrics) { created <- m.TaskID })
	tasks := server.NewMCPServer("tasks", "1.0.0", server.WithToolCapabilities(true), server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(hooks))
	tasks.AddTaskTool(mcpgo.NewTool("opt", mcpgo.WithTaskSupport(mcpgo.TaskSupportOptional)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CreateTaskResult, error) {
			return &mcpgo.CreateTaskResult{Content: []mcpgo.Content{mcpgo.NewTextContent("as a task")}}, nil
		})
	plain := server.NewMCPServer("plain", "1.0.0", server.WithToolCapabilities(true))
	plain.AddTool(mcpgo.NewTool("opt", mcpgo.WithTaskSupport(mcpgo.TaskSupportOptional)),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if r.Params.Task != nil {
				return nil, errors.New("a task sent to a server without tasks")
			}
			return mcpgo.NewToolResultText("plain"), nil
		})
	_, set := startRegistered(t, Options{},
		config.MCPServer{Name: "tasks", Type: config.MCPHTTP, URL: serveStreamable(t, tasks)},
		config.MCPServer{Name: "plain", Type: config.MCPHTTP, URL: serveStreamable(t, plain)})
	if r := call(t, set, "tasks__opt", `{}`); r.IsError || r.Text != "as a task" {
		t.Errorf("optional tool on a server with tasks: %+v", r)
	}
	select {
	case id := <-created:
		if id == "" {
			t.Error("task without an id")
		}
	default:
		t.Error("the optional tool was not called as a task")
	}
	if r := call(t, set, "plain__opt", `{}`); r.IsError || r.Text != "plain" {
		t.Errorf("optional tool on a server without tasks: %+v", r)
	}
}

// TestTaskStatusNotifications: notifications/tasks/status reach the call
// waiting on that task, the latest state only; others are ignored.
func TestTaskStatusNotifications(t *testing.T) {
	t.Parallel()
	var w taskWatch
	note := func(id string, st mcpgo.TaskStatus, msg string) mcpgo.JSONRPCNotification {
		return mcpgo.JSONRPCNotification{JSONRPC: "2.0", Notification: mcpgo.Notification{Method: mcpgo.MethodNotificationTasksStatus,
			Params: mcpgo.NotificationParams{AdditionalFields: map[string]any{"taskId": id, "status": string(st), "statusMessage": msg,
				"createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": nil}}}}
	}
	ch, stop := w.watch("a")
	w.onStatus(note("b", mcpgo.TaskStatusCompleted, "not ours"))
	w.onStatus(note("a", mcpgo.TaskStatusWorking, "step 1"))
	w.onStatus(note("a", mcpgo.TaskStatusCompleted, "done"))
	w.onStatus(mcpgo.JSONRPCNotification{Notification: mcpgo.Notification{Method: mcpgo.MethodNotificationTasksStatus}})
	select {
	case got := <-ch:
		if got.TaskId != "a" || got.Status != mcpgo.TaskStatusCompleted || got.StatusMessage != "done" {
			t.Errorf("got %+v, want a's latest state", got)
		}
	default:
		t.Fatal("no status delivered")
	}
	select {
	case got := <-ch:
		t.Errorf("a stale or foreign state delivered: %+v", got)
	default:
	}
	stop()
	w.onStatus(note("a", mcpgo.TaskStatusFailed, "after the call")) // nobody waits: no block, no panic
}

// TestTaskResultLost: a tasks/result whose HTTP request fails (a proxy's
// 503 here) is not the task's answer: the task is polled to its end and
// its result asked again.
func TestTaskResultLost(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	h := legacyHTTP(taskServer(stop, nil))
	var mu sync.Mutex
	asked := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				t.Error(err)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"tasks/result"`)) {
				mu.Lock()
				asked++
				first := asked == 1
				mu.Unlock()
				if first {
					http.Error(w, "upstream connection reset", http.StatusServiceUnavailable)
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	_, set := startRegistered(t, Options{}, config.MCPServer{Name: "tasks", Type: config.MCPHTTP, URL: ts.URL + "/mcp"})
	if r := call(t, set, "tasks__crunch", `{"ms":200}`); r.IsError || r.Text != "crunched" {
		t.Errorf("task whose first tasks/result was lost: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 2 {
		t.Errorf("tasks/result asked %d times, want 2", asked)
	}
}

// TestClientCapabilitiesByTransport: the client declares roots, sampling,
// elicitation and tasks over every transport, SSE included, whose
// server requests are taken off the stream before mcp-go drops them
// (sserequests.go).
func TestClientCapabilitiesByTransport(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{config.MCPHTTP, config.MCPSSE} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			got := make(chan mcpgo.ClientCapabilities, 1)
			hooks := &server.Hooks{}
			hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
				got <- req.Params.Capabilities
			})
			s := server.NewMCPServer("caps", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
			s.AddTool(mcpgo.NewTool("noop"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			})
			url := serveStreamable(t, s)
			if typ == config.MCPSSE {
				url = serveSSE(t, s)
			}
			startRegistered(t, Options{}, config.MCPServer{Name: "caps", Type: typ, URL: url})
			caps := <-got
			full := caps.Roots != nil && caps.Sampling != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil &&
				caps.Tasks != nil && caps.Tasks.List != nil && caps.Tasks.Cancel != nil && caps.Tasks.Requests != nil &&
				caps.Tasks.Requests.Sampling != nil && caps.Tasks.Requests.Sampling.CreateMessage != nil &&
				caps.Tasks.Requests.Elicitation != nil && caps.Tasks.Requests.Elicitation.Create != nil
			if !full {
				t.Errorf("%s: declared %+v", typ, caps)
			}
		})
	}
}

// An MCP Apps tool whose _meta.ui.visibility leaves out "model" is for the
// server's own UI (the npm server-pdf's read_pdf_bytes, submit_page_data,
// poll_pdf_commands...), which the agent does not show: it is listed as
// hidden with why, never offered. One visible to both, or with only a
// resourceUri, is offered as any tool.
func TestAppOnlyToolsAreHidden(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("apps", "1.0.0", server.WithToolCapabilities(true))
	ui := func(name string, fields map[string]any) mcpgo.Tool {
		tool := mcpgo.NewTool(name)
		tool.Meta = &mcpgo.Meta{AdditionalFields: map[string]any{"ui": fields}}
		return tool
	}
	answer := func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	}
	s.AddTool(ui("display", map[string]any{"resourceUri": "ui://apps/view.html"}), answer)
	s.AddTool(ui("both", map[string]any{"visibility": []string{"model", "app"}}), answer)
	s.AddTool(ui("poll", map[string]any{"visibility": []string{"app"}, "resourceUri": "ui://apps/view.html"}), answer)
	s.AddTool(mcpgo.NewTool("plain"), answer)
	m, set := startRegistered(t, Options{}, config.MCPServer{Name: "apps", Type: config.MCPHTTP, URL: serveStreamable(t, s)})
	for _, n := range []string{"apps__display", "apps__both", "apps__plain"} {
		if _, ok := set.Lookup(n); !ok {
			t.Errorf("%s is not offered", n)
		}
	}
	if _, ok := set.Lookup("apps__poll"); ok {
		t.Error("the app-only tool is offered to the model")
	}
	st := m.Status()[0]
	if st.Tools != 3 || len(st.Hidden) != 1 || st.Hidden[0].Name != "poll" || !strings.Contains(st.Hidden[0].Reason, `visibility`) {
		t.Errorf("status: %d tools, hidden %+v", st.Tools, st.Hidden)
	}
}
