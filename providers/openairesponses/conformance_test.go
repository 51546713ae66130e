package openairesponses

// Conformance against the recorded OpenAI and Azure exchanges in
// ../shared/fixtures (see MANIFEST.md). For every pair of consecutive OpenAI
// requests of a pydantic-ai cassette, the recorded response is parsed with
// this adapter, the conversation is rebuilt as neutral messages, the next
// request is rendered, and its input must equal what the recorded client
// sent (and the API accepted) modulo key order and these exclusions:
//
//   E1 tool_search_call.arguments: pydantic rewrote hosted {"paths"} to
//      {"queries"} and uses its own client schema; we replay hosted calls
//      verbatim and send our own {"query"} schema for client calls.
//   E2 status, E3 output_text.logprobs, E4 tool output_schema: pydantic
//      drops these response fields on replay; we replay items verbatim.
//   E5 strict inside tool definitions: we always send strict:false.
//   E6 id when the recorded item has none (the "without item ids" replay):
//      both are accepted; we keep the ids we received.
//   E7 cassettes using pydantic's own framework items ({"role":"developer",
//      "tools":…} additional_tools, load_capability) are parsed but not
//      compared: the agent has no such feature.
//   E9 pydantic's hosted replays in some cassettes omit the
//      tool_search_output item (accepted); we always replay the pair, so our
//      extra server tool_search_output is dropped before comparing; the same
//      runs set a hosted tool_search_call's call_id to its own id where the
//      API gave null, so call_id of hosted calls is not compared.
//   E12 pydantic drops a reasoning item's empty "content":[].
//   E10 pydantic replays an assistant message of the "without item ids"
//      run as {"role","content":"text"}; messages are compared by role and text.
//   E11 defer_loading inside tool_search_output.tools: we mark loaded
//      definitions deferred, as they are in the tools array; pydantic's
//      client-authored history did not (both accepted).
//   E8 tools arrays are compared as sets, and a client tool_search by type
//      and execution only (our description and schema are our own);
//      cassettes declaring {"type":"namespace"} tools are not compared on
//      tools (their namespaces are not rebuilt as neutral tools).
//   E13 deferred tools: the recorded clients sent them as top-level
//      functions, we send them grouped in namespaces (namespaces.go). Tools
//      arrays and tool_search_output.tools are compared with namespaces
//      flattened to their member functions, and a recorded function_call
//      of a deferred function, whose namespace was the function's own
//      name, is expected with its group's namespace instead.
//   E14 client tool_search: the recorded clients also sent their deferred
//      functions in the tools array; we send none (OpenAI's documented
//      client form, and Codex's: the found definitions travel in
//      tool_search_output), so recorded definitions with defer_loading are
//      left out of the comparison of a client-search request's tools.
// Every request we build is also sent to the strict fake, which must accept it.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

type cassette struct {
	Source       string `json:"source"`
	Interactions []struct {
		URI      string                     `json:"uri"`
		Request  map[string]json.RawMessage `json:"request"`
		Status   int                        `json:"status"`
		Response json.RawMessage            `json:"response"`
		SSE      string                     `json:"sse"`
	} `json:"interactions"`
}

func TestConformancePydantic(t *testing.T) {
	files, _ := filepath.Glob("testdata/pydantic/*.json")
	if len(files) == 0 {
		t.Fatal("no converted cassettes")
	}
	compared := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			var c cassette
			b, _ := os.ReadFile(f)
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			framework := bytes.Contains(b, []byte(`"role": "developer"`)) || bytes.Contains(b, []byte("load_capability"))
			namespaced := bytes.Contains(b, []byte(`"type": "namespace"`))
			var prevIn []json.RawMessage
			var hist []agent.Message
			for i, in := range c.Interactions {
				if !strings.Contains(in.URI, "openai.com") || in.Status != 200 {
					prevIn = nil
					continue
				}
				items := inputItems(t, in.Request["input"])
				req := requestFrom(t, in.Request)
				if prevIn != nil && !framework {
					// New items after the replayed prefix are the client's.
					hist = append(hist, neutralFrom(items[countReplayed(items, prevIn):])...)
					req.Messages = hist
					compareRequest(t, i, req, in.Request, items, namespaced)
					compared++
				} else {
					hist = neutralFrom(items)
				}
				msg := parseRecorded(t, in.Response, in.SSE)
				hist = append(hist, msg)
				prevIn = items
			}
		})
	}
	if compared < 12 {
		t.Errorf("only %d requests compared", compared)
	}
	t.Logf("%d recorded follow-up requests reproduced", compared)
}

// countReplayed is the length of the prefix of items that the previous
// request and its response account for: everything up to the last item the
// model authored.
func countReplayed(items, prev []json.RawMessage) int {
	n := len(prev)
	for i := len(items) - 1; i >= n; i-- {
		if modelAuthored(items[i]) {
			return i + 1
		}
	}
	return n
}

func modelAuthored(raw json.RawMessage) bool {
	var it struct {
		Type, Role, Execution string
	}
	_ = json.Unmarshal(raw, &it)
	switch it.Type {
	case "function_call", "reasoning", "tool_search_call", "web_search_call", "mcp_approval_request":
		return true
	case "tool_search_output":
		return it.Execution != "client"
	}
	return it.Role == "assistant"
}

func inputItems(t *testing.T, raw json.RawMessage) []json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		b, _ := json.Marshal(map[string]string{"role": "user", "content": s})
		return []json.RawMessage{b}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// neutralFrom turns client-authored input items (or foreign history that a
// client rendered) into neutral messages.
func neutralFrom(items []json.RawMessage) []agent.Message {
	var out []agent.Message
	add := func(role agent.Role, p agent.Part) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, p)
			return
		}
		out = append(out, agent.Message{Role: role, Parts: []agent.Part{p}})
	}
	for _, raw := range items {
		var it item
		_ = json.Unmarshal(raw, &it)
		var content string
		var role struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Output  string          `json:"output"`
		}
		_ = json.Unmarshal(raw, &role)
		_ = json.Unmarshal(role.Content, &content)
		cid := ""
		if it.CallID != nil {
			cid = *it.CallID
		}
		switch {
		case it.Type == "function_call":
			add(agent.RoleAssistant, agent.ToolCallPart(agent.ToolCall{ID: cid, Name: it.Name, Input: argsObject(it.Arguments)}))
		case it.Type == "function_call_output":
			add(agent.RoleUser, agent.ToolResultPart(agent.ToolResult{CallID: cid, Text: role.Output}))
		case it.Type == "tool_search_call":
			sc := searchArgs(it.Arguments)
			sc.ID, sc.Where = cid, agent.WhereClient
			add(agent.RoleAssistant, agent.SearchCallPart(sc))
		case it.Type == "tool_search_output":
			add(agent.RoleUser, agent.SearchResultPart(agent.SearchResult{CallID: cid, Where: agent.WhereClient, Tools: loadedNames(it.Tools)}))
		case role.Role == "user":
			add(agent.RoleUser, agent.TextPart(content))
		case role.Role == "assistant":
			add(agent.RoleAssistant, agent.TextPart(content))
		}
	}
	return out
}

func requestFrom(t *testing.T, body map[string]json.RawMessage) *agent.Request {
	req := &agent.Request{Search: agent.SearchOff}
	_ = json.Unmarshal(body["model"], &req.Model)
	_ = json.Unmarshal(body["instructions"], &req.System)
	var stream bool
	_ = json.Unmarshal(body["stream"], &stream)
	req.NoStream = !stream
	var tools []struct {
		Type, Name, Description, Execution string
		Parameters                         json.RawMessage
		DeferLoading                       bool `json:"defer_loading"`
	}
	_ = json.Unmarshal(body["tools"], &tools)
	for _, tl := range tools {
		d := agent.ToolDef{Name: tl.Name, Description: tl.Description, Schema: tl.Parameters}
		switch {
		case tl.Type == "tool_search" && tl.Execution == "client":
			req.Search = agent.SearchClient
		case tl.Type == "tool_search":
			req.Search = agent.SearchNative
		case tl.Type == "function" && tl.DeferLoading:
			req.Deferred = append(req.Deferred, d)
		case tl.Type == "function":
			req.Tools = append(req.Tools, d)
		}
	}
	return req
}

func parseRecorded(t *testing.T, body json.RawMessage, sseBody string) agent.Message {
	t.Helper()
	var resp *agent.Response
	var err error
	if sseBody != "" {
		resp, err = parseStream(context.Background(), strings.NewReader(sseBody), parseContext{}, func(agent.StreamEvent) {})
	} else {
		resp, err = parseJSON(bytes.NewReader(body), parseContext{}, func(agent.StreamEvent) {})
	}
	if err != nil {
		t.Fatalf("parse recorded response: %v", err)
	}
	return resp.Message
}

func compareRequest(t *testing.T, i int, req *agent.Request, recorded map[string]json.RawMessage, want []json.RawMessage, namespaced bool) {
	t.Helper()
	p := New(Options{APIKey: rt.DefaultKey, Store: true})
	body, tools, _, err := p.build(req)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &got)
	if countType(want, "tool_search_output") < countType(got.Input, "tool_search_output") { // E9
		var kept []json.RawMessage
		for _, it := range got.Input {
			if !bytes.Contains(it, []byte(`"type":"tool_search_output"`)) || !bytes.Contains(it, []byte(`"execution":"server"`)) {
				kept = append(kept, it)
			}
		}
		got.Input = kept
	}
	want = regroupCalls(p, req, want) // E13
	if len(got.Input) != len(want) {
		t.Fatalf("request %d: %d input items, recorded %d\n got: %s", i, len(got.Input), len(want), body)
	}
	for k := range want {
		g, w := normItem(got.Input[k], want[k]), normItem(want[k], want[k])
		if !reflect.DeepEqual(g, w) {
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			t.Errorf("request %d input[%d]:\n got  %s\n want %s", i, k, gb, wb)
		}
	}
	if !namespaced {
		g, w := normTools(tools), normTools(recorded["tools"])
		if req.Search == agent.SearchClient { // E14
			w = slices.DeleteFunc(w, func(d string) bool { return strings.Contains(d, `"defer_loading":true`) })
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("request %d tools:\n got  %v\n want %v", i, g, w)
		}
	}
	// The strict fake must accept what we built. The recorded reasoning
	// carries the real API's encrypted content, which the fake cannot
	// verify.
	srv := rt.NewServer(t)
	srv.RecordedContent = true
	hr, _ := http.NewRequest("POST", srv.URL+"/responses", bytes.NewReader(body))
	hr.Header.Set("Authorization", "Bearer "+rt.DefaultKey)
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("request %d rejected by the fake: %s", i, srv.Requests()[0].Error)
	}
}

// normItem applies exclusions E1–E6 to a decoded item; rec is the recorded
// item at the same position (for E6).
func normItem(raw, rec json.RawMessage) any {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var r map[string]any
	_ = json.Unmarshal(rec, &r)
	if _, ok := r["id"]; !ok {
		delete(v, "id") // E6
	}
	delete(v, "status")                                                   // E2
	if v["type"] == "message" || (v["type"] == nil && v["role"] != nil) { // E10
		if parts, ok := v["content"].([]any); ok {
			var text string
			for _, p := range parts {
				if m, ok := p.(map[string]any); ok {
					text += fmtString(m["text"])
				}
			}
			v["content"] = text
		}
		delete(v, "type")
	}
	if v["type"] == "tool_search_output" { // E11
		v["tools"] = flattenNamespaces(v["tools"]) // E13
		if ts, ok := v["tools"].([]any); ok {
			for _, tl := range ts {
				if m, ok := tl.(map[string]any); ok {
					delete(m, "defer_loading")
				}
			}
		}
	}
	if v["type"] == "tool_search_call" {
		delete(v, "arguments") // E1
		if v["execution"] == "server" {
			delete(v, "call_id") // E9
		}
	}
	if c, ok := v["content"].([]any); ok && v["type"] == "reasoning" && len(c) == 0 {
		delete(v, "content") // E12
	}
	return scrub(v)
}

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "logprobs")      // E3
		delete(x, "output_schema") // E4
		delete(x, "strict")        // E5
		for k, e := range x {
			x[k] = scrub(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e)
		}
	}
	return v
}

func normTools(raw json.RawMessage) []string {
	var ts []any
	_ = json.Unmarshal(raw, &ts)
	var out []string
	for _, t := range flattenNamespaces(ts).([]any) { // E13
		tl, _ := t.(map[string]any)
		if tl["type"] == "tool_search" && tl["execution"] == "client" {
			tl = map[string]any{"type": "tool_search", "execution": "client"}
		}
		b, _ := json.Marshal(scrub(tl))
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func fmtString(v any) string {
	s, _ := v.(string)
	return s
}

func countType(items []json.RawMessage, typ string) int {
	n := 0
	for _, it := range items {
		var h struct{ Type string }
		_ = json.Unmarshal(it, &h)
		if h.Type == typ {
			n++
		}
	}
	return n
}

// flattenNamespaces replaces each namespace of a decoded tools list by its
// member functions (E13).
func flattenNamespaces(v any) any {
	ts, ok := v.([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, t := range ts {
		m, _ := t.(map[string]any)
		if m != nil && m["type"] == "namespace" {
			if members, ok := m["tools"].([]any); ok {
				out = append(out, members...)
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// regroupCalls rewrites the recorded function_calls of deferred functions
// to the namespace our grouping gives them (E13).
func regroupCalls(p *Provider, req *agent.Request, items []json.RawMessage) []json.RawMessage {
	pl := p.plan(req, agent.ResolveSearch(p, req))
	out := make([]json.RawMessage, len(items))
	for i, raw := range items {
		out[i] = raw
		var it item
		if json.Unmarshal(raw, &it) != nil || it.Type != "function_call" || it.Namespace != it.Name {
			continue
		}
		if ns := pl.nsOf[it.Name]; ns != "" && !pl.topLevel[it.Name] {
			out[i] = withField(raw, "namespace", ns)
		}
	}
	return out
}
