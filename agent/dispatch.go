package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// InterruptedResult is the text of the synthetic result given to a tool call
// whose turn was cut off, so the history stays valid for every provider.
const InterruptedResult = "interrupted: the turn was cancelled before this tool call ran"

// StoppedResult answers a tool call that had started when the agent stopped
// (a crash, kill -9, a cancelled turn): unlike InterruptedResult, the tool
// may have done its work. Its start is checkpointed to the store before the
// tool runs, so a resume can tell the two apart.
const StoppedResult = "the agent stopped while this tool was running; it may have completed; check before running it again"

// startLog checkpoints, before each tool runs, a user message answering the
// calls started so far with StoppedResult. The real results replace it when
// the calls finish; after a crash it is what a resume finds.
type startLog struct {
	mu      sync.Mutex
	s       *Session
	started []Part
}

func (l *startLog) start(ctx context.Context, c ToolCall) {
	if l == nil || l.s.cfg.Store == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = append(l.started, ToolResultPart(ToolResult{CallID: c.ID, Name: c.Name, Text: StoppedResult, IsError: true}))
	_ = l.s.cfg.Store.SavePartial(context.WithoutCancel(ctx), Message{Role: RoleUser, Parts: append([]Part(nil), l.started...)})
}

// runCalls runs the client-side searches and tool calls of an assistant
// message and returns the parts of the user message that answers them.
// Independent tool calls run concurrently; results keep the calls' order.
func (s *Session) runCalls(ctx context.Context, m Message, emit func(Event)) []Part {
	var out []Part
	type slot struct {
		idx  int
		call ToolCall
	}
	var calls []slot
	for _, p := range m.Parts {
		switch {
		case p.Type == PartSearchCall && p.SearchCall != nil && p.SearchCall.Where == WhereClient:
			out = append(out, SearchResultPart(s.clientSearch(ctx, *p.SearchCall, emit)))
		case p.Type == PartToolCall && p.ToolCall != nil:
			calls = append(calls, slot{len(out), *p.ToolCall})
			out = append(out, Part{})
		case p.Type == PartServerTool && p.ServerTool != nil && p.ServerTool.Pending:
			out = append(out, s.approveServerTool(ctx, *p.ServerTool, emit))
		}
	}
	var wg sync.WaitGroup
	log := &startLog{s: s}
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[c.idx] = ToolResultPart(s.runTool(ctx, c.call, log, emit))
		}()
	}
	wg.Wait()
	return out
}

func (s *Session) clientSearch(ctx context.Context, c SearchCall, emit func(Event)) SearchResult {
	emit(Event{Type: EventSearchStarted, Search: &SearchEvent{ID: c.ID, Where: WhereClient, Query: c.Text()}})
	res := SearchResult{CallID: c.ID, Where: WhereClient, Tools: []string{}}
	if s.cfg.Searcher == nil {
		res.Error = "tool search is not available"
	} else if found, err := s.cfg.Searcher.Search(ctx, c); err != nil {
		res.Error = err.Error()
	} else {
		res.Tools = found
		s.noteSearch(ctx, c, found, WhereClient)
	}
	emit(Event{Type: EventSearchFinished, Search: &SearchEvent{ID: c.ID, Where: WhereClient, Query: c.Text(), Tools: res.Tools, Error: res.Error}})
	return res
}

// approveServerTool answers a provider-hosted call that waits for the
// user's approval; the adapter renders the answer in its own words.
func (s *Session) approveServerTool(ctx context.Context, st ServerTool, emit func(Event)) Part {
	ok := s.askApproval(ctx, ToolEvent{ID: st.ID, Name: st.Name, Input: st.Input}, emit).Behavior == permission.Allow
	return ServerToolPart(ServerTool{ID: st.ID, Name: st.Name, Approved: &ok, IsError: !ok})
}

func (s *Session) runTool(ctx context.Context, c ToolCall, log *startLog, emit func(Event)) ToolResult {
	t, ok := s.cfg.Tools.Lookup(c.Name)
	ev := ToolEvent{ID: c.ID, Name: c.Name, Input: c.Input}
	if ok {
		ev.Server = t.Server
		ev.Discovered = s.cfg.Tools.IsDeferred(c.Name)
	}
	emit(Event{Type: EventToolStarted, Tool: &ev})
	if ok {
		s.noteCall(ctx, t.Name, t.Server)
	}
	var ran time.Duration
	res, err := s.execute(ctx, t, ok, c, log, emit, &ran)
	fin := ev
	fin.Duration = ran
	fin.Result = res.Text
	fin.IsError = res.IsError
	fin.Err = err
	if de := (*DeniedError)(nil); errors.As(err, &de) {
		// A refused call did not fail: the front end says "denied" and
		// names what refused it (a rule, the mode, a hook).
		fin.Permission = &de.Decision
	}
	emit(Event{Type: EventToolFinished, Tool: &fin})
	return res
}

// DeniedError is a call the permission check refused (the user, a deny
// rule, the mode or a hook): it did not run. Its kind stays ErrToolFailed.
type DeniedError struct {
	Decision permission.Decision
	Msg      string
}

func (e *DeniedError) Error() string { return e.Msg }

// DeniedByUser is the result of a call the user refused.
const DeniedByUser = "the user denied this tool call; do not retry it without asking"

// refusal is what the model reads of a call that did not run: the
// decision's reason, or that the user said no.
func refusal(d permission.Decision) string {
	if d.Reason != "" {
		return d.Reason
	}
	return DeniedByUser
}

// execute runs one call; a failure is both the result the model reads and
// an error of kind ErrToolFailed for the front end.
//
// ran is set to how long the tool itself ran: not the wait for the user's
// approval, nor the hooks around it (a card that said "✓ 12.0s" for a
// 40 ms call approved after 12 s misled about the tool). A call that never
// ran leaves it 0.
func (s *Session) execute(ctx context.Context, t *tools.Tool, ok bool, c ToolCall, log *startLog, emit func(Event), ran *time.Duration) (ToolResult, error) {
	fail := func(msg string) (ToolResult, error) {
		return ToolResult{CallID: c.ID, Name: c.Name, Text: msg, IsError: true}, WithKind(ErrToolFailed, errors.New(msg))
	}
	// cancelled is a call the turn's cancel stopped, before or while it
	// ran: not a failure of the tool, so front ends need not say "failed".
	cancelled := func(msg string) (ToolResult, error) {
		return ToolResult{CallID: c.ID, Name: c.Name, Text: msg, IsError: true}, WithKind(ErrCancelled, errors.New(msg))
	}
	if !ok && (c.Name == "" || c.Name == "tool_call") {
		// The client-search wrapper arrived without a usable "name".
		return fail(`tool_call needs "name": the name of a tool that tool_search returned, and "arguments": an object matching its input schema, e.g. {"name": "github__create_issue", "arguments": {"title": "..."}}`)
	}
	if !ok {
		slog.Warn("model called a tool that was never offered", "tool", c.Name)
		if len(s.cfg.Tools.Deferred()) == 0 {
			// Nothing is deferred, so no search tool is offered: pointing
			// the model (and the card the user reads) at tool_search
			// names a tool that is not there.
			return fail(fmt.Sprintf("unknown tool %q: it is not offered in this conversation; call one of the tools offered, by its exact name", c.Name))
		}
		return fail(fmt.Sprintf("unknown tool %q: it is not offered in this conversation; search for tools with tool_search and use a name it returns", c.Name))
	}
	if ctx.Err() != nil {
		return cancelled(InterruptedResult)
	}
	input := c.Input
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	if err := validateArgs(t, input); err != nil {
		return fail(fmt.Sprintf("invalid arguments for %s: %v. Fix the arguments to match the tool's input schema and call it again.", c.Name, err))
	}
	if s.cfg.Permit != nil {
		d := s.cfg.Permit(ctx, permission.Call{ID: c.ID, Tool: *t, Input: input})
		if d.Behavior == permission.Ask {
			d = s.askApproval(ctx, ToolEvent{ID: c.ID, Name: c.Name, Server: t.Server, Input: input, Permission: &d}, emit)
		}
		if d.Behavior != permission.Allow {
			msg := refusal(d)
			return ToolResult{CallID: c.ID, Name: c.Name, Text: msg, IsError: true}, WithKind(ErrToolFailed, &DeniedError{Decision: d, Msg: msg})
		}
	}
	if t.Exec == nil {
		return fail(fmt.Sprintf("tool %s has no executor", c.Name))
	}
	if ctx.Err() != nil {
		return cancelled(InterruptedResult)
	}
	log.start(ctx, c)
	// A tool that reports progress (an MCP server's notifications) shows
	// it on the call's card and in stream-json.
	pctx := tools.WithProgress(withCall(ctx, c.ID, emit), func(p tools.Progress) {
		tp := &ToolProgress{ID: c.ID, Progress: p.Progress, Message: p.Message}
		if p.Total > 0 {
			tp.Total = &p.Total
		}
		emit(Event{Type: EventToolProgress, Progress: tp})
	})
	began := s.cfg.Now()
	r, err := t.Exec(pctx, input)
	*ran = s.cfg.Now().Sub(began)
	if err != nil {
		if ctx.Err() != nil {
			return cancelled(StoppedResult)
		}
		return ToolResult{CallID: c.ID, Name: c.Name, Text: fmt.Sprintf("%s failed: %v", c.Name, err), IsError: true},
			WithKind(ErrToolFailed, fmt.Errorf("%s failed: %w", c.Name, err))
	}
	out := ToolResult{CallID: c.ID, Name: c.Name, Text: r.Text, IsError: r.IsError}
	for _, im := range r.Images {
		out.Images = append(out.Images, Image{MediaType: im.MediaType, Data: im.Data})
	}
	if s.cfg.Hooks != nil && !out.IsError {
		c.Input = input
		if add := s.cfg.Hooks.ToolDone(ctx, c, out, emit); add != "" {
			out.Text += "\n\n" + add
		}
	}
	return out, nil
}

var schemaCache sync.Map // string(schema) -> *jsonschema.Schema or error

func validateArgs(t *tools.Tool, input json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, isObj := v.(map[string]any); !isObj {
		return fmt.Errorf("arguments must be a JSON object")
	}
	sch := compileSchema(t.Schema)
	if sch == nil {
		return nil
	}
	if err := sch.Validate(v); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			var parts []string
			for _, c := range leafCauses(ve) {
				loc := "/" + strings.Join(c.InstanceLocation, "/")
				parts = append(parts, fmt.Sprintf("at %s: %s", loc, c.ErrorKind.LocalizedString(message.NewPrinter(language.English))))
			}
			if len(parts) > 0 {
				msg = strings.Join(parts, "; ")
			}
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func leafCauses(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leafCauses(c)...)
	}
	return out
}

// compileSchema compiles a tool's schema once. A schema that does not compile
// (servers ship odd ones) is not enforced: the tool itself is the judge then.
func compileSchema(raw json.RawMessage) *jsonschema.Schema {
	key := string(raw)
	if v, ok := schemaCache.Load(key); ok {
		s, _ := v.(*jsonschema.Schema)
		return s
	}
	var s *jsonschema.Schema
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		c := jsonschema.NewCompiler()
		if err = c.AddResource("tool.json", doc); err == nil {
			s, _ = c.Compile("tool.json")
		}
	}
	schemaCache.Store(key, s)
	return s
}

// RepairHistory gives every tool call or client search left without an answer
// (a turn cut off, a crash) a synthetic "interrupted" result, so the history
// is valid for every provider.
func RepairHistory(msgs []Message) []Message {
	var out []Message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != RoleAssistant {
			continue
		}
		var pending []Part
		for _, p := range m.Parts {
			switch {
			case p.Type == PartToolCall && p.ToolCall != nil:
				pending = append(pending, ToolResultPart(ToolResult{CallID: p.ToolCall.ID, Name: p.ToolCall.Name, Text: InterruptedResult, IsError: true}))
			case p.Type == PartSearchCall && p.SearchCall != nil && p.SearchCall.Where == WhereClient:
				pending = append(pending, SearchResultPart(SearchResult{CallID: p.SearchCall.ID, Where: WhereClient, Tools: []string{}, Error: "interrupted"}))
			}
		}
		if len(pending) == 0 {
			continue
		}
		var next *Message
		if i+1 < len(msgs) && msgs[i+1].Role == RoleUser {
			next = &msgs[i+1]
		}
		answered := map[string]bool{}
		if next != nil {
			for _, p := range next.Parts {
				if p.ToolResult != nil {
					answered[p.ToolResult.CallID] = true
				}
				if p.SearchResult != nil && p.SearchResult.Where == WhereClient {
					answered[p.SearchResult.CallID] = true
				}
			}
		}
		var missing []Part
		for _, p := range pending {
			id := ""
			if p.ToolResult != nil {
				id = p.ToolResult.CallID
			} else {
				id = p.SearchResult.CallID
			}
			if !answered[id] {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if next != nil {
			fixed := Message{Role: RoleUser, Parts: append(missing, next.Parts...)}
			out = append(out, fixed)
			i++
		} else {
			out = append(out, Message{Role: RoleUser, Parts: missing})
		}
	}
	return out
}
