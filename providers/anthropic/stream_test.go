package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

func send(t *testing.T, srv *anthropictest.Server, req agent.Request) (*agent.Response, []agent.StreamEvent, error) {
	t.Helper()
	p := anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL})
	var evs []agent.StreamEvent
	resp, err := p.Send(context.Background(), &req, func(e agent.StreamEvent) { evs = append(evs, e) })
	return resp, evs, err
}

func baseRequest() agent.Request {
	return agent.Request{Model: model, Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}}},
		Tools:    []agent.ToolDef{{Name: "read_file", Schema: json.RawMessage(`{"type":"object"}`)}},
		Deferred: []agent.ToolDef{{Name: "weather_lookup", Schema: json.RawMessage(`{"type":"object"}`)}},
		Search:   agent.SearchNative}
}

// everyBlock is an answer using each block kind the parser knows.
func everyBlock() anthropictest.Reply {
	blocks := []json.RawMessage{
		anthropictest.Text("Looking <things> up & more: ünïcødé."),
		anthropictest.ServerSearch("srvtoolu_1", "weather"),
		anthropictest.SearchResult("srvtoolu_1", "weather_lookup"),
		anthropictest.ServerSearch("srvtoolu_2", "stocks"),
		anthropictest.SearchError("srvtoolu_2", "unavailable", "try later"),
	}
	blocks = append(blocks, anthropictest.WebSearch("srvtoolu_3", "berlin weather", [2]string{"https://a.example/w", "A"}, [2]string{"https://b.example/x", "B"})...)
	blocks = append(blocks,
		anthropictest.CitedText("It is sunny.", "https://a.example/w", "A"),
		json.RawMessage(`{"type":"mcp_tool_use","id":"mcptoolu_1","name":"search_docs","server_name":"docs","input":{"q":"x"}}`),
		json.RawMessage(`{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":true,"content":[{"type":"text","text":"denied"}]}`),
		anthropictest.ToolUse("toolu_1", "weather_lookup", map[string]any{"city": "Berlin \"Mitte\"", "days": 3}),
	)
	return anthropictest.Reply{Content: blocks, ServerToolUses: map[string]int{"web_search_requests": 1}}
}

func TestStreamAndJSONParseAlike(t *testing.T) {
	var raws [][]byte
	for _, noStream := range []bool{false, true} {
		srv := anthropictest.NewServer(t)
		srv.Padding = true
		srv.Enqueue(everyBlock())
		req := baseRequest()
		req.NoStream = noStream
		resp, evs, err := send(t, srv, req)
		if err != nil {
			t.Fatal(err)
		}
		m := resp.Message
		raw := m.RawFor("anthropic", "messages")
		if raw == nil {
			t.Fatal("no raw part")
		}
		raws = append(raws, raw.Data)
		var kinds []string
		for _, p := range m.Parts {
			kinds = append(kinds, string(p.Type))
		}
		want := "text search_call search_result search_call search_result server_tool text server_tool tool_call raw"
		if got := strings.Join(kinds, " "); got != want {
			t.Errorf("parts %s, want %s", got, want)
		}
		if got := m.Parts[2].SearchResult; got.Tools[0] != "weather_lookup" || got.Error != "" {
			t.Errorf("search result %+v", got)
		}
		if got := m.Parts[4].SearchResult; got.Error != "unavailable: try later" {
			t.Errorf("search error %+v", got)
		}
		ws := m.Parts[5].ServerTool
		if ws.Name != "web_search" || len(ws.Sources) != 2 || ws.Sources[0].URL != "https://a.example/w" || ws.Sources[0].Title != "A" {
			t.Errorf("web search %+v", ws)
		}
		if mcp := m.Parts[7].ServerTool; mcp.Name != "docs/search_docs" || !mcp.IsError {
			t.Errorf("mcp %+v", mcp)
		}
		if c := m.Parts[8].ToolCall; c.ID != "toolu_1" || string(c.Input) != `{"city":"Berlin \"Mitte\"","days":3}` {
			t.Errorf("tool call %+v %s", c, c.Input)
		}
		if resp.Usage.ServerToolUses["web_search_requests"] != 1 || resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
			t.Errorf("usage %+v", resp.Usage)
		}
		if resp.StopReason != agent.StopToolUse {
			t.Errorf("stop reason %q", resp.StopReason)
		}
		var text strings.Builder
		counts := map[agent.EventType]int{}
		for _, e := range evs {
			counts[e.Type]++
			if e.Type == agent.EventTextDelta {
				text.WriteString(e.Text)
			}
		}
		if text.String() != m.Text() || counts[agent.EventSearchStarted] != 2 || counts[agent.EventSearchFinished] != 2 || counts[agent.EventServerTool] != 2 {
			t.Errorf("events %v, text %q", counts, text.String())
		}
	}
	if !bytes.Equal(raws[0], raws[1]) {
		t.Errorf("stream reassembly differs from the JSON body:\n%s\n%s", raws[0], raws[1])
	}
}

func TestStreamErrorEvent(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("partial answer here"), anthropictest.Text("second")}, StreamError: "overloaded_error", CutAfter: 12})
	resp, _, err := send(t, srv, baseRequest())
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 529 || !ae.Retryable() || !strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("got %v", err)
	}
	if resp == nil || !resp.Message.Interrupted || resp.Message.Text() == "" {
		t.Fatalf("partial response %+v", resp)
	}
}

func TestStreamErrorBeforeContentIsPlainAPIError(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Reply{StreamError: "overloaded_error", CutAfter: 1})
	_, _, err := send(t, srv, baseRequest())
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 529 || strings.Contains(err.Error(), "stream cut") {
		t.Fatalf("got %v", err)
	}
}

func TestStreamCutDropsIncompleteCall(t *testing.T) {
	srv := anthropictest.NewServer(t)
	// message_start, text start, ping, text deltas..., tool_use start, some input deltas.
	srv.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("ab"), anthropictest.ToolUse("toolu_1", "read_file", map[string]string{"path": "/a/long/path/name.txt"})}, CutAfter: 9})
	resp, _, err := send(t, srv, baseRequest())
	// A connection's end, which the session retries while nothing streamed.
	if err == nil || !strings.Contains(err.Error(), "stream cut") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	m := resp.Message
	if !m.Interrupted || m.Text() != "ab" {
		t.Fatalf("message %+v", m)
	}
	for _, p := range m.Parts {
		if p.Type == agent.PartToolCall {
			t.Error("incomplete tool call kept")
		}
	}
	if raw := m.RawFor("anthropic", "messages"); raw == nil || string(raw.Data) != `[{"type":"text","text":"ab"}]` {
		t.Errorf("raw %+v", raw)
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name   string
		key    string
		reply  *anthropictest.Reply
		status int
		typ    string
	}{
		{"missing key", "", nil, 401, "authentication_error"},
		{"overloaded", anthropictest.DefaultAPIKey, ptr(anthropictest.Overloaded("3")), 529, "overloaded_error"},
		{"rate limited", anthropictest.DefaultAPIKey, ptr(anthropictest.RateLimited("1.5")), 429, "rate_limit_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := anthropictest.NewServer(t)
			if c.reply != nil {
				srv.Enqueue(*c.reply)
			}
			p := anthropic.New(anthropic.Options{APIKey: c.key, BaseURL: srv.URL + "/v1/"})
			req := baseRequest()
			_, err := p.Send(context.Background(), &req, nil)
			var ae *agent.APIError
			if !errors.As(err, &ae) || ae.Status != c.status || ae.Type != c.typ || ae.RequestID == "" || ae.Message == "" {
				t.Fatalf("got %#v", err)
			}
			if c.reply != nil && ae.RetryAfter != c.reply.Header["retry-after"] {
				t.Errorf("retry-after %q", ae.RetryAfter)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestUnknownProviderToolFailsBeforeRequest(t *testing.T) {
	srv := anthropictest.NewServer(t)
	req := baseRequest()
	req.ProviderTools = []agent.ProviderTool{{Alias: "file_search"}}
	_, _, err := send(t, srv, req)
	if err == nil || !strings.Contains(err.Error(), "web_search") {
		t.Fatalf("got %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestProviderToolsHeaders(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Enqueue(anthropictest.Message(anthropictest.Text("ok")))
	req := baseRequest()
	req.ProviderTools = []agent.ProviderTool{{Alias: "web_fetch"}, {Alias: "mcp", Options: json.RawMessage(`{"name":"d","url":"https://x.example/mcp","token_env":"ANTHROPICTEST_TOKEN"}`)}}
	t.Setenv("ANTHROPICTEST_TOKEN", "secret")
	if _, _, err := send(t, srv, req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if got := r.Header.Get("anthropic-beta"); got != "web-fetch-2025-09-10,mcp-client-2025-11-20" {
		t.Errorf("beta header %q", got)
	}
	if !bytes.Contains(r.Body, []byte(`"authorization_token":"secret"`)) {
		t.Errorf("token not sent: %s", r.Body)
	}
	if r.Header.Get("anthropic-version") != "2023-06-01" || r.Header.Get("x-api-key") != anthropictest.DefaultAPIKey {
		t.Errorf("headers %v", r.Header)
	}
}
