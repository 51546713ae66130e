package telemetry

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
)

// TurnInfo describes a turn as it starts.
type TurnInfo struct {
	// SessionID is gen_ai.conversation.id.
	SessionID string
	// Provider is the provider as the user named it (--provider).
	Provider string
	// Agent is the agent profile's name; "agent" when none.
	Agent string
	// Prompt is the user's text: in the span only with LogContent.
	Prompt string
	// Price gives a request's cost in USD, false when the model has no price.
	Price func(model string, u agent.Usage) (float64, bool)
	// Compaction: not a turn but a compaction asked for between turns
	// (/compact, agent sessions compact); its span is "compact NAME".
	Compaction bool
}

// Turn follows one turn's events and turns them into spans: the turn's
// (invoke_agent), and under it one per provider request (chat), tool call
// (execute_tool) and search. A nil *Turn does nothing.
type Turn struct {
	t    *Telemetry
	info TurnInfo
	ctx  context.Context
	span trace.Span

	mu       sync.Mutex
	tools    map[string]trace.Span
	searches map[string]openSearch
	requests int
	usage    agent.Usage
	cost     float64
}

type openSearch struct {
	span  trace.Span
	start time.Time
}

// StartTurn opens the turn's span under ctx's (a subagent's turn under its
// parent's). The returned context carries it: give it to the turn so what
// the turn starts (a subagent) nests under it.
func (t *Telemetry) StartTurn(ctx context.Context, info TurnInfo) (context.Context, *Turn) {
	if t == nil {
		return ctx, nil
	}
	<-t.ready // built in the background: long since, as a rule
	if info.Agent == "" {
		info.Agent = "agent"
	}
	op := "invoke_agent"
	if info.Compaction {
		op = "compact"
	}
	attrs := []attribute.KeyValue{
		attribute.String(attrOperation, op),
		attribute.String(attrAgentName, info.Agent),
		attribute.String(attrProvider, info.Provider),
	}
	if info.SessionID != "" {
		attrs = append(attrs, attribute.String(attrConversation, info.SessionID))
	}
	if t.logContent && info.Prompt != "" {
		attrs = append(attrs, attribute.String(attrInputMessages, userMessages(info.Prompt)))
	}
	ctx, span := t.tracer.Start(ctx, op+" "+info.Agent, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &Turn{t: t, info: info, ctx: ctx, span: span, tools: map[string]trace.Span{}, searches: map[string]openSearch{}}
}

// userMessages is the prompt as gen_ai.input.messages' JSON.
func userMessages(text string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	b, _ := json.Marshal([]msg{{Role: "user", Parts: []part{{Type: "text", Content: text}}}})
	return string(b)
}

// Observe records one event of the turn, as it is emitted.
func (tr *Turn) Observe(ev agent.Event) {
	if tr == nil {
		return
	}
	now := time.Now()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch ev.Type {
	case agent.EventUsage:
		if ev.Usage != nil {
			tr.request(ev, now)
		}
	case agent.EventToolStarted:
		if ev.Tool != nil {
			tr.toolStarted(*ev.Tool, now)
		}
	case agent.EventToolFinished:
		if ev.Tool != nil {
			tr.toolFinished(*ev.Tool, now)
		}
	case agent.EventApproval:
		if ev.Tool != nil {
			if s, ok := tr.tools[ev.Tool.ID]; ok {
				s.AddEvent("approval_requested", trace.WithTimestamp(now))
			}
		}
	case agent.EventSearchStarted:
		if ev.Search != nil {
			tr.searchStarted(*ev.Search, now)
		}
	case agent.EventSearchFinished:
		if ev.Search != nil {
			tr.searchFinished(*ev.Search, now)
		}
	case agent.EventCompacted:
		tr.span.AddEvent("compacted", trace.WithTimestamp(now))
	case agent.EventWarning:
		// An automatic compaction whose summary request got no response:
		// the turn goes on, the request is a failed chat span.
		if sv := ev.Served; sv != nil && sv.Failed != nil {
			tr.failed(*sv, errorType(sv.Failed), now)
		}
	case agent.EventError:
		kind := errorType(ev.Err)
		if ev.Served != nil {
			tr.failed(*ev.Served, kind, now)
		}
		tr.span.SetAttributes(attribute.String(attrErrorType, kind))
		// The kind only: an error's text may quote the model or a tool.
		tr.span.SetStatus(codes.Error, kind)
	}
}

// errorType is error.type for err: its kind, or _OTHER.
func errorType(err error) string {
	if k := agent.KindOf(err); k != nil {
		return k.Error()
	}
	return "_OTHER"
}

// request records a finished provider request as a chat span ending now.
func (tr *Turn) request(ev agent.Event, now time.Time) {
	u := *ev.Usage
	sv := agent.Served{}
	if ev.Served != nil {
		sv = *ev.Served
	}
	start := now.Add(-sv.Elapsed)
	input := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	cost, priced := 0.0, false
	if tr.info.Price != nil {
		cost, priced = tr.info.Price(sv.Model, u)
	}
	tr.requests++
	tr.usage.Add(u)
	tr.cost += cost
	base := []attribute.KeyValue{
		attribute.String(attrOperation, "chat"),
		attribute.String(attrProvider, tr.info.Provider),
		attribute.String(attrRequestModel, sv.Model),
	}
	attrs := append(base[:len(base):len(base)],
		attribute.String(attrResponseModel, sv.Model),
		attribute.String(attrAPI, sv.API),
		attribute.String(attrSearchMode, string(sv.Search)),
		attribute.Int(attrInputTokens, input),
		attribute.Int(attrOutputTokens, u.OutputTokens),
		attribute.Int(attrCacheRead, u.CacheReadTokens),
		attribute.Int(attrCacheCreation, u.CacheWriteTokens),
		attribute.Float64(attrCost, cost),
		attribute.Bool(attrPriced, priced),
		attribute.Bool(attrCompaction, sv.Compaction),
	)
	if ev.Request > 0 {
		attrs = append(attrs, attribute.Int(attrRequestNumber, ev.Request))
	}
	if ev.StopReason != "" {
		attrs = append(attrs, attribute.StringSlice(attrFinishReasons, []string{string(ev.StopReason)}))
	}
	_, span := tr.t.tracer.Start(tr.ctx, "chat "+sv.Model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(now))

	ctx, m := tr.ctx, tr.t.m
	set := metric.WithAttributes(base...)
	m.tokenHist.Record(ctx, int64(input), metric.WithAttributes(append(base, attribute.String(attrTokenType, "input"))...))
	m.tokenHist.Record(ctx, int64(u.OutputTokens), metric.WithAttributes(append(base, attribute.String(attrTokenType, "output"))...))
	m.duration.Record(ctx, sv.Elapsed.Seconds(), set)
	m.requests.Add(ctx, 1, set)
	for _, c := range []struct {
		kind string
		n    int
	}{{"input", u.InputTokens}, {"output", u.OutputTokens}, {"cache_read", u.CacheReadTokens}, {"cache_creation", u.CacheWriteTokens}} {
		if c.n > 0 {
			m.tokens.Add(ctx, int64(c.n), metric.WithAttributes(append(base, attribute.String(attrTokenType, c.kind))...))
		}
	}
	if priced {
		m.cost.Add(ctx, cost, set)
	}
}

// failed records a provider request that got no response as a chat span
// with error status, ending now.
func (tr *Turn) failed(sv agent.Served, kind string, now time.Time) {
	attrs := []attribute.KeyValue{
		attribute.String(attrOperation, "chat"),
		attribute.String(attrProvider, tr.info.Provider),
		attribute.String(attrRequestModel, sv.Model),
		attribute.String(attrAPI, sv.API),
		attribute.String(attrErrorType, kind),
		attribute.Bool(attrCompaction, sv.Compaction),
	}
	_, span := tr.t.tracer.Start(tr.ctx, "chat "+sv.Model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(now.Add(-sv.Elapsed)), trace.WithAttributes(attrs...))
	span.SetStatus(codes.Error, kind)
	span.End(trace.WithTimestamp(now))
	tr.t.m.duration.Record(tr.ctx, sv.Elapsed.Seconds(), metric.WithAttributes(attrs[0], attrs[1], attrs[2], attrs[4]))
}

func (tr *Turn) toolStarted(ev agent.ToolEvent, now time.Time) {
	attrs := []attribute.KeyValue{
		attribute.String(attrOperation, "execute_tool"),
		attribute.String(attrToolName, ev.Name),
		attribute.String(attrToolCallID, ev.ID),
		attribute.String(attrToolType, "function"),
		attribute.String(attrToolServer, ev.Server),
		attribute.Bool(attrToolDiscovered, ev.Discovered),
	}
	if tr.t.logContent && len(ev.Input) > 0 {
		attrs = append(attrs, attribute.String(attrToolArguments, string(ev.Input)))
	}
	_, span := tr.t.tracer.Start(tr.ctx, "execute_tool "+ev.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(now), trace.WithAttributes(attrs...))
	tr.tools[ev.ID] = span
}

func (tr *Turn) toolFinished(ev agent.ToolEvent, now time.Time) {
	span, ok := tr.tools[ev.ID]
	if !ok {
		return
	}
	delete(tr.tools, ev.ID)
	outcome := "success"
	if ev.IsError || ev.Err != nil {
		outcome = "error"
		kind := errorType(ev.Err)
		if ev.Err == nil {
			kind = "tool_error" // the tool answered with isError
		}
		span.SetAttributes(attribute.String(attrErrorType, kind))
		span.SetStatus(codes.Error, kind)
	}
	span.SetAttributes(attribute.String(attrToolOutcome, outcome))
	if tr.t.logContent && ev.Result != "" {
		span.SetAttributes(attribute.String(attrToolResult, ev.Result))
	}
	span.End(trace.WithTimestamp(now))
	set := metric.WithAttributes(attribute.String(attrToolName, ev.Name), attribute.String(attrToolServer, ev.Server),
		attribute.String(attrToolOutcome, outcome))
	tr.t.m.toolCalls.Add(tr.ctx, 1, set)
	tr.t.m.toolDuration.Record(tr.ctx, ev.Duration.Seconds(), set)
}

func (tr *Turn) searchStarted(ev agent.SearchEvent, now time.Time) {
	attrs := []attribute.KeyValue{attribute.String(attrSearchWhere, ev.Where)}
	if tr.t.logContent && ev.Query != "" {
		attrs = append(attrs, attribute.String(attrSearchQuery, ev.Query))
	}
	_, span := tr.t.tracer.Start(tr.ctx, "search_tools", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(now), trace.WithAttributes(attrs...))
	tr.searches[ev.ID] = openSearch{span, now}
}

func (tr *Turn) searchFinished(ev agent.SearchEvent, now time.Time) {
	s, ok := tr.searches[ev.ID]
	if !ok {
		// A provider's result whose call came in an earlier response:
		// the search is recorded with no latency of its own.
		tr.searchStarted(ev, now)
		s = tr.searches[ev.ID]
	}
	delete(tr.searches, ev.ID)
	outcome := "success"
	s.span.SetAttributes(attribute.Int(attrSearchHits, len(ev.Tools)))
	if tr.t.logContent && len(ev.Tools) > 0 {
		// Tool names are configuration, not content, but a search's hits
		// follow the query, which is.
		s.span.SetAttributes(attribute.StringSlice(attrSearchTools, ev.Tools))
	}
	if ev.Error != "" {
		outcome = "error"
		s.span.SetAttributes(attribute.String(attrErrorType, "search_error"))
		s.span.SetStatus(codes.Error, "search_error")
	}
	s.span.End(trace.WithTimestamp(now))
	set := metric.WithAttributes(attribute.String(attrSearchWhere, ev.Where), attribute.String(attrToolOutcome, outcome))
	tr.t.m.searches.Add(tr.ctx, 1, set)
	tr.t.m.searchTime.Record(tr.ctx, now.Sub(s.start).Seconds(), set)
}

// CallContext is ctx carrying the span of the turn's running tool call id:
// a subagent the call runs starts its turn's span there, so its requests,
// calls and searches nest under the run_agent call of its parent's turn.
func (tr *Turn) CallContext(ctx context.Context, id string) context.Context {
	if tr == nil {
		return ctx
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if s, ok := tr.tools[id]; ok {
		return trace.ContextWithSpan(ctx, s)
	}
	return ctx
}

// End closes the turn's span, and any tool or search span the turn left
// open (a cancelled turn).
func (tr *Turn) End() {
	if tr == nil {
		return
	}
	now := time.Now()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for id, s := range tr.tools {
		s.SetStatus(codes.Error, "unfinished")
		s.End(trace.WithTimestamp(now))
		delete(tr.tools, id)
	}
	for id, s := range tr.searches {
		s.span.SetStatus(codes.Error, "unfinished")
		s.span.End(trace.WithTimestamp(now))
		delete(tr.searches, id)
	}
	u := tr.usage
	tr.span.SetAttributes(
		attribute.Int(attrRequests, tr.requests),
		attribute.Int(attrInputTokens, u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens),
		attribute.Int(attrOutputTokens, u.OutputTokens),
		attribute.Int(attrCacheRead, u.CacheReadTokens),
		attribute.Int(attrCacheCreation, u.CacheWriteTokens),
		attribute.Float64(attrCost, pricing.Round(tr.cost)),
	)
	tr.span.End(trace.WithTimestamp(now))
}
