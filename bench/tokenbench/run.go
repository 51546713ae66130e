package tokenbench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

// Adapter names, as the report shows them.
const (
	Anthropic = "anthropic"
	Responses = "openai-responses"
	Chat      = "openai-chat"
)

// Adapters and Modes are what a full run covers.
var (
	Adapters = []string{Anthropic, Responses, Chat}
	Modes    = []agent.SearchMode{agent.SearchOff, agent.SearchNative, agent.SearchClient}
)

// Models used with each fake: ones whose native tool search the adapters
// know (Chat Completions has none).
var Models = map[string]string{Anthropic: "claude-sonnet-4-5", Responses: "gpt-5.4", Chat: "gpt-4.1"}

// Exchange is one request of a conversation as the fake received it.
type Exchange struct {
	Body []byte
	// Usage is what the adapter reported from the fake's answer.
	Usage agent.Usage
	// Resolved is the search mode the adapter used.
	Resolved agent.SearchMode
	// Loaded is the deferred tools discovered before this request.
	Loaded []string
}

// Conversation is one scripted conversation against one fake.
type Conversation struct {
	Catalog   string
	Adapter   string
	Mode      agent.SearchMode
	Resolved  agent.SearchMode
	Targets   []target
	Exchanges []Exchange
}

// fake is a started fake server with the adapter pointed at it.
type fake struct {
	provider agent.Provider
	// script queues what the model answers, for the resolved mode.
	script func(mode agent.SearchMode, targets []target)
	// bodies returns the accepted request bodies; rejected lists the
	// fake's 400s, which a correct adapter never gets.
	bodies   func() [][]byte
	rejected func() []string
}

// Converse runs the scripted conversation over cat with adapter in mode,
// through a real agent.Session, and returns every request it sent.
func Converse(ctx context.Context, cat *Catalog, adapter string, mode agent.SearchMode) (*Conversation, error) {
	ft := &faket.T{}
	defer ft.Close()
	f, err := startFake(ft, adapter)
	if err != nil {
		return nil, err
	}
	model := Models[adapter]
	set := tools.NewSet()
	var ts []tools.Tool
	for _, t := range cat.Tools {
		name := t.Name
		t.Exec = func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: toolResult(name)}, nil
		}
		ts = append(ts, t)
	}
	if err := set.Add([]tools.Option{tools.Defer(true)}, ts...); err != nil {
		return nil, fmt.Errorf("register %s: %w", cat.Name, err)
	}
	targets := cat.Targets()
	s := agent.New(agent.Config{
		ID: "bench", Provider: f.provider, Model: model, System: system, Tools: set,
		Search: mode, MaxTokens: 4096, MaxSteps: 8, Backoff: time.Millisecond,
		Searcher: searcher{},
	})
	for _, t := range targets {
		s.Searcher().(searcher)[t.Query] = t.Name
	}
	resolved := agent.ResolveSearch(f.provider, s.BuildRequest())
	f.script(resolved, targets)
	conv := &Conversation{Catalog: cat.Name, Adapter: adapter, Mode: mode, Resolved: resolved, Targets: targets}
	var usages []agent.Usage
	a := app.FromSession(s)
	for turn := 1; turn <= Turns; turn++ {
		red := a.NewReducer()
		for e := range a.Send(ctx, userText(turn)) {
			red.Add(e)
			if e.Type == agent.EventUsage {
				usages = append(usages, *e.Usage)
			}
		}
		if err := red.Err(); err != nil {
			return nil, fmt.Errorf("%s %s %s turn %d: %w", cat.Name, adapter, mode, turn, err)
		}
		if err := ft.Err(); err != nil {
			return nil, fmt.Errorf("%s %s %s turn %d: %w", cat.Name, adapter, mode, turn, err)
		}
	}
	if rej := f.rejected(); len(rej) > 0 {
		return nil, fmt.Errorf("%s %s %s: the fake rejected a request: %s", cat.Name, adapter, mode, rej[0])
	}
	bodies := f.bodies()
	if len(bodies) != len(usages) {
		return nil, fmt.Errorf("%s %s %s: %d requests logged, %d answered", cat.Name, adapter, mode, len(bodies), len(usages))
	}
	// Loaded before request i: what the history sent in request i names.
	hist := s.Messages()
	for i, b := range bodies {
		conv.Exchanges = append(conv.Exchanges, Exchange{Body: b, Usage: usages[i], Resolved: resolved, Loaded: loadedBefore(hist, i)})
	}
	return conv, nil
}

// loadedBefore lists the tools discovered in the history request i sent.
// Request i (0-based) carries the history up to its i-th assistant
// message, so count assistant messages.
func loadedBefore(hist []agent.Message, i int) []string {
	n := 0
	for k, m := range hist {
		if m.Role == agent.RoleAssistant {
			if n == i {
				return agent.Discovered(hist[:k])
			}
			n++
		}
	}
	return agent.Discovered(hist)
}

// logOf reads a fake's request log as log entries: each fake names its
// request type and its error field its own way.
func logOf[R any](requests func() []R, entry func(R) logEntry) func() []logEntry {
	return func() []logEntry {
		var out []logEntry
		for _, r := range requests() {
			out = append(out, entry(r))
		}
		return out
	}
}

func startFake(ft *faket.T, adapter string) (*fake, error) {
	switch adapter {
	case Anthropic:
		srv := anthropictest.NewServer(ft)
		logged := logOf(srv.Requests, func(r *anthropictest.Request) logEntry { return logEntry{r.Status, r.Body, r.Rejection} })
		return newFake(anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL}),
			func(m agent.SearchMode, ts []target) { srv.Enqueue(anthropicReplies(m, ts)...) }, logged), nil
	case Responses:
		srv := responsestest.NewServer(ft)
		logged := logOf(srv.Requests, func(r responsestest.Request) logEntry { return logEntry{r.Status, r.Body, r.Error} })
		return newFake(openairesponses.New(openairesponses.Options{APIKey: responsestest.DefaultKey, BaseURL: srv.URL}),
			func(m agent.SearchMode, ts []target) { srv.Script(responsesTurns(m, ts)...) }, logged), nil
	case Chat:
		srv := chattest.NewServer(ft)
		logged := logOf(srv.Requests, func(r chattest.Request) logEntry { return logEntry{r.Status, r.Body, r.Error} })
		return newFake(openaichat.New(openaichat.Options{BaseURL: srv.BaseURL()}),
			func(m agent.SearchMode, ts []target) { srv.Script(chatTurns(m, ts)...) }, logged), nil
	}
	return nil, fmt.Errorf("unknown adapter %q (want %s, %s or %s)", adapter, Anthropic, Responses, Chat)
}

// anthropicReplies scripts the model for the resolved mode. A native
// search is the bm25 server tool with its result naming the one target.
func anthropicReplies(mode agent.SearchMode, ts []target) []anthropictest.Reply {
	var out []anthropictest.Reply
	text := func(turn int) anthropictest.Reply {
		return anthropictest.Message(anthropictest.Text(assistantText(turn)))
	}
	for turn := 1; turn <= Turns; turn++ {
		t, ok := discovery(turn, ts)
		if !ok {
			out = append(out, text(turn))
			continue
		}
		call := anthropictest.ToolUse(fmt.Sprintf("toolu_bench%02d", turn), t.Name, t.Args)
		switch mode {
		case agent.SearchNative:
			id := fmt.Sprintf("srvtoolu_bench%02d", turn)
			out = append(out, anthropictest.Message(anthropictest.ServerSearch(id, t.Query), anthropictest.SearchResult(id, t.Name), call))
		case agent.SearchClient:
			out = append(out, anthropictest.Message(anthropictest.ToolUse(fmt.Sprintf("toolu_search%02d", turn), anthropic.ClientSearchTool, map[string]any{"query": t.Query})),
				anthropictest.Message(call))
		default:
			out = append(out, anthropictest.Message(call))
		}
		out = append(out, text(turn))
	}
	return out
}

func responsesTurns(mode agent.SearchMode, ts []target) []responsestest.Turn {
	var out []responsestest.Turn
	for turn := 1; turn <= Turns; turn++ {
		text := responsestest.Turn{responsestest.Text(assistantText(turn))}
		t, ok := discovery(turn, ts)
		if !ok {
			out = append(out, text)
			continue
		}
		call := responsestest.Call(t.Name, string(t.Args))
		switch mode {
		case agent.SearchNative:
			out = append(out, responsestest.Turn{responsestest.HostedSearch(t.Query), call})
		case agent.SearchClient:
			out = append(out, responsestest.Turn{responsestest.ClientSearch(t.Query)}, responsestest.Turn{call})
		default:
			out = append(out, responsestest.Turn{call})
		}
		out = append(out, text)
	}
	return out
}

func chatTurns(mode agent.SearchMode, ts []target) []chattest.Turn {
	var out []chattest.Turn
	for turn := 1; turn <= Turns; turn++ {
		t, ok := discovery(turn, ts)
		if !ok {
			out = append(out, chattest.Text(assistantText(turn)))
			continue
		}
		id := fmt.Sprintf("call_bench%02d", turn)
		if mode == agent.SearchOff {
			out = append(out, chattest.Calls(chattest.DirectCall(id, t.Name, t.Args)))
		} else {
			// Native resolves to client here: the two fixed functions.
			out = append(out, chattest.Calls(chattest.SearchCall(id+"s", t.Query, 0)),
				chattest.Calls(chattest.WrappedCall(id, t.Name, t.Args)))
		}
		out = append(out, chattest.Text(assistantText(turn)))
	}
	return out
}

// logEntry is one request of a fake's log, whichever fake it is.
type logEntry struct {
	status int
	body   []byte
	reason string
}

// newFake builds the bench's view of a fake server from its request log:
// the bodies it accepted, and why it refused the others (a 4xx).
func newFake(p agent.Provider, script func(agent.SearchMode, []target), logged func() []logEntry) *fake {
	return &fake{
		provider: p,
		script:   script,
		bodies: func() [][]byte {
			var out [][]byte
			for _, e := range logged() {
				if e.status == 200 {
					out = append(out, e.body)
				}
			}
			return out
		},
		rejected: func() []string {
			var out []string
			for _, e := range logged() {
				if e.status >= 400 && e.status < 500 && e.status != 429 { // 429 is a rate limit, not a refusal
					out = append(out, e.reason)
				}
			}
			return out
		},
	}
}
