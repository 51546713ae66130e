package tui

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
)

// fakeBackend is a scripted Backend: Send replays events, the rest returns
// canned data and records calls.
type fakeBackend struct {
	mu        sync.Mutex
	info      Info
	tools     []ToolInfo
	script    []agent.Event
	sent      []string
	model     string
	sessions  []SessionInfo
	history   []agent.Message
	approvals chan ApprovalRequest
	newCalls  int
	// listed counts Models calls: each is a request to the provider.
	listed int
	// busy stands for a turn running in the backend: session changes
	// are refused with agent.ErrBusy, as the real session refuses them.
	busy bool
}

// errIfBusy is the real backend's answer to a session change during a turn.
func (f *fakeBackend) errIfBusy() error {
	if f.busy {
		return agent.WithKind(agent.ErrBusy, errors.New("a turn is running"))
	}
	return nil
}

var _ Backend = (*fakeBackend)(nil)

func newFakeBackend() *fakeBackend {
	return &fakeBackend{
		info: Info{Provider: "fake", Model: "fake-1", SessionID: "0123456789abcdef", SearchMode: "client",
			Active: 2, Deferred: 5, TokensSaved: 12345, ContextWindow: 200_000, CostKnown: true, Priced: true,
			Price: pricing.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
		tools: []ToolInfo{
			{Name: "read_file", Server: "fs", Description: "Read a file from disk."},
			{Name: "weather_forecast", Server: "weather", Description: "Multi-day forecast for a city.\nMore text.", Deferred: true},
			{Name: "weather_current", Server: "weather", Description: "Current conditions for a city.", Deferred: true},
			{Name: "currency_convert", Server: "finance", Description: "Convert an amount between currencies.", Deferred: true},
		},
		sessions: []SessionInfo{
			{ID: "aaaaaaaa-1111", Title: "weather in Paris", Model: "anthropic/claude-sonnet-4-5", Messages: 6, Updated: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)},
			{ID: "bbbbbbbb-2222", Title: "convert money", Model: "fake-1", Messages: 4, Updated: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
		},
	}
}

func (f *fakeBackend) Send(ctx context.Context, text string) <-chan agent.Event {
	f.mu.Lock()
	f.sent = append(f.sent, text)
	script := append([]agent.Event(nil), f.script...)
	f.mu.Unlock()
	ch := make(chan agent.Event, len(script)+1)
	go func() {
		defer close(ch)
		for _, e := range script {
			select {
			case ch <- e:
			case <-ctx.Done():
				ch <- agent.Event{Type: agent.EventDone}
				return
			}
		}
	}()
	return ch
}

func (f *fakeBackend) Approvals() <-chan ApprovalRequest { return f.approvals }
func (f *fakeBackend) Info() Info                        { f.mu.Lock(); defer f.mu.Unlock(); return f.info }
func (f *fakeBackend) Tools() []ToolInfo                 { return f.tools }

func (f *fakeBackend) Search(_ context.Context, q string) ([]ToolInfo, error) {
	return f.tools[1:3], nil
}

func (f *fakeBackend) SetModel(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.errIfBusy(); err != nil {
		return err
	}
	f.model, f.info.Model = name, name
	return nil
}

func (f *fakeBackend) Sessions(context.Context) ([]SessionInfo, error) { return f.sessions, nil }
func (f *fakeBackend) Resume(_ context.Context, id string) ([]agent.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.errIfBusy(); err != nil {
		return nil, err
	}
	return f.history, nil
}
func (f *fakeBackend) New(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.errIfBusy(); err != nil {
		return err
	}
	f.newCalls++
	return nil
}

// fakeTurns records what the model asked the bridge to do.
type fakeTurns struct {
	started   []string
	images    [][]agent.Image
	cancelled int
}

func (t *fakeTurns) Start(in agent.Input) {
	t.started = append(t.started, in.Text)
	t.images = append(t.images, in.Images)
}
func (t *fakeTurns) Cancel() { t.cancelled++ }

// conversation is a turn with a client search, a discovered tool call and a
// Markdown answer, as the agent emits it.
func conversation() []agent.Event {
	input := json.RawMessage(`{"city":"Paris","days":3}`)
	answer := "## Paris, next 3 days\n\n| day | high | sky |\n|---|---|---|\n| Thu | 14°C | sun |\n| Fri | 12°C | rain |\n\n```go\nfmt.Println(\"umbrella\")\n```\n"
	assistant1 := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
		agent.TextPart("Let me find a weather tool."),
		agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "weather forecast paris"}),
	}}
	assistant2 := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{
		agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "weather_forecast", Input: input}),
	}}
	assistant3 := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(answer)}}
	return []agent.Event{
		{Type: agent.EventTextDelta, Text: "Let me find "},
		{Type: agent.EventTextDelta, Text: "a weather tool."},
		{Type: agent.EventMessage, Message: &assistant1},
		{Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 1200, OutputTokens: 40, CacheReadTokens: 800}, Request: 1},
		{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s1", Where: agent.WhereClient, Query: "weather forecast paris"}},
		{Type: agent.EventSearchFinished, Search: &agent.SearchEvent{ID: "s1", Where: agent.WhereClient, Query: "weather forecast paris", Tools: []string{"weather_forecast", "weather_current"}}},
		{Type: agent.EventMessage, Message: &assistant2},
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c1", Name: "weather_forecast", Server: "weather", Input: input, Discovered: true}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "c1", Name: "weather_forecast", Server: "weather", Input: input, Discovered: true,
			Result: `{"city":"Paris","days":[{"day":"Thu","high":14},{"day":"Fri","high":12}]}`, Duration: 120 * time.Millisecond}},
		{Type: agent.EventTextDelta, Text: answer},
		{Type: agent.EventMessage, Message: &assistant3},
		{Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 300, OutputTokens: 90, CacheReadTokens: 1500}, Request: 2},
		{Type: agent.EventDone},
	}
}

// history is the stored form of conversation(), for resume.
func history() []agent.Message {
	var out []agent.Message
	out = append(out, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("weather in Paris?")}})
	for _, e := range conversation() {
		if e.Type == agent.EventMessage {
			out = append(out, *e.Message)
			switch {
			case e.Message.Parts[len(e.Message.Parts)-1].Type == agent.PartSearchCall:
				out = append(out, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.SearchResultPart(agent.SearchResult{
					CallID: "s1", Where: agent.WhereClient, Tools: []string{"weather_forecast", "weather_current"}})}})
			case e.Message.Parts[0].Type == agent.PartToolCall:
				out = append(out, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{
					CallID: "c1", Name: "weather_forecast", Text: `{"city":"Paris","days":[{"day":"Thu","high":14}]}`})}})
			}
		}
	}
	return out
}

// CyclePermissionMode cycles as the app does without bypass.
func (f *fakeBackend) CyclePermissionMode() string {
	next := map[string]string{"": "accept-reads", "default": "accept-reads", "accept-reads": "plan", "plan": "default"}
	f.info.Mode = next[f.info.Mode]
	return f.info.Mode
}
