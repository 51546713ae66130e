package crossprovider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// The fakes play one small "model" for every provider. It reads the request
// the way a real model sees it and decides from what is there alone:
//   - the user asked for the weather or a stock price: the target tool;
//   - the target's result is the last thing in the request: answer;
//   - the target is callable in this request (an eager tool, or a deferred
//     tool loaded by a search the request carries, or known through a
//     tool_search result in the wrapped form): call it, without searching;
//   - otherwise search with whatever search the request offers, once per turn.
// So a test learns from the model's actions whether tools found earlier
// were carried over to the new provider in a form it can use.

// Action kinds the model logs.
const (
	actSearchNative = "search-native"
	actSearchClient = "search-client"
	actCallDirect   = "call-direct"
	actCallWrapped  = "call-wrapped"
	actAnswer       = "answer"
	actGiveUp       = "give-up"
	actChat         = "chat"
)

// action is one decision of the model.
type action struct {
	Provider, Model, Kind, Tool string
}

func (a action) String() string { return a.Provider + "/" + a.Model + ":" + a.Kind + ":" + a.Tool }

// intent is what the user's prompt asks for.
type intent struct {
	tool  string
	query string
	args  map[string]any
}

// intentOf maps a prompt to the tool a model would need: "weather in X",
// "stock price of X".
func intentOf(prompt string) (intent, bool) {
	words := strings.Fields(prompt)
	prompt = strings.ToLower(prompt)
	if len(words) == 0 {
		return intent{}, false
	}
	last := strings.Trim(words[len(words)-1], "?.!")
	switch {
	case strings.Contains(prompt, "weather"):
		return intent{"weather_lookup", "weather", map[string]any{"city": last}}, true
	case strings.Contains(prompt, "stock"):
		return intent{"stock_price", "stock price", map[string]any{"ticker": last}}, true
	case strings.Contains(prompt, "calendar"):
		return intent{"calendar_create", "calendar event", map[string]any{"title": last}}, true
	case strings.Contains(prompt, "email"):
		return intent{"email_send", "email", map[string]any{"to": last}}, true
	}
	return intent{}, false
}

// brain holds the model's log and id counter, shared by the three fakes.
type brain struct {
	mu      sync.Mutex
	actions []action
	seq     int
	search  func(query string) []string
}

func (b *brain) log(provider, model, kind, tool string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.actions = append(b.actions, action{provider, model, kind, tool})
}

// id makes ids as long as the real ones (toolu_01 + 22 characters,
// srvtoolu_01 + 22, call_ + 24), so id length limits are exercised.
func (b *brain) id(prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	if prefix == "call_" {
		return fmt.Sprintf("call_x%023d", b.seq)
	}
	return fmt.Sprintf("%s01x%021d", prefix, b.seq)
}

// Actions returns the log since mark.
func (b *brain) since(mark int) []action {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]action(nil), b.actions[mark:]...)
}

func (b *brain) mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.actions)
}

// ---- Anthropic Messages ----

type aBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	ToolName  string          `json:"tool_name"`
	Content   json.RawMessage `json:"content"`
	Input     json.RawMessage `json:"input"`
}

type aBody struct {
	Model string `json:"model"`
	Tools []struct {
		Type         string `json:"type"`
		Name         string `json:"name"`
		DeferLoading bool   `json:"defer_loading"`
	} `json:"tools"`
	Messages []struct {
		Role    string   `json:"role"`
		Content []aBlock `json:"content"`
	} `json:"messages"`
}

// references lists the tool names a tool_result or tool_search_tool_result
// block loads.
func (b aBlock) references() []string {
	var out []string
	var items []aBlock
	if json.Unmarshal(b.Content, &items) == nil {
		for _, it := range items {
			if it.Type == "tool_reference" {
				out = append(out, it.ToolName)
			}
		}
	}
	var sr struct {
		Refs []aBlock `json:"tool_references"`
	}
	if json.Unmarshal(b.Content, &sr) == nil {
		for _, it := range sr.Refs {
			out = append(out, it.ToolName)
		}
	}
	return out
}

func (b aBlock) resultText() string {
	var items []aBlock
	_ = json.Unmarshal(b.Content, &items)
	var s []string
	for _, it := range items {
		if it.Type == "text" {
			s = append(s, it.Text)
		}
	}
	return strings.Join(s, "")
}

func (br *brain) anthropic(r *anthropictest.Request) anthropictest.Reply {
	var body aBody
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return anthropictest.Message(anthropictest.Text("unreadable request"))
	}
	prompt, start := "", 0
	for i, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				prompt, start = b.Text, i
			}
		}
	}
	log := func(kind, tool string) { br.log("anthropic", body.Model, kind, tool) }
	in, ok := intentOf(prompt)
	if !ok {
		log(actChat, "")
		return anthropictest.Message(anthropictest.Text("Hello from " + body.Model + "."))
	}
	// The target's result ends the request: answer.
	n := len(body.Messages)
	if n >= 2 && body.Messages[n-1].Role == "user" && body.Messages[n-2].Role == "assistant" {
		calls := map[string]string{}
		for _, b := range body.Messages[n-2].Content {
			if b.Type == "tool_use" {
				calls[b.ID] = b.Name
				if b.Name == "tool_call" {
					calls[b.ID] = wrappedName(b.Input)
				}
			}
		}
		for _, b := range body.Messages[n-1].Content {
			if b.Type == "tool_result" && calls[b.ToolUseID] == in.tool {
				log(actAnswer, in.tool)
				return anthropictest.Message(anthropictest.Text("answer: " + b.resultText()))
			}
		}
	}
	eager, deferred, native, client, fn := false, false, false, false, false
	for _, t := range body.Tools {
		switch {
		case t.Name == in.tool:
			eager, deferred = !t.DeferLoading, t.DeferLoading
		case strings.HasPrefix(t.Type, "tool_search_tool_"):
			native = true
		case t.Type == "" && t.Name == "tool_search":
			client = true
		case t.Type == "" && t.Name == "tool_call":
			fn = true
		}
	}
	loaded, known, searched := false, false, false
	for i, m := range body.Messages {
		for _, b := range m.Content {
			for _, ref := range b.references() {
				loaded = loaded || ref == in.tool
			}
			if b.Type == "tool_result" && strings.Contains(b.resultText(), `"name":"`+in.tool+`"`) {
				known = true
			}
			if i > start && m.Role == "assistant" && (b.Type == "server_tool_use" || b.Type == "tool_use" && b.Name == "tool_search") {
				searched = true
			}
		}
	}
	switch {
	case eager || deferred && loaded:
		log(actCallDirect, in.tool)
		return anthropictest.Message(anthropictest.ToolUse(br.id("toolu_"), in.tool, in.args))
	case fn && known:
		log(actCallWrapped, in.tool)
		return anthropictest.Message(anthropictest.ToolUse(br.id("toolu_"), "tool_call", map[string]any{"name": in.tool, "arguments": in.args}))
	case searched:
		log(actGiveUp, in.tool)
		return anthropictest.Message(anthropictest.Text("I cannot find " + in.tool + "."))
	case native:
		log(actSearchNative, in.tool)
		id := br.id("srvtoolu_")
		blocks := []json.RawMessage{anthropictest.ServerSearch(id, in.query), anthropictest.SearchResult(id, br.search(in.query)...)}
		return anthropictest.Message(append(blocks, anthropictest.ToolUse(br.id("toolu_"), in.tool, in.args))...)
	case client:
		log(actSearchClient, in.tool)
		return anthropictest.Message(anthropictest.ToolUse(br.id("toolu_"), "tool_search", map[string]any{"query": in.query}))
	}
	log(actGiveUp, in.tool)
	return anthropictest.Message(anthropictest.Text("No way to reach " + in.tool + "."))
}

// ---- OpenAI Responses ----

type rTool struct {
	Type         string            `json:"type"`
	Name         string            `json:"name"`
	DeferLoading bool              `json:"defer_loading"`
	Execution    string            `json:"execution"`
	Tools        []json.RawMessage `json:"tools"`
}

type rItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    *string         `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Tools     []rTool         `json:"tools"`
}

func (it rItem) callID() string {
	if it.CallID == nil {
		return ""
	}
	return *it.CallID
}

// flattenNamespaces lists namespaces' member functions in place of the
// namespaces: the model sees a namespace's functions once it is loaded, and
// calls them by their own names.
func flattenNamespaces(ts []rTool) []rTool {
	var out []rTool
	for _, t := range ts {
		if t.Type != "namespace" {
			out = append(out, t)
			continue
		}
		for _, m := range t.Tools {
			var mt rTool
			if json.Unmarshal(m, &mt) == nil {
				out = append(out, mt)
			}
		}
	}
	return out
}

// wrappedName is the tool a tool_call function call runs.
func wrappedName(args json.RawMessage) string {
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s)
	}
	var w struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &w)
	return w.Name
}

// responses answers as a Responses model; gpt-5 models think first, as the
// real ones do, so reasoning items travel in the history too.
func (br *brain) responses(body []byte) responsestest.Turn {
	turn := br.responsesTurn(body)
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &m)
	if strings.HasPrefix(m.Model, "gpt-5") {
		turn = append(responsestest.Turn{responsestest.Reasoning()}, turn...)
	}
	return turn
}

func (br *brain) responsesTurn(body []byte) responsestest.Turn {
	var req struct {
		Model string  `json:"model"`
		Tools []rTool `json:"tools"`
		Input []rItem `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return responsestest.Turn{responsestest.Text("unreadable request")}
	}
	prompt, start := "", 0
	for i, it := range req.Input {
		var s string
		if it.Role == "user" && json.Unmarshal(it.Content, &s) == nil {
			prompt, start = s, i
		}
	}
	log := func(kind, tool string) { br.log("openai", req.Model, kind, tool) }
	in, ok := intentOf(prompt)
	if !ok {
		log(actChat, "")
		return responsestest.Turn{responsestest.Text("Hello from " + req.Model + ".")}
	}
	calls := map[string]string{}
	for _, it := range req.Input {
		if it.Type == "function_call" {
			name := it.Name
			if name == "tool_call" {
				name = wrappedName(it.Arguments)
			}
			calls[it.callID()] = name
		}
	}
	if n := len(req.Input); n > 0 && req.Input[n-1].Type == "function_call_output" && calls[req.Input[n-1].callID()] == in.tool {
		var out string
		_ = json.Unmarshal(req.Input[n-1].Output, &out)
		log(actAnswer, in.tool)
		return responsestest.Turn{responsestest.Text("answer: " + out)}
	}
	eager, hosted, clientTS, fn := false, false, false, false
	for _, t := range flattenNamespaces(req.Tools) {
		switch {
		case t.Type == "function" && t.Name == in.tool:
			eager = !t.DeferLoading
		case t.Type == "tool_search" && t.Execution == "client":
			clientTS = true
		case t.Type == "tool_search":
			hosted = true
		case t.Type == "function" && t.Name == "tool_call":
			fn = true
		}
	}
	loaded, known, searched := false, false, false
	for i, it := range req.Input {
		switch it.Type {
		case "tool_search_output":
			for _, t := range flattenNamespaces(it.Tools) {
				loaded = loaded || t.Name == in.tool
			}
		case "function_call_output":
			known = known || bytes.Contains(it.Output, []byte(`\"name\":\"`+in.tool+`\"`))
		case "tool_search_call":
			searched = searched || i > start
		case "function_call":
			searched = searched || i > start && it.Name == "tool_search"
		}
	}
	args, _ := json.Marshal(in.args)
	switch {
	case eager || loaded:
		// What a tool_search_output loaded is callable, whether or not the
		// tools array defines it (client search sends no deferred tool).
		log(actCallDirect, in.tool)
		return responsestest.Turn{responsestest.Call(in.tool, string(args))}
	case fn && known:
		log(actCallWrapped, in.tool)
		w, _ := json.Marshal(map[string]any{"name": in.tool, "arguments": in.args})
		return responsestest.Turn{responsestest.Call("tool_call", string(w))}
	case searched:
		log(actGiveUp, in.tool)
		return responsestest.Turn{responsestest.Text("I cannot find " + in.tool + ".")}
	case hosted:
		log(actSearchNative, in.tool)
		return responsestest.Turn{responsestest.HostedSearch(in.query), responsestest.Call(in.tool, string(args))}
	case clientTS:
		log(actSearchClient, in.tool)
		return responsestest.Turn{responsestest.ClientSearch(in.query)}
	case fn:
		log(actSearchClient, in.tool)
		q, _ := json.Marshal(map[string]any{"query": in.query})
		return responsestest.Turn{responsestest.Call("tool_search", string(q))}
	}
	log(actGiveUp, in.tool)
	return responsestest.Turn{responsestest.Text("No way to reach " + in.tool + ".")}
}

// responsesFront puts the model in front of the Responses fake, which only
// plays scripted turns: each request is read, its turn scripted, and the
// request passed on unchanged. Requests are sequential, so the turn
// scripted is the one the request consumes.
func responsesFront(t *testing.T, br *brain, fake *responsestest.Server) string {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(fake.URL, "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ModifyResponse = func(r *http.Response) error {
		r.Body = realIDs(r.Body)
		r.ContentLength = -1
		r.Header.Del("Content-Length")
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fake.Script(br.responses(buf.Bytes()))
		r.Body = httpBody(buf.Bytes())
		r.ContentLength = int64(buf.Len())
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// fakeID matches the fake's short ids (tsc_fake0001, call_fake0002). A
// reasoning item's id is left as it is: the fake seals it into the item's
// encrypted content, which the API checks against the item's id
// (responsestest/orgs.go), so a new id would make it another item's.
var fakeID = regexp.MustCompile(`"(tsc|tso|fc|msg|resp|ws|call|call_added)_fake(\d+)"`)

// realIDs gives the Responses fake's ids the real lengths as they stream
// through: item ids are 50 characters after the prefix
// (tsc_0b650d19...), call ids 24 (call_ePxqBm0P...).
func realIDs(body io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := fakeID.ReplaceAllStringFunc(sc.Text(), func(m string) string {
				g := fakeID.FindStringSubmatch(m)
				n := 50
				if strings.HasPrefix(g[1], "call") {
					n = 24
				}
				return `"` + g[1] + "_" + strings.Repeat("0", n-len(g[2])-1) + "f" + g[2] + `"`
			})
			if _, err := io.WriteString(pw, line+"\n"); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// ---- Chat Completions ----

func (br *brain) chat(req chattest.ChatRequest) chattest.Turn {
	prompt, start := "", 0
	for i, m := range req.Messages {
		if m.Role == "user" {
			prompt, start = m.Text(), i
		}
	}
	log := func(kind, tool string) { br.log("openai-chat", req.Model, kind, tool) }
	in, ok := intentOf(prompt)
	if !ok {
		log(actChat, "")
		return chattest.Text("Hello from " + req.Model + ".")
	}
	calls := map[string]string{}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			name := c.Function.Name
			if name == "tool_call" {
				var s string
				_ = json.Unmarshal(c.Function.Arguments, &s)
				name = wrappedName(json.RawMessage(s))
			}
			calls[c.ID] = name
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" && calls[req.Messages[n-1].ToolCallID] == in.tool {
		log(actAnswer, in.tool)
		return chattest.Text("answer: " + req.Messages[n-1].Text())
	}
	var tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal(req.Tools, &tools)
	direct, search, wrapper := false, false, false
	for _, t := range tools {
		switch t.Function.Name {
		case in.tool:
			direct = true
		case "tool_search":
			search = true
		case "tool_call":
			wrapper = true
		}
	}
	known, searched := false, false
	for i, m := range req.Messages {
		if m.Role == "tool" && strings.Contains(m.Text(), `"name":"`+in.tool+`"`) {
			known = true
		}
		for _, c := range m.ToolCalls {
			searched = searched || i > start && c.Function.Name == "tool_search"
		}
	}
	switch {
	case direct:
		log(actCallDirect, in.tool)
		return chattest.Calls(chattest.DirectCall(br.id("call_"), in.tool, in.args))
	case wrapper && known:
		log(actCallWrapped, in.tool)
		return chattest.Calls(chattest.WrappedCall(br.id("call_"), in.tool, in.args))
	case searched:
		log(actGiveUp, in.tool)
		return chattest.Text("I cannot find " + in.tool + ".")
	case search:
		log(actSearchClient, in.tool)
		return chattest.Calls(chattest.SearchCall(br.id("call_"), in.query, 0))
	}
	log(actGiveUp, in.tool)
	return chattest.Text("No way to reach " + in.tool + ".")
}
