package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
)

// rawServer plays an MCP server on the stdio wire, line by line: it sends
// the client JSON-RPC requests (as server-everything's -async tools do) and
// reads what the client writes back. It checks the client's answers to
// the specification's letter, which a friendly SDK server would not.
type rawServer struct {
	t      *testing.T
	w      io.Writer
	mu     sync.Mutex
	nextID int
	resps  map[string]chan rawMsg
	notes  chan rawMsg
	closed chan struct{}
	seen   map[string]mcpgo.Task // the latest status notified per task
	c      *conn                 // the client's connection
	cl     *client.Client
}

// rawMsg is one message the client wrote.
type rawMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// newRawServer connects a client with the agent's capabilities and request
// handling (serveRequests) to a raw server.
func newRawServer(t *testing.T, h Host) *rawServer {
	t.Helper()
	m := NewManager(nil, Options{Host: h, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = m.Close() })
	c := &conn{m: m, cfg: config.MCPServer{Name: "raw", Type: config.MCPStdio}}
	toClientR, toClientW := io.Pipe()
	fromClientR, fromClientW := io.Pipe()
	cl := client.NewClient(transport.NewIO(toClientR, fromClientW, nil), c.clientOptions()...)
	if err := cl.Start(m.ctx); err != nil {
		t.Fatal(err)
	}
	c.serveRequests(cl)
	s := &rawServer{t: t, w: toClientW, resps: map[string]chan rawMsg{}, notes: make(chan rawMsg, 256), closed: make(chan struct{}),
		seen: map[string]mcpgo.Task{}, c: c, cl: cl}
	go func() {
		defer close(s.closed)
		sc := bufio.NewScanner(fromClientR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var msg rawMsg
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
				t.Errorf("the client wrote a line that is not JSON-RPC: %q", sc.Text())
				continue
			}
			if msg.Method != "" {
				s.notes <- msg
				continue
			}
			s.mu.Lock()
			ch := s.resps[string(msg.ID)]
			s.mu.Unlock()
			if ch == nil {
				t.Errorf("an answer to no request: %s", sc.Text())
				continue
			}
			ch <- msg
		}
	}()
	t.Cleanup(func() {
		_ = cl.Close()
		_ = toClientW.Close()
		_ = fromClientR.Close()
		<-s.closed
	})
	return s
}

// send writes a request and returns where its answer will come.
func (s *rawServer) send(method string, params any) <-chan rawMsg {
	s.t.Helper()
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprint(s.nextID)
	ch := make(chan rawMsg, 1)
	s.resps[id] = ch
	s.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	return ch
}

// wait reads an answer within a deadline.
func (s *rawServer) wait(ch <-chan rawMsg) rawMsg {
	s.t.Helper()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(10 * time.Second):
		s.t.Fatal("no answer from the client within 10s")
		return rawMsg{}
	}
}

// notify writes a notification.
func (s *rawServer) notify(method string, params any) {
	s.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// call sends a request and waits for its answer.
func (s *rawServer) call(method string, params any) rawMsg {
	s.t.Helper()
	return s.wait(s.send(method, params))
}

// task reads a task from a result: CreateTaskResult's "task", or the
// task itself (tasks/get, tasks/cancel).
func (s *rawServer) task(msg rawMsg, created bool) mcpgo.Task {
	s.t.Helper()
	if msg.Error != nil {
		s.t.Fatalf("error %d %s", msg.Error.Code, msg.Error.Message)
	}
	raw := msg.Result
	if created {
		var r struct {
			Task json.RawMessage `json:"task"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Task == nil {
			s.t.Fatalf("not a CreateTaskResult: %s", raw)
		}
		raw = r.Task
	}
	// Every task answer has these (the specification's MUSTs).
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	for _, f := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttl"} {
		if _, ok := fields[f]; !ok {
			s.t.Errorf("task without %s: %s", f, raw)
		}
	}
	var tk mcpgo.Task
	if err := json.Unmarshal(raw, &tk); err != nil {
		s.t.Fatal(err)
	}
	for _, ts := range []string{tk.CreatedAt, tk.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			s.t.Errorf("timestamp %q is not ISO 8601: %v", ts, err)
		}
	}
	return tk
}

// get reads the task's state with tasks/get.
func (s *rawServer) get(id string) mcpgo.Task {
	s.t.Helper()
	return s.task(s.call("tasks/get", map[string]any{"taskId": id}), false)
}

// refused checks that the client answers the request with the error code.
func (s *rawServer) refused(code int, method string, params any) {
	s.t.Helper()
	if msg := s.call(method, params); msg.Error == nil || msg.Error.Code != code {
		s.t.Errorf("%s %v: want error %d, got %+v %s", method, params, code, msg.Error, msg.Result)
	}
}

// status waits for the client's notifications/tasks/status for id.
func (s *rawServer) status(id string) mcpgo.Task {
	s.t.Helper()
	for {
		if tk, ok := s.seen[id]; ok {
			return tk
		}
		select {
		case n := <-s.notes:
			if n.Method != mcpgo.MethodNotificationTasksStatus {
				continue
			}
			var tk mcpgo.Task
			if err := json.Unmarshal(n.Params, &tk); err != nil {
				s.t.Fatal(err)
			}
			s.seen[tk.TaskId] = tk
		case <-time.After(10 * time.Second):
			s.t.Fatalf("no notifications/tasks/status for %s", id)
		}
	}
}

// gateHost is a user who answers when told to, and notes when the
// request's context ends (the dialog closed).
type gateHost struct {
	release chan struct{}
	ended   chan error
	sample  bool
}

func newGateHost() *gateHost {
	return &gateHost{release: make(chan struct{}), ended: make(chan error, 8)}
}

func (h *gateHost) wait(ctx context.Context) error {
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		h.ended <- ctx.Err()
		return ctx.Err()
	}
}

func (h *gateHost) Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
	if err := h.wait(ctx); err != nil {
		return ElicitAnswer{}, err
	}
	return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"name": "Ada"}}, nil
}

func (h *gateHost) Sample(ctx context.Context, r SamplingRequest) (SamplingAnswer, error) {
	if err := h.wait(ctx); err != nil {
		return SamplingAnswer{}, err
	}
	if !h.sample {
		return SamplingAnswer{}, ErrDeclined
	}
	return SamplingAnswer{Model: "m", Text: "hi", StopReason: "endTurn"}, nil
}

func elicitParams(task map[string]any) map[string]any {
	p := map[string]any{"message": "Who?", "requestedSchema": map[string]any{"type": "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}
	if task != nil {
		p["task"] = task
	}
	return p
}

var taskIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestClientTaskLifecycle: a task-augmented elicitation is answered at
// once with a working task; tasks/get and tasks/list show it; tasks/result
// waits for the user; the end is notified; the result carries the
// related-task _meta.
func TestClientTaskLifecycle(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	s := newRawServer(t, h)
	created := s.task(s.call("elicitation/create", elicitParams(map[string]any{"ttl": 60000})), true)
	if !taskIDPattern.MatchString(created.TaskId) || created.Status != mcpgo.TaskStatusWorking || created.TTL == nil || *created.TTL != 60000 || created.PollInterval == nil {
		t.Fatalf("created %+v", created)
	}
	if got := s.get(created.TaskId); got.Status != mcpgo.TaskStatusWorking {
		t.Errorf("tasks/get while the user has not answered: %+v", got)
	}
	var list struct {
		Tasks      []mcpgo.Task `json:"tasks"`
		NextCursor string       `json:"nextCursor"`
	}
	if msg := s.call("tasks/list", nil); msg.Error != nil || json.Unmarshal(msg.Result, &list) != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskId != created.TaskId || list.NextCursor != "" {
		t.Errorf("tasks/list: %+v %s", msg.Error, msg.Result)
	}
	result := s.send("tasks/result", map[string]any{"taskId": created.TaskId})
	select {
	case msg := <-result:
		t.Fatalf("tasks/result answered before the task ended: %s", msg.Result)
	case <-time.After(50 * time.Millisecond): // a negative check: a wait is its only form
	}
	close(h.release)
	if st := s.status(created.TaskId); st.Status != mcpgo.TaskStatusCompleted {
		t.Errorf("status notification %+v", st)
	}
	msg := s.wait(result)
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
		Meta    map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if msg.Error != nil || json.Unmarshal(msg.Result, &res) != nil || res.Action != "accept" || res.Content["name"] != "Ada" || res.Meta[mcpgo.RelatedTaskMetaKey].TaskID != created.TaskId {
		t.Errorf("tasks/result: %+v %s", msg.Error, msg.Result)
	}
	if got := s.get(created.TaskId); got.Status != mcpgo.TaskStatusCompleted {
		t.Errorf("tasks/get after the end: %+v", got)
	}
	// A terminal task cannot be cancelled.
	s.refused(mcpgo.INVALID_PARAMS, "tasks/cancel", map[string]any{"taskId": created.TaskId})
}

// TestClientTaskCancel: tasks/cancel closes the user's dialog and the task
// stays cancelled.
func TestClientTaskCancel(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	s := newRawServer(t, h)
	created := s.task(s.call("elicitation/create", elicitParams(map[string]any{})), true)
	if created.TTL == nil || *created.TTL != maxTaskTTL.Milliseconds() {
		t.Errorf("ttl without a request: %+v", created.TTL)
	}
	result := s.send("tasks/result", map[string]any{"taskId": created.TaskId})
	got := s.task(s.call("tasks/cancel", map[string]any{"taskId": created.TaskId}), false)
	if got.Status != mcpgo.TaskStatusCancelled {
		t.Errorf("tasks/cancel answered %+v", got)
	}
	select {
	case <-h.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the user's dialog was not closed by tasks/cancel")
	}
	if msg := s.wait(result); msg.Error == nil {
		t.Errorf("tasks/result of a cancelled task: %s", msg.Result)
	}
	if got := s.get(created.TaskId); got.Status != mcpgo.TaskStatusCancelled {
		t.Errorf("after cancel: %+v", got)
	}
	s.refused(mcpgo.INVALID_PARAMS, "tasks/cancel", map[string]any{"taskId": created.TaskId})
}

// TestClientTaskErrors: the specification's error codes.
func TestClientTaskErrors(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	close(h.release)
	s := newRawServer(t, h)
	for _, tt := range []struct {
		method string
		params any
		code   int
	}{
		{"tasks/get", map[string]any{"taskId": "nope"}, mcpgo.INVALID_PARAMS},
		{"tasks/result", map[string]any{"taskId": "nope"}, mcpgo.INVALID_PARAMS},
		{"tasks/cancel", map[string]any{"taskId": "nope"}, mcpgo.INVALID_PARAMS},
		{"tasks/get", map[string]any{}, mcpgo.INVALID_PARAMS},
		{"tasks/list", map[string]any{"cursor": "not-ours"}, mcpgo.INVALID_PARAMS},
		{"tasks/unknown", map[string]any{}, mcpgo.METHOD_NOT_FOUND},
		// A sampling request the user (here: the settings) refused.
		{"sampling/createMessage", map[string]any{"maxTokens": 5, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}, codeUserRejected},
		{"sampling/createMessage", map[string]any{"maxTokens": 0, "messages": []any{}}, mcpgo.INVALID_PARAMS},
	} {
		s.refused(tt.code, tt.method, tt.params)
	}
	// The refusal in a task: the task fails, and tasks/result gives the
	// error the request would have.
	created := s.task(s.call("sampling/createMessage", map[string]any{"task": map[string]any{"ttl": 1000}, "maxTokens": 5,
		"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}), true)
	if st := s.status(created.TaskId); st.Status != mcpgo.TaskStatusFailed || !strings.Contains(st.StatusMessage, "rejected") {
		t.Errorf("declined sampling task: %+v", st)
	}
	if msg := s.call("tasks/result", map[string]any{"taskId": created.TaskId}); msg.Error == nil || msg.Error.Code != codeUserRejected {
		t.Errorf("tasks/result of the declined sampling: %+v", msg.Error)
	}
}

// TestClientTaskTTL: a task the user does not answer within its ttl ends
// (failed, the dialog closed); the store keeps it no longer than that.
func TestClientTaskTTL(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	s := newRawServer(t, h)
	created := s.task(s.call("elicitation/create", elicitParams(map[string]any{"ttl": 100})), true)
	if st := s.status(created.TaskId); st.Status != mcpgo.TaskStatusFailed || !strings.Contains(st.StatusMessage, "ttl") {
		t.Errorf("a task past its ttl: %+v", st)
	}
	if err := <-h.ended; err == nil {
		t.Error("the dialog was not closed at the ttl")
	}

	// The store itself, on a clock of its own.
	now := time.Now()
	st := &taskStore{now: func() time.Time { return now }, tasks: map[string]*recvTask{}}
	for i := range maxKeptTasks + 5 {
		done := make(chan struct{})
		close(done)
		st.tasks[fmt.Sprint(i)] = &recvTask{seq: uint64(i + 1), done: done, cancel: func() {}, expires: now.Add(time.Hour),
			task: mcpgo.Task{TaskId: fmt.Sprint(i), Status: mcpgo.TaskStatusCompleted}}
	}
	st.sweep()
	if len(st.tasks) != maxKeptTasks || st.tasks["0"] != nil || st.tasks["4"] != nil || st.tasks["5"] == nil {
		t.Errorf("over the cap: %d kept, the oldest ended ones must go first", len(st.tasks))
	}
	now = now.Add(time.Hour + time.Second)
	st.sweep()
	if len(st.tasks) != 0 {
		t.Errorf("past their ttl: %d kept", len(st.tasks))
	}
}

// TestClientTaskList: tasks/list pages, and the number of running tasks
// is bounded.
func TestClientTaskList(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	s := newRawServer(t, h)
	var ids []string
	for range maxLiveTasks {
		ids = append(ids, s.task(s.call("elicitation/create", elicitParams(map[string]any{"ttl": 60000})), true).TaskId)
	}
	if msg := s.call("elicitation/create", elicitParams(map[string]any{"ttl": 60000})); msg.Error == nil {
		t.Errorf("task %d accepted while %d run", maxLiveTasks+1, maxLiveTasks)
	}
	close(h.release)
	for _, id := range ids {
		s.status(id)
	}
	for len(ids) <= taskListPage {
		created := s.task(s.call("elicitation/create", elicitParams(map[string]any{"ttl": 60000})), true)
		ids = append(ids, created.TaskId)
		s.status(created.TaskId)
	}
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tasks      []mcpgo.Task `json:"tasks"`
			NextCursor string       `json:"nextCursor"`
		}
		msg := s.call("tasks/list", params)
		if msg.Error != nil || json.Unmarshal(msg.Result, &page) != nil {
			t.Fatalf("tasks/list: %+v %s", msg.Error, msg.Result)
		}
		for _, tk := range page.Tasks {
			seen = append(seen, tk.TaskId)
		}
		if page.NextCursor == "" {
			if pages != 1 {
				t.Errorf("%d tasks in %d pages, want 2", len(seen), pages+1)
			}
			break
		}
		cursor = page.NextCursor
	}
	if strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Errorf("tasks/list gave %d tasks, want the %d created, in order", len(seen), len(ids))
	}
}

// TestServerCancelsRequest: notifications/cancelled from the server stops
// its plain request (the dialog is withdrawn), which is not answered.
func TestServerCancelsRequest(t *testing.T) {
	t.Parallel()
	h := newGateHost()
	s := newRawServer(t, h)
	ans := s.send("elicitation/create", elicitParams(nil))
	s.mu.Lock()
	id := s.nextID
	s.mu.Unlock()
	s.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "the tool call ended"})
	select {
	case err := <-h.ended:
		if err == nil {
			t.Error("the dialog ended without its context")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled request's dialog was not withdrawn")
	}
	if msg := s.call("ping", nil); msg.Error != nil {
		t.Fatalf("ping: %+v", msg.Error)
	}
	select {
	case msg := <-ans:
		t.Errorf("a cancelled request was answered: %+v %s", msg.Error, msg.Result)
	case <-time.After(50 * time.Millisecond): // a negative check: a wait is its only form
	}
}

// TestClientTaskResultDeadline: a tasks/result on a transport that bounds
// a request's wait (streamable HTTP) is answered with an error before the
// bound while the task still runs, so the answer can still be sent.
func TestClientTaskResultDeadline(t *testing.T) {
	t.Parallel()
	st := &taskStore{now: time.Now, tasks: map[string]*recvTask{
		"t1": {seq: 1, done: make(chan struct{}), cancel: func() {}, expires: time.Now().Add(time.Hour),
			task: mcpgo.Task{TaskId: "t1", Status: mcpgo.TaskStatusWorking}},
	}}
	ctx, cancel := context.WithTimeout(t.Context(), resultMargin+200*time.Millisecond)
	defer cancel()
	_, err := st.result(ctx, "t1")
	var re *rpcError
	if !errors.As(err, &re) || !strings.Contains(re.msg, "ask tasks/result again") {
		t.Fatalf("got %v, want the ask-again error", err)
	}
	if ctx.Err() != nil {
		t.Error("answered only at the transport's deadline, too late to be sent")
	}
}
