package anthropictest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/v1/messages", strings.NewReader(body))
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const (
	tWeather  = `{"name":"weather","description":"w","input_schema":{"type":"object"},"defer_loading":true}`
	tRead     = `{"name":"read","description":"r","input_schema":{"type":"object"}}`
	tBM25     = `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
	userHi    = `{"role":"user","content":"hi"}`
	srvUse    = `{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"w"}}`
	srvResult = `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"weather"}]}}`
	useW      = `{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}`
	resultW   = `{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}`
)

// manyDeferred is n deferred tools.
func manyDeferred(n int) string {
	ts := make([]string, n)
	for i := range ts {
		ts[i] = `{"name":"t` + strconv.Itoa(i) + `","input_schema":{"type":"object"},"defer_loading":true}`
	}
	return strings.Join(ts, ",")
}

func body(tools string, msgs ...string) string {
	return `{"model":"claude-sonnet-4-5","max_tokens":100,"tools":[` + tools + `],"messages":[` + strings.Join(msgs, ",") + `]}`
}

func asst(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

func usr(blocks ...string) string {
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

// The fake rejects what the real API rejects, with the API's error shape.
func TestValidation(t *testing.T) {
	all := tRead + "," + tWeather + "," + tBM25
	cases := []struct {
		name, key, body string
		status          int
		msg             string
	}{
		{"ok", DefaultAPIKey, body(all, userHi), 200, ""},
		{"missing key", "", body(all, userHi), 401, "x-api-key header is required"},
		{"wrong key", "nope", body(all, userHi), 401, "invalid x-api-key"},
		{"all deferred", DefaultAPIKey, body(tWeather, userHi), 400, "At least one tool must have defer_loading=false. All tools cannot be deferred."},
		{"cache_control on deferred", DefaultAPIKey, body(tRead+`,{"name":"weather","input_schema":{"type":"object"},"defer_loading":true,"cache_control":{"type":"ephemeral"}}`+","+tBM25, userHi), 400, "defer_loading=true and cache_control"},
		{"dangling reference", DefaultAPIKey, body(tRead, userHi, asst(`{"type":"tool_use","id":"toolu_s","name":"tool_search","input":{}}`),
			usr(`{"type":"tool_result","tool_use_id":"toolu_s","content":[{"type":"tool_reference","tool_name":"lookup_documents"}]}`)), 400, "Tool reference 'lookup_documents' not found in available tools"},
		{"half a search pair", DefaultAPIKey, body(all, userHi, asst(`{"type":"text","text":"x"}`, srvUse), usr(`{"type":"text","text":"go"}`), asst(`{"type":"text","text":"y"}`), userHi), 400, "has no corresponding result block"},
		{"open search at the end is resumed", DefaultAPIKey, body(all, userHi, asst(srvUse, useW), usr(resultW)), 200, ""},
		{"split pair", DefaultAPIKey, body(all, userHi, asst(srvUse, useW), usr(resultW), asst(srvResult, `{"type":"text","text":"done"}`), userHi), 200, ""},
		{"orphan result", DefaultAPIKey, body(all, userHi, asst(srvResult), userHi), 400, "has no corresponding server tool use block"},
		{"tool_result for srvtoolu", DefaultAPIKey, body(all, userHi, asst(srvUse, srvResult), usr(`{"type":"tool_result","tool_use_id":"srvtoolu_1","content":"x"}`)), 400, "server tool use id"},
		{"tool_use unanswered", DefaultAPIKey, body(all, userHi, asst(useW), userHi), 400, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"tool_result without call", DefaultAPIKey, body(all, userHi, asst(`{"type":"text","text":"x"}`), usr(resultW)), 400, "unexpected `tool_use_id`"},
		{"empty text", DefaultAPIKey, body(all, usr(`{"type":"text","text":""}`)), 400, "text content blocks must be non-empty"},
		{"duplicate tool", DefaultAPIKey, body(tRead+","+tRead, userHi), 400, "Tool names must be unique"},
		{"tool_use input not an object", DefaultAPIKey, body(all, userHi, asst(`{"type":"tool_use","id":"toolu_1","name":"read","input":"garbage"}`), usr(resultW)), 400, "messages.1.content.0.tool_use.input: Input should be a valid dictionary"},
		{"search tool under another name", DefaultAPIKey, body(tRead+","+tWeather+`,{"type":"tool_search_tool_bm25_20251119","name":"search"}`, userHi), 400, "tools.2.tool_search_tool_bm25_20251119.name: Input should be 'tool_search_tool_bm25'"},
		{"bad tool name", DefaultAPIKey, body(`{"name":"fs.read","input_schema":{"type":"object"}}`, userHi), 400, "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"},
		{"schema not an object", DefaultAPIKey, body(tRead+`,{"name":"s","input_schema":{"type":"string"}}`, userHi), 400, "tools.1.custom.input_schema.type: Input should be 'object'"},
		{"too many deferred", DefaultAPIKey, body(tRead+","+manyDeferred(MaxDeferred+1)+","+tBM25, userHi), 400, "a maximum of 10000 tools may have defer_loading=true. Found 10001."},
		{"over 32 MB", DefaultAPIKey, body(tRead, `{"role":"user","content":"`+strings.Repeat("x", MaxRequest)+`"}`), 413, "Request exceeds the maximum allowed number of bytes."},
		{"as many deferred as allowed", DefaultAPIKey, body(tRead+","+manyDeferred(MaxDeferred)+","+tBM25, userHi), 200, ""},
		{"tool_use id of another provider", DefaultAPIKey, body(all, userHi, asst(`{"type":"tool_use","id":"functions.read:0","name":"read","input":{}}`), usr(`{"type":"tool_result","tool_use_id":"functions.read:0","content":"ok"}`)), 400, "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"},
		{"server_tool_use id without srvtoolu_", DefaultAPIKey, body(all, userHi, asst(`{"type":"server_tool_use","id":"toolu_1","name":"tool_search_tool_bm25","input":{"query":"w"}}`, `{"type":"text","text":"x"}`), userHi), 400, "messages.1.content.0.server_tool_use.id: String should match pattern '^srvtoolu_[a-zA-Z0-9_]+$'"},
		{"tool_use id twice in a message", DefaultAPIKey, body(all, userHi, asst(useW, useW), usr(resultW)), 400, "messages.1.content.1: `tool_use` ids must be unique"},
		{"tool_use id again in a later message", DefaultAPIKey, body(all, userHi, asst(useW), usr(resultW), asst(useW), usr(resultW)), 400, "messages.3.content.0: `tool_use` ids must be unique"},
		{"text before the tool_result", DefaultAPIKey, body(all, userHi, asst(useW), usr(`{"type":"text","text":"also"}`, resultW)), 400, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"text after the tool_result", DefaultAPIKey, body(all, userHi, asst(useW), usr(resultW, `{"type":"text","text":"also"}`)), 200, ""},
		{"final assistant text ending in a space", DefaultAPIKey, body(all, userHi, asst(`{"type":"text","text":"Searching more. "}`)), 400, "messages: final assistant content cannot end with trailing whitespace"},
		{"earlier assistant text ending in a space", DefaultAPIKey, body(all, userHi, asst(`{"type":"text","text":"Done. "}`), userHi), 200, ""},
		{"five breakpoints with the system's", DefaultAPIKey, `{"model":"claude-sonnet-4-5","max_tokens":100,"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}],` +
			`"tools":[{"name":"read","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],"messages":[` + usr(`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}`, `{"type":"text","text":"y","cache_control":{"type":"ephemeral"}}`) + `]}`,
			400, "A maximum of 4 blocks with cache_control may be provided. Found 5."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			s.Enqueue(Message(Text("fine")))
			status, resp := post(t, s, c.key, c.body)
			if status != c.status {
				t.Fatalf("status %d, want %d: %s", status, c.status, resp)
			}
			if c.msg == "" {
				return
			}
			var e struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal([]byte(resp), &e); err != nil || e.Type != "error" || e.Error.Type == "" {
				t.Fatalf("bad error body %s", resp)
			}
			if !strings.Contains(e.Error.Message, c.msg) {
				t.Errorf("message %q lacks %q", e.Error.Message, c.msg)
			}
		})
	}
}

// An open search at the end of the history is answered first.
func TestResumesSplitSearch(t *testing.T) {
	s := NewServer(t)
	s.Enqueue(Message(Text("after")))
	status, resp := post(t, s, DefaultAPIKey, body(tRead+","+tWeather+","+tBM25, userHi, asst(srvUse, useW), usr(resultW)))
	if status != 200 {
		t.Fatal(resp)
	}
	var m struct{ Content []json.RawMessage }
	_ = json.Unmarshal([]byte(resp), &m)
	if len(m.Content) != 2 || !bytes.Contains(m.Content[0], []byte(`"tool_use_id":"srvtoolu_1"`)) || !bytes.Contains(m.Content[0], []byte(`"tool_name":"weather"`)) {
		t.Errorf("content %s", m.Content)
	}
}

func TestRegexSearchError(t *testing.T) {
	s := NewServer(t)
	r := &wireRequest{tools: []wireTool{{Name: "weather", DeferLoading: true}}}
	got := s.runSearch(r, openServerCall{ID: "srvtoolu_9", Name: "tool_search_tool_regex", Input: json.RawMessage(`{"pattern":"["}`)})
	if !bytes.Contains(got, []byte(`"error_code":"invalid_tool_input"`)) {
		t.Errorf("%s", got)
	}
	got = s.runSearch(r, openServerCall{ID: "srvtoolu_9", Name: "tool_search_tool_regex", Input: json.RawMessage(`{"pattern":"WEATH"}`)})
	if !bytes.Contains(got, []byte(`"tool_name":"weather"`)) {
		t.Errorf("%s", got)
	}
}
