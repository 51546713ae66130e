package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// scripted is a neutral provider for loop tests: it returns queued
// responses and records the requests it saw. Wire formats are covered by the
// adapters' own fakes.
type scripted struct {
	mu     sync.Mutex
	turns  []func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error)
	reqs   []*agent.Request
	native bool
}

var _ agent.Provider = (*scripted)(nil)

func (s *scripted) Name() string             { return "scripted" }
func (s *scripted) API() string              { return "test" }
func (s *scripted) NativeSearch(string) bool { return s.native }
func (s *scripted) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.turns) == 0 {
		s.mu.Unlock()
		return nil, errors.New("script exhausted")
	}
	f := s.turns[0]
	s.turns = s.turns[1:]
	s.mu.Unlock()
	return f(req, emit)
}

func answer(parts ...agent.Part) func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
	return func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		for _, p := range parts {
			if p.Type == agent.PartText {
				emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: p.Text})
			}
		}
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: parts}, Usage: agent.Usage{InputTokens: 10, OutputTokens: 2}}, nil
	}
}

func call(id, name, input string) agent.Part {
	return agent.ToolCallPart(agent.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)})
}

func echoTool(name string, deferred bool, exec tools.Executor) tools.Tool {
	if exec == nil {
		exec = func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: name + ":" + string(args)}, nil
		}
	}
	return tools.Tool{Name: name, Description: "echo", Deferred: deferred, Exec: exec,
		Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`)}
}

type fixedSearcher []string

func (f fixedSearcher) Search(context.Context, agent.SearchCall) ([]string, error) { return f, nil }

func collect(t *testing.T, s *agent.Session, text string) ([]agent.Event, error) {
	t.Helper()
	var evs []agent.Event
	err := s.Run(t.Context(), text, func(e agent.Event) { evs = append(evs, e) })
	return evs, err
}

func TestLoopRunsToolsAndDiscoveredToolsAlike(t *testing.T) {
	set := tools.NewSet()
	if err := set.Add(nil, echoTool("active", false, nil), echoTool("hidden", true, nil)); err != nil {
		t.Fatal(err)
	}
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "hidden"})),
		answer(call("c1", "active", `{"x":1}`), call("c2", "hidden", `{"x":2}`)),
		answer(agent.TextPart("done")),
	}}
	s := agent.New(agent.Config{Provider: p, Model: "m", Tools: set, Search: agent.SearchClient, Searcher: fixedSearcher{"hidden"}})
	evs, err := collect(t, s, "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(p.reqs))
	}
	// The tool lists are the same on every request: discovery never rewrites them.
	for i, r := range p.reqs {
		if len(r.Tools) != 1 || r.Tools[0].Name != "active" || len(r.Deferred) != 1 {
			t.Errorf("request %d tools = %v deferred = %v", i, r.Tools, r.Deferred)
		}
	}
	res := s.Messages()[4]
	if res.Parts[0].ToolResult.Text != `active:{"x":1}` || res.Parts[1].ToolResult.Text != `hidden:{"x":2}` {
		t.Errorf("results = %+v", res.Parts)
	}
	var types []agent.EventType
	for _, e := range evs {
		types = append(types, e.Type)
	}
	got := strings.Join(func() []string {
		var o []string
		for _, t := range types {
			if t != agent.EventMessage && t != agent.EventUsage {
				o = append(o, string(t))
			}
		}
		return o
	}(), ",")
	if !strings.Contains(got, "search_started,search_finished") || !strings.HasSuffix(got, "text_delta,done") {
		t.Errorf("events = %s", got)
	}
	if d := s.Discovered(); len(d) != 1 || d[0] != "hidden" {
		t.Errorf("discovered = %v", d)
	}
}

func TestToolCallsRunConcurrently(t *testing.T) {
	var running, peak atomic.Int32
	release := make(chan struct{})
	slow := func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		if n := running.Add(1); n > peak.Load() {
			peak.Store(n)
		}
		if running.Load() == 2 {
			close(release)
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		running.Add(-1)
		return tools.Result{Text: "ok"}, nil
	}
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("a", false, slow), echoTool("b", false, slow))
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(call("1", "a", `{"x":1}`), call("2", "b", `{"x":1}`)),
		answer(agent.TextPart("ok")),
	}}
	s := agent.New(agent.Config{Provider: p, Tools: set})
	if _, err := collect(t, s, "go"); err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 2 {
		t.Errorf("peak concurrency = %d, want 2", peak.Load())
	}
}

func TestBadArgumentsAndUnknownToolAreToolErrors(t *testing.T) {
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("a", true, nil))
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(call("1", "a", `{"x":"nope"}`), call("2", "ghost", `{}`), call("3", "a", `not json`)),
		answer(agent.TextPart("ok")),
	}}
	s := agent.New(agent.Config{Provider: p, Tools: set})
	if _, err := collect(t, s, "go"); err != nil {
		t.Fatal(err)
	}
	parts := s.Messages()[2].Parts
	for i, want := range []string{"invalid arguments for a: at /x", `unknown tool "ghost"`, "not valid JSON"} {
		r := parts[i].ToolResult
		if !r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("result %d = %+v, want error containing %q", i, r, want)
		}
	}
}

// An unknown tool's result sends the model to tool_search only where it
// is offered (some tool is deferred): with nothing deferred the card and
// the model read "search for tools with tool_search", a tool not there.
func TestUnknownToolSaysWhatToDo(t *testing.T) {
	for _, deferred := range []bool{true, false} {
		set := tools.NewSet()
		_ = set.Add(nil, echoTool("a", deferred, nil))
		p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
			answer(call("1", "ghost", `{}`)),
			answer(agent.TextPart("ok")),
		}}
		s := agent.New(agent.Config{Provider: p, Tools: set})
		if _, err := collect(t, s, "go"); err != nil {
			t.Fatal(err)
		}
		r := s.Messages()[2].Parts[0].ToolResult
		if got := strings.Contains(r.Text, "tool_search"); got != deferred || !strings.Contains(r.Text, `unknown tool "ghost"`) {
			t.Errorf("deferred %v: %q", deferred, r.Text)
		}
	}
}

func TestStepBudget(t *testing.T) {
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("a", false, nil))
	var turns []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error)
	for i := 0; i < 5; i++ {
		turns = append(turns, answer(call("c", "a", `{"x":1}`)))
	}
	p := &scripted{turns: turns}
	s := agent.New(agent.Config{Provider: p, Tools: set, MaxSteps: 3})
	_, err := collect(t, s, "go")
	if err == nil || !strings.Contains(err.Error(), "step budget of 3") {
		t.Fatalf("err = %v", err)
	}
	if len(p.reqs) != 3 {
		t.Errorf("requests = %d", len(p.reqs))
	}
}

func TestRetryHonoursRetryAfterOnlyBeforeStreaming(t *testing.T) {
	overloaded := func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
		return nil, &agent.APIError{Provider: "x", Status: 529, Type: "overloaded_error", RetryAfter: "0"}
	}
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		overloaded, overloaded, answer(agent.TextPart("hi")),
	}}
	s := agent.New(agent.Config{Provider: p, Backoff: 10 * time.Millisecond})
	evs, err := collect(t, s, "go")
	if err != nil {
		t.Fatal(err)
	}
	warnings := 0
	for _, e := range evs {
		if e.Type == agent.EventWarning {
			warnings++
		}
	}
	if warnings != 2 || len(p.reqs) != 3 {
		t.Errorf("warnings = %d requests = %d", warnings, len(p.reqs))
	}

	// A stream cut after text arrived is not retried: the text is kept.
	cut := func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "partial"})
		return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("partial")}, Interrupted: true}},
			&agent.APIError{Provider: "x", Status: 529, Message: "stream cut"}
	}
	p2 := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){cut}}
	s2 := agent.New(agent.Config{Provider: p2})
	if _, err := collect(t, s2, "go"); err == nil {
		t.Fatal("want error")
	}
	h := s2.Messages()
	if len(p2.reqs) != 1 || len(h) != 2 || !h[1].Interrupted || h[1].Text() != "partial" {
		t.Errorf("reqs = %d history = %+v", len(p2.reqs), h)
	}
}

func TestRepairHistoryAnswersDanglingCalls(t *testing.T) {
	h := []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("1", "a", `{}`), agent.SearchCallPart(agent.SearchCall{ID: "s", Where: agent.WhereClient, Query: "q"})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("again")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{call("2", "a", `{}`)}},
	}
	got := agent.RepairHistory(h)
	if len(got) != 5 {
		t.Fatalf("len = %d", len(got))
	}
	if p := got[2].Parts; len(p) != 3 || p[0].ToolResult == nil || p[1].SearchResult == nil || p[2].Text != "again" {
		t.Errorf("repaired user message = %+v", p)
	}
	if p := got[4].Parts; len(p) != 1 || p[0].ToolResult.CallID != "2" || !p[0].ToolResult.IsError {
		t.Errorf("appended = %+v", p)
	}
	// Already valid history is unchanged.
	if again := agent.RepairHistory(got); len(again) != len(got) {
		t.Errorf("repair is not idempotent")
	}
}

func TestCancelKeepsWhatArrived(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		func(req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
			emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: "so far"})
			cancel()
			return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("so far")}, Interrupted: true}}, context.Canceled
		},
	}}
	s := agent.New(agent.Config{Provider: p})
	err := s.Run(ctx, "go", func(agent.Event) {})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if h := s.Messages(); len(h) != 2 || h[1].Text() != "so far" {
		t.Errorf("history = %+v", h)
	}
}

func TestApprovalDenied(t *testing.T) {
	ran := false
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("danger", false, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		return tools.Result{}, nil
	}))
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(call("1", "danger", `{"x":1}`)), answer(agent.TextPart("ok")),
	}}
	s := agent.New(agent.Config{Provider: p, Tools: set, Permit: (&permission.Policy{RequireApproval: []string{"*"}}).Func(nil)})
	asked := 0
	err := s.Run(t.Context(), "go", func(e agent.Event) {
		if e.Type == agent.EventApproval {
			asked++
			if !s.Answer(e.Tool.ID, false) {
				t.Errorf("approval %s was not waiting", e.Tool.ID)
			}
		}
	})
	if err != nil || asked != 1 {
		t.Fatalf("err %v, asked %d", err, asked)
	}
	if ran {
		t.Error("denied tool ran")
	}
	if r := s.Messages()[2].Parts[0].ToolResult; !r.IsError || !strings.Contains(r.Text, "denied") {
		t.Errorf("result = %+v", r)
	}
}

func TestResolveSearch(t *testing.T) {
	def := []agent.ToolDef{{Name: "x", Description: "ten bytes.", Schema: json.RawMessage(`{"type":"object"}`)}} // 28 bytes
	for _, tc := range []struct {
		native   bool
		mode     agent.SearchMode
		deferred []agent.ToolDef
		budget   int
		want     agent.SearchMode
	}{
		{true, agent.SearchNative, def, 0, agent.SearchNative},
		{false, agent.SearchNative, def, 0, agent.SearchClient},
		{true, agent.SearchClient, def, 0, agent.SearchClient},
		{true, agent.SearchOff, def, 0, agent.SearchOff},
		{true, agent.SearchNative, nil, 0, agent.SearchOff},
		// The wire budget: at it native search stays, past it client.
		{true, agent.SearchNative, def, 28, agent.SearchNative},
		{true, agent.SearchNative, def, 27, agent.SearchClient},
		{true, agent.SearchOff, def, 1, agent.SearchOff},
	} {
		got := agent.ResolveSearch(&scripted{native: tc.native}, &agent.Request{Search: tc.mode, Deferred: tc.deferred, WireBudget: tc.budget})
		if got != tc.want {
			t.Errorf("native=%v mode=%s deferred=%d budget=%d: got %s want %s", tc.native, tc.mode, len(tc.deferred), tc.budget, got, tc.want)
		}
	}
}

func TestRetryAfterBoundedByMaxRetryWait(t *testing.T) {
	limited := func(ra string) func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
		return func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
			return nil, &agent.APIError{Provider: "x", Status: 429, Type: "rate_limit_error", RetryAfter: ra}
		}
	}
	// Longer than max_retry_wait: fail at once, saying when to retry.
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){limited("86400"), answer(agent.TextPart("hi"))}}
	s := agent.New(agent.Config{Provider: p, MaxRetryWait: time.Minute})
	start := time.Now()
	_, err := collect(t, s, "go")
	var ae *agent.APIError
	if err == nil || !errors.As(err, &ae) || !errors.Is(err, agent.ErrRateLimited) || !strings.Contains(err.Error(), "max_retry_wait") || !strings.Contains(err.Error(), "24h0m0s") {
		t.Fatalf("err = %v", err)
	}
	if len(p.reqs) != 1 || time.Since(start) > 10*time.Second {
		t.Fatalf("requests = %d after %s", len(p.reqs), time.Since(start))
	}

	// Within it: honoured (the normal backoff would take an hour).
	p = &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){limited("1"), answer(agent.TextPart("hi"))}}
	s = agent.New(agent.Config{Provider: p, MaxRetryWait: time.Minute, Backoff: time.Hour})
	start = time.Now()
	if _, err := collect(t, s, "go"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || d > 30*time.Second {
		t.Fatalf("waited %s for retry-after 1", d)
	}
}

// #26: retry-after 0 (20 agents sent 100 requests in 1.1 s) and values of
// a few milliseconds are no hint either: the normal backoff applies.
func TestRetryAfterUnusableValuesBackOff(t *testing.T) {
	for _, ra := range []string{"inf", "-inf", "NaN", "-4", "1e12", "1e400", "0", "0.0", "0.001", "0.01"} {
		limited := func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) {
			return nil, &agent.APIError{Provider: "x", Status: 429, RetryAfter: ra}
		}
		p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){limited, limited, answer(agent.TextPart("hi"))}}
		s := agent.New(agent.Config{Provider: p, Backoff: 40 * time.Millisecond})
		start := time.Now()
		if _, err := collect(t, s, "go"); err != nil {
			t.Fatalf("%s: %v", ra, err)
		}
		// Normal backoff: at least half of 40 ms, then half of 80 ms.
		if d := time.Since(start); d < 60*time.Millisecond {
			t.Errorf("retry-after %s: three requests in %s, want the normal backoff", ra, d)
		}
	}
}

// timeoutErr stands for a provider timeout: retryable, not an APIError.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "no answer for 60s (first_byte_timeout)" }
func (timeoutErr) Retryable() bool { return true }

func TestRetryableNonAPIErrorIsRetried(t *testing.T) {
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error) { return nil, timeoutErr{} },
		answer(agent.TextPart("hi")),
	}}
	s := agent.New(agent.Config{Provider: p, Backoff: time.Millisecond})
	if _, err := collect(t, s, "go"); err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) != 2 {
		t.Fatalf("requests = %d", len(p.reqs))
	}
}

// #14 case 8 and 10: a deferred tool never searched for still waits for
// approval when called directly; tool_call without a name says what it needs.
func TestApprovalHoldsForUnsearchedDeferredTool(t *testing.T) {
	ran := false
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("srv__rm", true, func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		return tools.Result{Text: "gone"}, nil
	}))
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){
		answer(call("1", "srv__rm", `{"x":1}`), call("2", "tool_call", `{}`)), answer(agent.TextPart("ok")),
	}}
	asked := 0
	s := agent.New(agent.Config{Provider: p, Tools: set, Search: agent.SearchClient,
		Permit: (&permission.Policy{RequireApproval: []string{"srv__rm"}}).Func(nil)})
	err := s.Run(t.Context(), "go", func(e agent.Event) {
		if e.Type == agent.EventApproval {
			asked++
			s.Answer(e.Tool.ID, false)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ran || asked != 1 {
		t.Fatalf("ran = %v asked = %d", ran, asked)
	}
	res := s.Messages()[2].Parts
	if !strings.Contains(res[0].ToolResult.Text, "denied") {
		t.Errorf("result = %q", res[0].ToolResult.Text)
	}
	if txt := res[1].ToolResult.Text; !strings.Contains(txt, `tool_call needs "name"`) || strings.Contains(txt, "unknown tool") {
		t.Errorf("nameless tool_call: %q", txt)
	}
}

// recStore records what the loop checkpoints.
type recStore struct {
	mu       sync.Mutex
	partials []agent.Message
}

func (r *recStore) AppendMessage(context.Context, agent.Message) error { return nil }
func (r *recStore) SavePartial(_ context.Context, m agent.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partials = append(r.partials, m)
	return nil
}
func (r *recStore) RecordRequest(context.Context, agent.RequestRecord) error { return nil }

// #14 case 6: a tool's start is checkpointed before it runs, and a turn
// cancelled while it runs says it may have completed.
func TestToolStartIsRecordedBeforeItRuns(t *testing.T) {
	st := &recStore{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sawCheckpoint := false
	set := tools.NewSet()
	_ = set.Add(nil, echoTool("slow", false, func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		st.mu.Lock()
		for _, m := range st.partials {
			if m.Role == agent.RoleUser && len(m.Parts) == 1 && m.Parts[0].ToolResult != nil && m.Parts[0].ToolResult.Text == agent.StoppedResult {
				sawCheckpoint = true
			}
		}
		st.mu.Unlock()
		cancel()
		<-ctx.Done()
		return tools.Result{}, ctx.Err()
	}))
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){answer(call("1", "slow", `{"x":1}`))}}
	s := agent.New(agent.Config{Provider: p, Tools: set, Store: st})
	var finished *agent.ToolEvent
	_ = s.Run(ctx, "go", func(ev agent.Event) {
		if ev.Type == agent.EventToolFinished {
			finished = ev.Tool
		}
	})
	if !sawCheckpoint {
		t.Fatal("the tool ran before its start was checkpointed")
	}
	h := s.Messages()
	if len(h) != 3 || h[2].Parts[0].ToolResult.Text != agent.StoppedResult {
		t.Fatalf("history = %+v", h)
	}
	// The front end hears a cancelled call, not a failed tool.
	if finished == nil || !errors.Is(finished.Err, agent.ErrCancelled) || !finished.IsError {
		t.Errorf("tool_call_finished = %+v, want an error of kind ErrCancelled", finished)
	}
}

// ctxStore fails a write on a context that is done, as the SQLite store
// does, and counts what it kept.
type ctxStore struct {
	recStore
	saved int
}

func (c *ctxStore) AppendMessage(ctx context.Context, _ agent.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.saved++
	return nil
}

// A turn cancelled before its request went out (ctrl+c during the
// catalog wait) is "turn cancelled", its prompt kept in the store as in
// the history: the TUI said "save message: append message to session
// ...: context canceled".
func TestCancelledBeforeTheRequestKeepsThePrompt(t *testing.T) {
	st := &ctxStore{}
	p := &scripted{turns: []func(*agent.Request, func(agent.StreamEvent)) (*agent.Response, error){answer(agent.TextPart("never"))}}
	s := agent.New(agent.Config{Provider: p, Store: st})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := s.Run(ctx, "hello", func(agent.Event) {})
	if !errors.Is(err, agent.ErrCancelled) || strings.Contains(err.Error(), "save message") {
		t.Fatalf("err = %v, want a cancelled turn", err)
	}
	if st.saved != 1 || len(s.Messages()) != 1 {
		t.Errorf("saved %d messages, history %d; want the prompt in both", st.saved, len(s.Messages()))
	}
	// Said in the user's words (-p printed "turn cancelled: context
	// canceled"), still a context.Canceled to code that asks.
	if err.Error() != "turn cancelled" || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %q (is context.Canceled: %v), want \"turn cancelled\" wrapping context.Canceled", err, errors.Is(err, context.Canceled))
	}
}
