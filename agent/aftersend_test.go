package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// writer is a provider whose HTTP layer reports the request written
// (agent.SentHook), twice as a request written again on a new connection
// would, before its answer streams.
type writer struct {
	scripted
	note func(string)
}

func (w *writer) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if sent := agent.SentHook(ctx); sent != nil {
		sent()
		w.note("written")
		sent()
	}
	return w.scripted.Send(ctx, req, emit)
}

// AfterSend is called once per request, after BeforeSend: when the
// provider's HTTP layer says the request was written (SentHook, however
// often), else at the answer's first event, or when the request ends
// without one (an answer with nothing streamed, a failed request).
func TestAfterSendOncePerRequest(t *testing.T) {
	var log []string
	note := func(s string) { log = append(log, s) }
	type turn = func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error)
	streamed := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "a"})
		note("first event")
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "b"})
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("ab")}}}, nil
	}
	silent := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{call("c1", "x", `{}`)}}}, nil
	}
	failed := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		note("send")
		return nil, errors.New("refused")
	}
	for _, tc := range []struct {
		name    string
		written bool // the provider reports the request written
		turns   []turn
		want    []string
	}{
		{"streamed", false, []turn{streamed},
			[]string{"before send", "send", "after send", "first event"}},
		{"nothing streamed, then streamed", false, []turn{silent, streamed},
			[]string{"before send", "send", "after send", "before send", "send", "after send", "first event"}},
		{"failed", false, []turn{failed},
			[]string{"before send", "send", "after send"}},
		{"written, then streamed", true, []turn{streamed},
			[]string{"before send", "after send", "written", "send", "first event"}},
		{"written, then failed", true, []turn{failed},
			[]string{"before send", "after send", "written", "send"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log = nil
			var p agent.Provider = &scripted{turns: tc.turns}
			if tc.written {
				p = &writer{scripted: scripted{turns: tc.turns}, note: note}
			}
			s := agent.New(agent.Config{Provider: p, Model: "m", Retries: -1,
				BeforeSend: func() { note("before send") },
				AfterSend:  func() { note("after send") },
			})
			_, _ = collect(t, s, "go")
			if !slices.Equal(log, tc.want) {
				t.Errorf("calls %q, want %q", log, tc.want)
			}
		})
	}
	if agent.SentHook(context.Background()) != nil {
		t.Error("a context no request was sent with has a hook")
	}
}

// late is a provider whose HTTP layer reports the request written only
// after the answer came: net/http's writer may finish the body after a
// server answered early, and calls the trace then, from its goroutine.
type late struct {
	scripted
	hook func()
}

func (l *late) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	l.hook = agent.SentHook(ctx)
	return l.scripted.Send(ctx, req, emit)
}

// A SentHook called after its request ended, while the session is being
// changed between turns, neither calls AfterSend again nor reads the
// session's configuration (a data race go test -race reports).
func TestAfterSendHookCalledLate(t *testing.T) {
	var n atomic.Int32
	p := &late{scripted: scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
			return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("ok")}}}, nil
		},
	}}}
	s := agent.New(agent.Config{Provider: p, Model: "m", Retries: -1, AfterSend: func() { n.Add(1) }})
	if _, err := collect(t, s, "go"); err != nil {
		t.Fatal(err)
	}
	if p.hook == nil {
		t.Fatal("the request carried no SentHook")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.hook()
	}()
	if err := s.Override(func(tc *agent.TurnContext) { tc.AfterSend = func() { n.Add(100) } }); err != nil {
		t.Fatal(err)
	}
	<-done
	if got := n.Load(); got != 1 {
		t.Errorf("AfterSend ran %d times (a later one's count in hundreds), want once", got)
	}
}
