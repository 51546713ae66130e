package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/tools"
)

// substringSearcher is a stand-in for the real engine (tools/search): it
// matches the query as a substring of a deferred tool's name or
// description, or selects by exact name.
type substringSearcher struct{ set *tools.Set }

var _ agent.Searcher = substringSearcher{}

func (s substringSearcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	found := []string{}
	for _, t := range s.set.Deferred() {
		switch {
		case len(c.Names) > 0:
			for _, n := range c.Names {
				if n == t.Name {
					found = append(found, t.Name)
				}
			}
		case c.Query != "" && strings.Contains(strings.ToLower(t.Name+" "+t.Description), strings.ToLower(c.Query)):
			found = append(found, t.Name)
		}
	}
	return found, nil
}

func toolOf(d agent.ToolDef, exec tools.Executor) tools.Tool {
	return tools.Tool{Name: d.Name, Description: d.Description, Schema: d.Schema, Server: d.Server, Exec: exec}
}

func testSession(t *testing.T, fake *chattest.Server) *agent.Session {
	t.Helper()
	set := tools.NewSet()
	ok := func(text string) tools.Executor {
		return func(context.Context, json.RawMessage) (tools.Result, error) { return tools.Result{Text: text}, nil }
	}
	if err := set.Add(nil, toolOf(readFile, ok("file contents"))); err != nil {
		t.Fatal(err)
	}
	weatherExec := func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		var a struct{ City string }
		_ = json.Unmarshal(args, &a)
		return tools.Result{Text: "Sunny in " + a.City}, nil
	}
	if err := set.Add([]tools.Option{tools.Defer(true)}, toolOf(weather, weatherExec), toolOf(stocks, ok("42"))); err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{
		Provider: New(Options{Name: "fake", BaseURL: fake.BaseURL(), APIKey: fake.APIKey}),
		Model:    "test-model", System: "You are a test.", Tools: set, Search: agent.SearchNative,
		Searcher: substringSearcher{set}, Backoff: 1,
	})
}

func run(t *testing.T, s *agent.Session, text string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	if err := s.Run(t.Context(), text, func(e agent.Event) { evs = append(evs, e) }); err != nil {
		t.Fatalf("turn %q: %v", text, err)
	}
	return evs
}

func lastMessage(r chattest.Request) chattest.Message {
	return r.Parsed.Messages[len(r.Parsed.Messages)-1]
}

// rawMessages splits a body's messages array into each message's bytes.
func rawMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var b struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return b.Messages
}

// The end-to-end path: the model searches, gets the schema, calls
// the deferred tool with bad arguments, gets a schema error, fixes them and
// answers. The tools array is the same bytes on every request and the fake
// rejects nothing.
func TestSessionClientSearchEndToEnd(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.APIKey = "sk-test"
	fake.Script(
		chattest.Calls(chattest.SearchCall("call_s1", "weather", 3)),
		chattest.Calls(chattest.WrappedCall("call_w1", "weather_lookup", map[string]any{"city": 42})),
		chattest.Turn{Text: "Retrying.", Calls: []chattest.Call{chattest.WrappedCallString("call_w2", "weather_lookup", map[string]any{"city": "Berlin"})}},
		chattest.Text("It is sunny in Berlin."),
		chattest.Text("Same tomorrow."),
	)
	s := testSession(t, fake)
	evs := run(t, s, "Weather in Berlin?")

	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("got %d requests, want 4", len(reqs))
	}
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("fake rejected %d requests: %s", len(rej), rej[0].Error)
	}
	for i, r := range reqs {
		if !bytes.Equal(r.Parsed.Tools, reqs[0].Parsed.Tools) {
			t.Errorf("request %d: tools array differs from request 1", i+1)
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("request %d: no key sent", i+1)
		}
	}
	if tl := string(reqs[0].Parsed.Tools); !strings.Contains(tl, `"tool_search"`) || !strings.Contains(tl, `"tool_call"`) || strings.Contains(tl, `"name":"weather_lookup"`) || !strings.Contains(tl, "- weather (1 tool)") {
		t.Errorf("tools array: want read_file, tool_search (with the directory of deferred servers), tool_call only, got %s", tl)
	}

	schemaMsg := lastMessage(reqs[1])
	if schemaMsg.Role != "tool" || schemaMsg.ToolCallID != "call_s1" || !strings.Contains(schemaMsg.Text(), `"additionalProperties":false`) {
		t.Errorf("request 2 should end with the search result carrying the full schema, got %+v %s", schemaMsg, schemaMsg.Text())
	}
	errMsg := lastMessage(reqs[2])
	if errMsg.ToolCallID != "call_w1" || !strings.Contains(errMsg.Text(), "invalid arguments for weather_lookup") {
		t.Errorf("request 3 should carry the schema error, got %q", errMsg.Text())
	}
	okMsg := lastMessage(reqs[3])
	if okMsg.ToolCallID != "call_w2" || okMsg.Text() != "Sunny in Berlin" {
		t.Errorf("request 4 should carry the result, got %q", okMsg.Text())
	}

	var discovered bool
	for _, e := range evs {
		if e.Type == agent.EventToolFinished && e.Tool.Name == "weather_lookup" && !e.Tool.IsError {
			discovered = e.Tool.Discovered
		}
	}
	if !discovered {
		t.Error("no successful tool_call_finished event for the discovered weather_lookup")
	}
	h := s.Messages()
	if got := h[len(h)-1].Text(); got != "It is sunny in Berlin." {
		t.Errorf("final answer %q", got)
	}
	if d := s.Discovered(); len(d) != 1 || d[0] != "weather_lookup" {
		t.Errorf("discovered %v", d)
	}
	// The stable prefix shows up as cache hits on every later request.
	var usages []agent.Usage
	for _, e := range evs {
		if e.Type == agent.EventUsage {
			usages = append(usages, *e.Usage)
		}
	}
	t.Logf("usage per request: %+v", usages)
	for i, u := range usages[1:] {
		// Everything but the newest messages is a cached prefix.
		if u.InputTokens <= 0 || u.CacheReadTokens*10 < (u.InputTokens+u.CacheReadTokens)*6 {
			t.Errorf("request %d: usage %+v, want most of the prompt cached", i+2, u)
		}
	}

	// Next turn: history is replayed byte for byte, so the whole previous
	// request is a prefix of the new one.
	run(t, s, "And tomorrow?")
	reqs = fake.Requests()
	prev, next := rawMessages(t, reqs[3].Body), rawMessages(t, reqs[4].Body)
	// The previous request did not yet hold its own answer.
	for i := range prev {
		if !bytes.Equal(prev[i], next[i]) {
			t.Errorf("message %d changed between turns:\n%s\n%s", i, prev[i], next[i])
		}
	}
	if !bytes.Equal(reqs[4].Parsed.Tools, reqs[0].Parsed.Tools) {
		t.Error("tools array changed on the second turn")
	}
}

// Switching the same conversation to search off re-renders the wrapped
// calls as direct calls of now-eager tools, and the fake accepts it.
func TestSessionSwitchToOff(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(
		chattest.Calls(chattest.SearchCall("call_s1", "select:weather_lookup", 0)),
		chattest.Calls(chattest.WrappedCall("call_w1", "weather_lookup", map[string]any{"city": "Oslo"})),
		chattest.Text("Sunny."),
		chattest.Text("Still sunny."),
	)
	s := testSession(t, fake)
	run(t, s, "Weather in Oslo?")
	_ = s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchOff })
	run(t, s, "Sure?")
	reqs := fake.Requests()
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("fake rejected: %s", rej[0].Error)
	}
	last := reqs[len(reqs)-1].Parsed
	if strings.Contains(string(last.Tools), "tool_search") || !strings.Contains(string(last.Tools), "weather_lookup") {
		t.Errorf("off mode tools: %s", last.Tools)
	}
	for _, m := range last.Messages {
		for _, c := range m.ToolCalls {
			if c.Function.Name != "weather_lookup" {
				t.Errorf("off mode replayed a %s call", c.Function.Name)
			}
		}
	}
}

// A 429 with retry-after is retried by the core, not the adapter.
func TestSessionRetriesRateLimit(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Fail(chattest.Fault{Status: 429, RetryAfter: "0"})
	fake.Script(chattest.Text("hello"))
	s := testSession(t, fake)
	run(t, s, "hi")
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (one 429, one retry)", n)
	}
}

// A conversation begun on Anthropic with native search continues here: the
// provider's search becomes a tool_search call answered by the schemas, the
// tool it found is reachable through tool_call without searching again, and
// the fake rejects nothing.
func TestSessionContinuesAnthropicConversation(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(
		chattest.Calls(chattest.WrappedCall("call_w9", "weather_lookup", map[string]any{"city": "Paris"})),
		chattest.Text("Sunny in Paris too."),
	)
	s := testSession(t, fake)
	s.Reset(anthropicHistory())
	run(t, s, "And Paris?")
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("fake rejected: %s", rej[0].Error)
	}
	reqs := fake.Requests()
	first := reqs[0].Parsed.Messages
	var sawSchema bool
	for _, m := range first {
		if m.Role == "tool" && m.ToolCallID == "srvtoolu_1" && strings.Contains(m.Text(), `"name":"weather_lookup"`) {
			sawSchema = true
		}
		if strings.Contains(string(m.Content), "server_tool_use") {
			t.Error("another provider's raw blocks were sent")
		}
	}
	if !sawSchema {
		t.Error("the natively found tool's schema was not carried over")
	}
	if got := lastMessage(reqs[1]).Text(); got != "Sunny in Paris" {
		t.Errorf("tool result %q", got)
	}
}

// A conversation from the Responses API carries ids longer than Chat
// Completions takes (a function_call item id is 51 characters, a
// tool_search_call's 54): they go out mapped to 40 or fewer, each result
// with its call's, and the fake, which refuses longer ones, accepts them.
func TestSessionLongForeignCallIDs(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(chattest.Text("Still sunny."))
	s := testSession(t, fake)
	long := "fc_68be50e1bab881948ea46ef552a40d0f01274d71df061905"
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Read a.txt")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: long, Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: long, Name: "read_file", Text: "file contents"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("It holds file contents.")}},
	})
	run(t, s, "And now?")
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("fake rejected: %s", rej[0].Error)
	}
	var call, answer string
	for _, m := range fake.Requests()[0].Parsed.Messages {
		for _, c := range m.ToolCalls {
			call = c.ID
		}
		if m.Role == "tool" {
			answer = m.ToolCallID
		}
	}
	if call == "" || len(call) > chattest.MaxCallID || answer != call {
		t.Errorf("call id %q answered by %q", call, answer)
	}
}

// A tool's images go to the model in a user message after the tool
// messages: the API takes image URLs only in user messages, and the fake
// refuses one in a tool message.
func TestSessionToolImagesInUserMessage(t *testing.T) {
	fake := chattest.NewServer(t)
	fake.Script(chattest.Text("A dot."))
	s := testSession(t, fake)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Model = "gpt-4.1" }) // a model that reads images
	s.Reset([]agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Show dot.png")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"dot.png"}`)})}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "call_1", Name: "read_file", Text: "an image",
			Images: []agent.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}})}},
	})
	run(t, s, "What is it?")
	if rej := fake.Rejected(); len(rej) > 0 {
		t.Fatalf("fake rejected: %s", rej[0].Error)
	}
	var roles []string
	for _, m := range fake.Requests()[0].Parsed.Messages {
		if strings.Contains(string(m.Content), "image_url") {
			roles = append(roles, m.Role)
		}
	}
	if strings.Join(roles, ",") != "user" {
		t.Errorf("images sent in %v messages: %s", roles, fake.Requests()[0].Body)
	}
}
