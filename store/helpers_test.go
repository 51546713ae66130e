package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func openTest(t testing.TB) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "agent.db")
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func create(t testing.TB, d *DB, workdir string) *Session {
	t.Helper()
	s, err := d.Create(context.Background(), SessionMeta{Workdir: workdir, Provider: "anthropic", API: "messages", Model: "claude-sonnet-4-5",
		Settings: Settings{Search: agent.SearchNative, SearchAlgo: "bm25"}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func appendAll(t testing.TB, s *Session, msgs ...agent.Message) {
	t.Helper()
	for _, m := range msgs {
		if err := s.AppendMessage(context.Background(), m); err != nil {
			t.Fatalf("append: %v", err)
		}
	}
}

// conversation is a turn with every part type: a native search on
// Anthropic with its raw blocks (odd whitespace, HTML characters and
// unicode kept as sent), a tool call and its result, a client search.
func conversation() []agent.Message {
	raw := json.RawMessage("[ {\"type\":\"server_tool_use\",\"id\":\"srvtoolu_01\",\"name\":\"tool_search_tool_bm25\",\"input\":{\"query\" : \"weather <today> & more\"}},\n\t{\"type\":\"tool_search_tool_result\",\"tool_use_id\":\"srvtoolu_01\",\"content\":{\"type\":\"tool_search_tool_search_result\",\"tool_references\":[{\"type\":\"tool_reference\",\"tool_name\":\"get_weather\"}]}},{\"type\":\"text\",\"text\":\"Voil\\u00e0 — ünïcödé\"},{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"get_weather\",\"input\":{\"city\": \"Paris\"}} ]")
	return []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("What's the weather in Paris?\nUse a tool."),
			agent.ImagePart(agent.Image{MediaType: "image/png", Data: "iVBORw0KGgo=", Name: "sky.png"})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.SearchCallPart(agent.SearchCall{ID: "srvtoolu_01", Where: agent.WhereProvider, Query: "weather <today> & more"}),
			agent.SearchResultPart(agent.SearchResult{CallID: "srvtoolu_01", Where: agent.WhereProvider, Tools: []string{"get_weather"}}),
			agent.TextPart("Voilà — ünïcödé"),
			agent.ToolCallPart(agent.ToolCall{ID: "toolu_01", Name: "get_weather", Input: json.RawMessage(`{"city": "Paris"}`)}),
			agent.RawPart("anthropic", "messages", raw),
		}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "toolu_01", Name: "get_weather", Text: "18°C <sunny>",
			Images: []agent.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			agent.ServerToolPart(agent.ServerTool{ID: "srvtoolu_02", Name: "web_search", Input: json.RawMessage(`{ "query":"paris" }`),
				Result: json.RawMessage(`[{"url":"https://example.com"}]`), Sources: []agent.Source{{URL: "https://example.com", Title: "Ex"}}}),
			agent.SearchCallPart(agent.SearchCall{ID: "call_7", Where: agent.WhereClient, Query: "calendar"}),
			agent.RawPart("openai", "responses", json.RawMessage(`[{"type":"tool_search_call","id":"ts_1"}]`)),
		}, Interrupted: true},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.SearchResultPart(agent.SearchResult{CallID: "call_7", Where: agent.WhereClient, Tools: []string{"cal_list", "cal_add"}})}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("It is 18°C and sunny.")}},
	}
}
