package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// MCP tasks (protocol 2025-11-25), the receiver's side: a server may send
// sampling/createMessage or elicitation/create with params.task (the
// client declares tasks.requests for both). The client answers at once
// with the task (CreateTaskResult, status working) and runs the request in
// the background, asking the user and the model as for a plain request,
// while the server polls tasks/get and reads the answer with tasks/result.
// A request that waits on a person is not bounded by the transport's wait
// for an answer (mcp-go gives a streamable HTTP request 30 s).
//
// Tasks belong to the session that created them: each connection has its
// own store, so no other server can read them. Task ids are 128 random bits
// all the same, as the specification asks of a receiver. The task's ttl
// bounds its work and its life; the result is kept a minute past the end
// of the work at least, so a server polling at its interval still finds it.

const (
	// maxTaskTTL is the longest life the client gives a task (and the
	// default when the server asks none): a user may take a while.
	maxTaskTTL = time.Hour
	// taskPollInterval is the polling interval suggested to servers.
	taskPollInterval = 500 * time.Millisecond
	// taskResultGrace keeps a result that long after the work ended.
	taskResultGrace = time.Minute
	// maxLiveTasks and maxKeptTasks bound one server's tasks: running,
	// and kept in all (the oldest ended ones go first).
	maxLiveTasks = 16
	maxKeptTasks = 100
	// taskNoticeTimeout bounds sending a status notification.
	taskNoticeTimeout = 2 * time.Second
	// resultMargin is how long before a transport's deadline a waiting
	// tasks/result gives up, to have its answer sent.
	resultMargin = time.Second
)

// recvTask is one task the client runs for a server.
type recvTask struct {
	seq     uint64
	task    mcpgo.Task
	method  string
	done    chan struct{} // closed when the task reaches a terminal status
	result  json.RawMessage
	err     error
	cancel  context.CancelFunc
	expires time.Time
}

// taskStore holds the tasks of one session.
type taskStore struct {
	c   *conn
	cl  *client.Client
	now func() time.Time

	mu    sync.Mutex
	tasks map[string]*recvTask
	seq   uint64
}

func newTaskStore(c *conn, cl *client.Client) *taskStore {
	return &taskStore{c: c, cl: cl, now: time.Now, tasks: map[string]*recvTask{}}
}

// stamp formats a task timestamp (ISO 8601, as the specification asks).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// create accepts a task-augmented request and starts its work.
func (s *taskStore) create(method string, raw json.RawMessage, ttlMs *int64) (*mcpgo.CreateTaskResult, error) {
	ttl := maxTaskTTL
	if ttlMs != nil && *ttlMs > 0 {
		ttl = min(time.Duration(*ttlMs)*time.Millisecond, maxTaskTTL)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("task id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	now := s.now()
	ms, poll := ttl.Milliseconds(), taskPollInterval.Milliseconds()
	msg := "waiting for the user's answer"
	if method == string(mcpgo.MethodSamplingCreateMessage) {
		msg = "waiting for the user's approval and the model's answer"
	}
	t := &recvTask{method: method, done: make(chan struct{}), expires: now.Add(ttl),
		task: mcpgo.Task{TaskId: id, Status: mcpgo.TaskStatusWorking, StatusMessage: msg,
			CreatedAt: stamp(now), LastUpdatedAt: stamp(now), TTL: &ms, PollInterval: &poll}}
	ctx, cancel := context.WithTimeout(s.c.m.ctx, ttl)
	t.cancel = cancel

	s.mu.Lock()
	s.sweep()
	live := 0
	for _, x := range s.tasks {
		if !x.task.Status.IsTerminal() {
			live++
		}
	}
	if live >= maxLiveTasks {
		s.mu.Unlock()
		cancel()
		return nil, fmt.Errorf("%d of this server's tasks are still running: finish or cancel one first", live)
	}
	s.seq++
	t.seq = s.seq
	s.tasks[id] = t
	created := t.task
	s.mu.Unlock()

	s.c.m.log.Info("mcp: client task created", "server", s.c.cfg.Name, "method", method, "task", id, "ttl", ttl)
	go func() {
		res, err := s.c.serve(ctx, method, raw)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("the task's ttl (%s) ran out before it was answered", ttl)
		}
		var out json.RawMessage
		if err == nil {
			out, err = json.Marshal(res)
		}
		s.finish(id, out, err)
		cancel()
	}()
	return &mcpgo.CreateTaskResult{Task: created}, nil
}

// finish records the work's end: completed with its result, or failed with
// its error. A cancelled task stays cancelled.
func (s *taskStore) finish(id string, res json.RawMessage, err error) {
	s.mu.Lock()
	t, ok := s.tasks[id]
	if !ok || t.task.Status.IsTerminal() {
		s.mu.Unlock()
		return
	}
	t.result, t.err = res, err
	if err != nil {
		s.setStatus(t, mcpgo.TaskStatusFailed, err.Error())
	} else {
		s.setStatus(t, mcpgo.TaskStatusCompleted, "")
	}
	snap := t.task
	s.mu.Unlock()
	s.c.m.log.Info("mcp: client task ended", "server", s.c.cfg.Name, "task", id, "status", snap.Status)
	s.notify(snap)
}

// setStatus moves t to a terminal status; s.mu is held.
func (s *taskStore) setStatus(t *recvTask, st mcpgo.TaskStatus, msg string) {
	now := s.now()
	t.task.Status, t.task.StatusMessage, t.task.LastUpdatedAt = st, msg, stamp(now)
	t.expires = maxTime(t.expires, now.Add(taskResultGrace))
	close(t.done)
}

func bySeq(a, b *recvTask) int { return cmp.Compare(a.seq, b.seq) }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// notify sends notifications/tasks/status with the task's full state.
func (s *taskStore) notify(t mcpgo.Task) {
	b, err := json.Marshal(t)
	if err != nil {
		return
	}
	var fields map[string]any
	if json.Unmarshal(b, &fields) != nil {
		return
	}
	n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
		Method: mcpgo.MethodNotificationTasksStatus, Params: mcpgo.NotificationParams{AdditionalFields: fields}}}
	ctx, cancel := context.WithTimeout(s.c.m.ctx, taskNoticeTimeout)
	defer cancel()
	if err := s.cl.GetTransport().SendNotification(ctx, n); err != nil {
		s.c.m.log.Warn("mcp: could not send notifications/tasks/status", "server", s.c.cfg.Name, "task", t.TaskId, "err", err)
	}
}

// sweep forgets tasks past their ttl (ending the work of one still
// running) and the oldest ended ones over maxKeptTasks; s.mu is held.
func (s *taskStore) sweep() {
	now := s.now()
	for id, t := range s.tasks {
		if now.After(t.expires) {
			t.cancel()
			delete(s.tasks, id)
		}
	}
	if len(s.tasks) <= maxKeptTasks {
		return
	}
	ended := make([]*recvTask, 0, len(s.tasks))
	for _, t := range s.tasks {
		if t.task.Status.IsTerminal() {
			ended = append(ended, t)
		}
	}
	slices.SortFunc(ended, bySeq)
	for _, t := range ended[:max(0, min(len(ended), len(s.tasks)-maxKeptTasks))] {
		delete(s.tasks, t.task.TaskId)
	}
}

// lookup returns the task, or the specification's -32602.
func (s *taskStore) lookup(id string) (*recvTask, error) {
	s.sweep()
	t, ok := s.tasks[id]
	if !ok {
		return nil, invalidParams("Failed to retrieve task: Task not found (%s)", id)
	}
	return t, nil
}

// get answers tasks/get.
func (s *taskStore) get(id string) (*mcpgo.GetTaskResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return &mcpgo.GetTaskResult{Task: t.task}, nil
}

// result answers tasks/result: it waits for the task to end, then returns
// what the request itself would have, its result (with the related-task
// _meta the specification requires) or its error.
//
// A transport that bounds how long a request may wait for its answer
// (mcp-go's streamable HTTP: 30 s, and an answer past it is never sent)
// gets an error a moment before, so the server is told to ask again
// rather than left waiting for an answer that cannot come.
func (s *taskStore) result(ctx context.Context, id string) (json.RawMessage, error) {
	s.mu.Lock()
	t, err := s.lookup(id)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var early <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		tm := time.NewTimer(max(time.Until(dl)-resultMargin, 0))
		defer tm.Stop()
		early = tm.C
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-early:
		return nil, &rpcError{code: mcpgo.INTERNAL_ERROR, msg: fmt.Sprintf("task %s is still running and this transport cannot hold the answer longer: poll tasks/get, then ask tasks/result again", id)}
	}
	s.mu.Lock()
	st, msg, res, terr := t.task.Status, t.task.StatusMessage, t.result, t.err
	s.mu.Unlock()
	switch {
	case st == mcpgo.TaskStatusCancelled:
		return nil, &rpcError{code: mcpgo.INTERNAL_ERROR, msg: "the task was cancelled: " + msg}
	case terr != nil:
		return nil, terr
	}
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		return nil, fmt.Errorf("task %s: unreadable result: %w", id, err)
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcpgo.RelatedTaskMetaKey] = mcpgo.RelatedTaskMeta(id)
	m["_meta"] = meta
	return json.Marshal(m)
}

// taskListPage is how many tasks one tasks/list page holds.
const taskListPage = 50

// list answers tasks/list, oldest first; the cursor is the sequence
// number of the last task of the previous page.
func (s *taskStore) list(cursor string) (*mcpgo.ListTasksResult, error) {
	var after uint64
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 64)
		if err != nil {
			return nil, invalidParams("tasks/list: invalid cursor %q", cursor)
		}
		after = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	all := make([]*recvTask, 0, len(s.tasks))
	for _, t := range s.tasks {
		if t.seq > after {
			all = append(all, t)
		}
	}
	slices.SortFunc(all, bySeq)
	res := &mcpgo.ListTasksResult{Tasks: []mcpgo.Task{}}
	for i, t := range all {
		if i == taskListPage {
			res.NextCursor = mcpgo.Cursor(strconv.FormatUint(all[i-1].seq, 10))
			break
		}
		res.Tasks = append(res.Tasks, t.task)
	}
	return res, nil
}

// cancel answers tasks/cancel: the work is stopped (the user's dialog
// closes) and the task is cancelled for good.
func (s *taskStore) cancel(id string) (*mcpgo.CancelTaskResult, error) {
	s.mu.Lock()
	t, err := s.lookup(id)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if t.task.Status.IsTerminal() {
		st := t.task.Status
		s.mu.Unlock()
		return nil, invalidParams("Cannot cancel task: already in terminal status '%s'", st)
	}
	s.setStatus(t, mcpgo.TaskStatusCancelled, "cancelled at the server's request")
	t.cancel()
	snap := t.task
	s.mu.Unlock()
	s.c.m.log.Info("mcp: client task cancelled", "server", s.c.cfg.Name, "task", id)
	go s.notify(snap)
	return &mcpgo.CancelTaskResult{Task: snap}, nil
}
