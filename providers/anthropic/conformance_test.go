package anthropic

// Conformance against every Anthropic recording of ../shared/fixtures,
// snapshotted as JSON in testdata/conformance by convert.py there.
//
// TestConformanceParse parses every recorded response (JSON and SSE).
// TestConformanceReplay rebuilds every recorded request from neutral
// history — the previous response as this adapter parsed it, the rest
// converted from the recorded messages — and compares it with what the
// recorded client sent and the API accepted, modulo key order and these
// choices the recorded clients made differently (see normalize):
//   - cache_control: this adapter adds breakpoints, the recorders did not;
//   - caller on tool_use/server_tool_use: pydantic drops it on replay, this
//     adapter replays blocks verbatim (both are accepted, PROTOCOLS §1.4);
//   - tool order and tool-level extras (strict, input_examples): the neutral
//     ToolDef keeps name, description and schema; the set must match;
//   - the client search tool: recorders name theirs differently
//     (search_tools), this adapter adds `tool_search`;
//   - text blocks next to tool_reference blocks in a client search result
//     (the neutral SearchResult keeps only the names);
//   - consecutive messages of one role: pydantic sends two assistant
//     messages in a row, this adapter merges them (the API merges them too);
//   - is_error:false, tool_choice and sampling parameters.
// Cassettes that cannot be expressed in the neutral model are only parsed:
// mid-conversation system messages (pydantic lazy advertisement) and
// crmne's "promote" strategy (re-sends the found tool eagerly instead of
// replaying the search blocks); every rebuilt request is also sent to the
// strict fake, which must accept it.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

type fixture struct {
	Source       string `json:"source"`
	Interactions []struct {
		Index    int             `json:"index"`
		Request  json.RawMessage `json:"request"`
		Response struct {
			Status int             `json:"status"`
			JSON   json.RawMessage `json:"json"`
			SSE    *string         `json:"sse"`
		} `json:"response"`
	} `json:"interactions"`
}

func loadFixtures(t *testing.T) map[string]fixture {
	t.Helper()
	paths, err := filepath.Glob("testdata/conformance/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string]fixture{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = f
	}
	return out
}

// parseResponse runs a recorded 200 body through the adapter's parser.
func parseResponse(t *testing.T, req *agent.Request, status int, body json.RawMessage, sse *string) (*agent.Response, []agent.StreamEvent) {
	t.Helper()
	var evs []agent.StreamEvent
	p := &contentParser{req: req, emit: func(e agent.StreamEvent) { evs = append(evs, e) }}
	out := &agent.Response{}
	var err error
	if sse != nil {
		err = readStream(strings.NewReader(*sse), p, out, "")
	} else {
		p.emitText = true
		err = readBody(bytes.NewReader(body), p, out)
	}
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return out, evs
}

func TestConformanceParse(t *testing.T) {
	n := 0
	for name, f := range loadFixtures(t) {
		for i, it := range f.Interactions {
			if it.Response.Status != 200 {
				continue
			}
			n++
			req := &agent.Request{}
			if len(it.Request) > 0 && string(it.Request) != "null" {
				req, _ = neutralRequest(t, it.Request)
			}
			resp, evs := parseResponse(t, req, 200, it.Response.JSON, it.Response.SSE)
			m := resp.Message
			raw := m.RawFor("anthropic", "messages")
			if raw == nil {
				t.Errorf("%s #%d: no raw part", name, i)
				continue
			}
			blocks, err := parseBlocks(raw.Data)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			if it.Response.SSE == nil {
				var body struct{ Content json.RawMessage }
				_ = json.Unmarshal(it.Response.JSON, &body)
				if !bytes.Equal(raw.Data, compact(body.Content)) {
					t.Errorf("%s #%d: raw differs from the body's content:\n%s\n%s", name, i, raw.Data, compact(body.Content))
				}
			} else if want := strings.Count(*it.Response.SSE, `"content_block_start"`); want != len(blocks) {
				t.Errorf("%s #%d: %d blocks reassembled, stream had %d", name, i, len(blocks), want)
			}
			// Every block maps to its neutral part, in order.
			var want []string
			text := ""
			for _, b := range blocks {
				switch {
				case b.Type == "text":
					var tb struct{ Text string }
					_ = json.Unmarshal(b.raw, &tb)
					text += tb.Text
					if len(want) == 0 || want[len(want)-1] != "text" {
						if tb.Text != "" {
							want = append(want, "text")
						}
					}
				case b.Type == "tool_use" && b.Name == ClientSearchTool:
					want = append(want, "search_call")
				case b.Type == "tool_use":
					want = append(want, "tool_call")
				case b.isSearchUse():
					want = append(want, "search_call")
				case b.isSearchResult():
					want = append(want, "search_result")
				case b.isUse():
					want = append(want, "server_tool")
				}
			}
			var got []string
			for _, p := range m.Parts {
				if p.Type != agent.PartRaw && p.Type != agent.PartServerTool || p.Type == agent.PartServerTool && len(p.ServerTool.Input) > 0 {
					got = append(got, string(p.Type))
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s #%d: parts %v, want %v", name, i, got, want)
			}
			if m.Text() != text {
				t.Errorf("%s #%d: text %q, want %q", name, i, m.Text(), text)
			}
			streamed := ""
			for _, e := range evs {
				streamed += e.Text
			}
			if streamed != text {
				t.Errorf("%s #%d: streamed text %q, want %q", name, i, streamed, text)
			}
			if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 || resp.StopReason == "" {
				t.Errorf("%s #%d: usage %+v stop %q", name, i, resp.Usage, resp.StopReason)
			}
		}
	}
	if n < 40 {
		t.Errorf("parsed only %d responses", n)
	}
	t.Logf("parsed %d recorded responses", n)
}

// Specific shapes called out in PROTOCOLS.md.
func TestConformanceShapes(t *testing.T) {
	fx := loadFixtures(t)
	get := func(file string, i int) agent.Message {
		f, ok := fx[file]
		if !ok {
			t.Fatalf("missing %s", file)
		}
		it := f.Interactions[i]
		resp, _ := parseResponse(t, &agent.Request{}, 200, it.Response.JSON, it.Response.SSE)
		return resp.Message
	}
	// A response that opens with the result of a search begun in the previous one.
	for _, file := range []string{"vercel-ai__anthropic__anthropic-tool-search-deferred-bm25.chunks.json", "vercel-ai__anthropic__anthropic-tool-search-deferred-regex.chunks.json"} {
		first, second := get(file, 0), get(file, 1)
		var open string
		for _, p := range first.Parts {
			if p.SearchCall != nil {
				open = p.SearchCall.ID
			}
		}
		if p := second.Parts[0]; p.SearchResult == nil || p.SearchResult.CallID != open || len(p.SearchResult.Tools) == 0 {
			t.Errorf("%s: second response should open with the result of %s: %+v", file, open, second.Parts[0])
		}
	}
	m := get("vercel-ai__anthropic__anthropic-tool-search-error-step-2.1.json", 0)
	if r := m.Parts[0].SearchResult; r == nil || r.Error != "invalid_tool_input: Invalid regular expression pattern: missing ]: [" {
		t.Errorf("search error not parsed: %+v", m.Parts[0])
	}
	m = get("vercel-ai__anthropic__anthropic-tool-search-regex.1.json", 0)
	for _, p := range m.Parts {
		if p.SearchCall != nil && (p.SearchCall.Pattern == "" || p.SearchCall.Limit != 10) {
			t.Errorf("regex search call %+v", p.SearchCall)
		}
	}
	// The recorded 400 becomes an APIError with type, message and request id.
	f := fx["vercel-ai__anthropic__anthropic-tool-choice-none-tool-search-history.error.json"]
	resp := &http.Response{StatusCode: 400, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(f.Interactions[0].Response.JSON))}
	ae, ok := readAPIError(resp).(*agent.APIError)
	if !ok || ae.Status != 400 || ae.Type != "invalid_request_error" || ae.Message != "Tool reference 'lookup_documents' not found in available tools" || ae.RequestID != "req_011CfrvEkff81JwQM2B2HR77" {
		t.Errorf("%+v", ae)
	}
}

// replayOnly lists cassettes whose requests the neutral model cannot
// express; their responses are still parsed.
var replayOnly = map[string]string{
	"pydantic-ai__test_anthropic__test_anthropic_lazy_advertisement_live.json":                      "mid-conversation system message",
	"pydantic-ai__test_anthropic__test_anthropic_fable_5_lazy_advertisement_live.json":              "mid-conversation system message",
	"pydantic-ai__test_anthropic_mid_conversation_system__test_native_tool_availability_delta.json": "mid-conversation system message",
}

func TestConformanceReplay(t *testing.T) {
	srv := anthropictest.NewServer(t)
	srv.Handler = func(*anthropictest.Request) anthropictest.Reply {
		return anthropictest.Message(anthropictest.Text("ok"))
	}
	compared, fromParsed := 0, 0
	for name, f := range loadFixtures(t) {
		var prevReq json.RawMessage
		var prevResp *agent.Response
		for i, it := range f.Interactions {
			if len(it.Request) == 0 || string(it.Request) == "null" {
				continue
			}
			req, mode := neutralRequest(t, it.Request)
			if reason, skip := replayOnly[name]; skip || hasSystemRole(it.Request) {
				if reason == "" {
					reason = "mid-conversation system message"
				}
				t.Logf("%s #%d: parse only (%s)", name, i, reason)
				continue
			}
			// The assistant message the previous response produced is taken
			// as this adapter parsed it, not as the client replayed it.
			if prevResp != nil && continues(prevReq, it.Request) {
				k := messageCount(prevReq)
				req.Messages[k] = prevResp.Message
				fromParsed++
			}
			r, err := buildRequest(req, mode)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			got, want := normalize(t, r.body, false), normalize(t, it.Request, true)
			if strings.HasPrefix(name, "crmne-ruby_llm-pr745__") && i > 0 {
				t.Logf("%s #%d: recorded client used the promote strategy; only checking the fake accepts ours", name, i)
			} else if got != want {
				t.Errorf("%s #%d: rebuilt request differs\n got %s\nwant %s", name, i, got, want)
			} else {
				compared++
			}
			if status, msg := postFake(t, srv, r.body); status != 200 {
				t.Errorf("%s #%d: fake rejected the rebuilt request: %s", name, i, msg)
			}
			prevReq = it.Request
			prevResp = nil
			if it.Response.Status == 200 {
				prevResp, _ = parseResponse(t, req, 200, it.Response.JSON, it.Response.SSE)
			}
		}
	}
	if compared < 25 {
		t.Errorf("compared only %d requests", compared)
	}
	if fromParsed < 20 {
		t.Errorf("only %d requests continued a parsed response", fromParsed)
	}
	t.Logf("rebuilt %d recorded requests, %d of them continuing a response as parsed here", compared, fromParsed)
}

func postFake(t *testing.T, srv *anthropictest.Server, body []byte) (int, string) {
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", bytes.NewReader(body))
	req.Header.Set("x-api-key", anthropictest.DefaultAPIKey)
	req.Header.Set("anthropic-version", DefaultVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type recMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type recRequest struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	System    json.RawMessage   `json:"system"`
	Stream    bool              `json:"stream"`
	Messages  []recMessage      `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
}

func hasSystemRole(raw json.RawMessage) bool {
	var r recRequest
	_ = json.Unmarshal(raw, &r)
	for _, m := range r.Messages {
		if m.Role == "system" {
			return true
		}
	}
	return false
}

func messageCount(raw json.RawMessage) int {
	var r recRequest
	_ = json.Unmarshal(raw, &r)
	return len(r.Messages)
}

// continues reports whether next is prev's conversation plus prev's answer.
func continues(prev, next json.RawMessage) bool {
	var a, b recRequest
	_ = json.Unmarshal(prev, &a)
	_ = json.Unmarshal(next, &b)
	if len(b.Messages) <= len(a.Messages) || b.Messages[len(a.Messages)].Role != "assistant" {
		return false
	}
	for i := range a.Messages {
		if canonical(a.Messages[i].Content) != canonical(b.Messages[i].Content) {
			return false
		}
	}
	return true
}

func canonical(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	b, _ := json.Marshal(v)
	return string(b)
}

func textBlocks(raw json.RawMessage) []json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []json.RawMessage{textBlock(s)}
	}
	var bs []json.RawMessage
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// neutralRequest converts a recorded request into the neutral model: the
// settings from its tools array, user messages into parts, assistant
// messages through the parser (as if this adapter had received them).
func neutralRequest(t *testing.T, raw json.RawMessage) (*agent.Request, agent.SearchMode) {
	t.Helper()
	var r recRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	req := &agent.Request{Model: r.Model, MaxTokens: r.MaxTokens, NoStream: !r.Stream}
	var sys []string
	for _, b := range textBlocks(r.System) {
		var tb struct{ Text string }
		_ = json.Unmarshal(b, &tb)
		sys = append(sys, tb.Text)
	}
	req.System = strings.Join(sys, "\n")
	mode := agent.SearchOff
	for _, tr := range r.Tools {
		var d struct {
			Type         string          `json:"type"`
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"input_schema"`
			DeferLoading bool            `json:"defer_loading"`
		}
		_ = json.Unmarshal(tr, &d)
		def := agent.ToolDef{Name: d.Name, Description: d.Description, Schema: d.InputSchema}
		switch {
		case strings.HasPrefix(d.Type, "tool_search_tool_"):
			mode = agent.SearchNative
			if strings.Contains(d.Type, "regex") {
				req.SearchAlgo = "regex"
			}
		case d.Type != "" && d.Type != "custom":
			req.ProviderTools = append(req.ProviderTools, agent.ProviderTool{Raw: tr})
		case d.DeferLoading:
			req.Deferred = append(req.Deferred, def)
		default:
			req.Tools = append(req.Tools, def)
		}
	}
	if mode == agent.SearchOff && len(req.Deferred) > 0 {
		mode = agent.SearchClient
	}
	req.Search = mode
	for _, m := range r.Messages {
		blocks := textBlocks(m.Content)
		if m.Role == "assistant" {
			p := &contentParser{req: req, emit: func(agent.StreamEvent) {}}
			for _, b := range blocks {
				p.add(compact(b))
			}
			req.Messages = append(req.Messages, p.message())
			continue
		}
		um := agent.Message{Role: agent.RoleUser}
		for _, b := range blocks {
			var bb struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			}
			_ = json.Unmarshal(b, &bb)
			switch bb.Type {
			case "text":
				um.Parts = append(um.Parts, agent.TextPart(bb.Text))
			case "tool_result":
				var refs, texts []string
				var images []agent.Image
				for _, c := range textBlocks(bb.Content) {
					var cb struct {
						Type, Text, ToolName string `json:",omitempty"`
						TN                   string `json:"tool_name"`
						Source               struct {
							MediaType string `json:"media_type"`
							Data      string `json:"data"`
						} `json:"source"`
					}
					_ = json.Unmarshal(c, &cb)
					switch cb.Type {
					case "tool_reference":
						refs = append(refs, cb.TN)
					case "text":
						texts = append(texts, cb.Text)
					case "image":
						images = append(images, agent.Image{MediaType: cb.Source.MediaType, Data: cb.Source.Data})
					}
				}
				if len(refs) > 0 {
					um.Parts = append(um.Parts, agent.SearchResultPart(agent.SearchResult{CallID: bb.ToolUseID, Where: agent.WhereClient, Tools: refs}))
				} else {
					um.Parts = append(um.Parts, agent.ToolResultPart(agent.ToolResult{CallID: bb.ToolUseID, Text: strings.Join(texts, ""), Images: images, IsError: bb.IsError}))
				}
			}
		}
		req.Messages = append(req.Messages, um)
	}
	return req, mode
}

// normalize reduces a request to what both sides must agree on (see the
// file comment for each exclusion) and returns it as canonical JSON.
func normalize(t *testing.T, raw []byte, recorded bool) string {
	t.Helper()
	var r recRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	var sys []string
	for _, b := range textBlocks(r.System) {
		var tb struct{ Text string }
		_ = json.Unmarshal(b, &tb)
		sys = append(sys, tb.Text)
	}
	out := map[string]any{"model": r.Model, "max_tokens": r.MaxTokens, "system": strings.Join(sys, "\n"), "stream": r.Stream}
	var msgs []any
	for _, m := range r.Messages {
		var blocks []any
		for _, b := range textBlocks(m.Content) {
			var v map[string]any
			_ = json.Unmarshal(b, &v)
			delete(v, "cache_control")
			delete(v, "caller")
			if v["is_error"] == false {
				delete(v, "is_error")
			}
			if v["type"] == "tool_result" {
				var content []any
				hasRef := false
				for _, c := range textBlocks(mustMarshal(v["content"])) {
					var cv map[string]any
					_ = json.Unmarshal(c, &cv)
					delete(cv, "cache_control")
					if cv["type"] == "tool_reference" {
						hasRef = true
					}
					content = append(content, cv)
				}
				if hasRef {
					var refs []any
					for _, c := range content {
						if c.(map[string]any)["type"] == "tool_reference" {
							refs = append(refs, c)
						}
					}
					content = refs
				}
				if v["content"] == nil || v["content"] == "" {
					delete(v, "content")
				} else {
					v["content"] = content
				}
			}
			blocks = append(blocks, v)
		}
		if n := len(msgs); n > 0 && msgs[n-1].(map[string]any)["role"] == m.Role {
			last := msgs[n-1].(map[string]any)
			last["content"] = append(last["content"].([]any), blocks...)
			continue
		}
		msgs = append(msgs, map[string]any{"role": m.Role, "content": blocks})
	}
	out["messages"] = msgs
	var tools []map[string]any
	for _, tr := range r.Tools {
		var v map[string]any
		_ = json.Unmarshal(tr, &v)
		if v["type"] == nil || v["type"] == "custom" {
			keep := map[string]any{"name": v["name"], "input_schema": v["input_schema"]}
			if d, ok := v["description"]; ok && d != "" {
				keep["description"] = d
			}
			if v["defer_loading"] == true {
				keep["defer_loading"] = true
			}
			// The client search tool is named and worded by each client.
			if v["defer_loading"] != true && (v["name"] == ClientSearchTool || v["name"] == "search_tools") {
				continue
			}
			v = keep
		} else {
			delete(v, "cache_control")
		}
		tools = append(tools, v)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i]["name"].(string) < tools[j]["name"].(string) })
	out["tools"] = tools
	b, _ := json.Marshal(out)
	return string(b)
}
