// Package compactbench measures compaction on a long conversation: a
// 200-turn scripted session with 20 tool discoveries, run through a real
// agent.Session against the providers' strict fakes, with and without
// automatic compaction. The fakes play a small model that decides from the
// request alone, the way a real one does: it calls a tool when the request
// has it loaded (found by an earlier search the request still carries),
// and searches otherwise. So a search for a tool found earlier is a
// re-search: what compaction must not cause.
//
//	go run ./bench compact [--json]
package compactbench

import (
	"bytes"
	"context"
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
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/tokens"
)

// The session's shape.
const (
	Turns       = 200
	Discoveries = 20
	// ContextWindow is the window the session is given, in the fakes'
	// tokens (a body's bytes / 4), and AutoCompact the share that triggers.
	ContextWindow = 40_000
	AutoCompact   = 0.8
)

// Forms are the three ways found tools are loaded.
var Forms = []Form{
	{Name: "anthropic native", Model: "claude-sonnet-4-5", fake: anthropicFake},
	{Name: "openai hosted", Model: "gpt-5.4", fake: responsesFake},
	{Name: "client search (chat)", Model: "llama-3.3-70b", fake: chatFake},
}

// Form is one provider's fake and a model.
type Form struct {
	Name, Model string
	fake        func(b *brain, ft *faket.T) (*fake, error)
}

// fake is a form's strict fake server: the adapter pointed at it, the
// requests it logged, the body key of the history, what to close.
type fake struct {
	p        agent.Provider
	requests func() []logged
	msgKey   string
	close    func()
}

func anthropicFake(b *brain, ft *faket.T) (*fake, error) {
	srv := anthropictest.NewServer(ft)
	srv.Handler = b.anthropic
	return &fake{p: anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: srv.URL}), msgKey: "messages",
		requests: func() []logged {
			return logAll(srv.Requests(), func(r *anthropictest.Request) logged { return logged{r.Status, r.Body} })
		},
		close: func() {}}, nil
}

func responsesFake(b *brain, ft *faket.T) (*fake, error) {
	srv := responsestest.NewServer(ft)
	front, err := responsesFront(b, srv)
	if err != nil {
		return nil, err
	}
	return &fake{p: openairesponses.New(openairesponses.Options{APIKey: responsestest.DefaultKey, BaseURL: front.URL + "/v1"}), msgKey: "input",
		requests: func() []logged {
			return logAll(srv.Requests(), func(r responsestest.Request) logged { return logged{r.Status, r.Body} })
		},
		close: front.Close}, nil
}

func chatFake(b *brain, ft *faket.T) (*fake, error) {
	srv := chattest.NewServer(ft)
	srv.Reply = b.chat
	return &fake{p: openaichat.New(openaichat.Options{Name: "fake", BaseURL: srv.BaseURL()}), msgKey: "messages",
		requests: func() []logged {
			return logAll(srv.Requests(), func(r chattest.Request) logged { return logged{r.Status, r.Body} })
		},
		close: func() {}}, nil
}

func logAll[R any](rs []R, f func(R) logged) []logged {
	out := make([]logged, 0, len(rs))
	for _, r := range rs {
		out = append(out, f(r))
	}
	return out
}

// Options shape the session; the zero value is the full benchmark.
type Options struct {
	Turns, Discoveries, Window int
	Share                      float64
}

func (o Options) withDefaults() Options {
	if o.Turns == 0 {
		o.Turns = Turns
	}
	if o.Discoveries == 0 || o.Discoveries > len(keywords) {
		o.Discoveries = Discoveries
	}
	if o.Window == 0 {
		o.Window = ContextWindow
	}
	if o.Share == 0 {
		o.Share = AutoCompact
	}
	return o
}

// Compaction variants of a run.
const (
	Off = "off"
	On  = "on"
	// Naive compacts like On but drops the found tools' search pair: what
	// compaction that forgets discoveries costs.
	Naive = "naive"
)

// Variants are run in this order for each form.
var Variants = []string{Off, On, Naive}

// Result is one run of the session.
type Result struct {
	Form        string `json:"form"`
	AutoCompact string `json:"auto_compact"`
	Requests    int    `json:"requests"`
	Compactions int    `json:"compactions"`
	// Context is the o200k tokens of each request's messages (input),
	// in order; the summary requests are included.
	Context     []int `json:"context_per_request"`
	ContextMean int   `json:"context_mean"`
	ContextMax  int   `json:"context_max"`
	ContextLast int   `json:"context_last"`
	// InputTokens is what the fakes reported over the whole session.
	InputTokens int `json:"input_tokens"`
	Searches    int `json:"searches"`
	// ReSearches are searches for a tool found before; AfterCompaction
	// those after the first compaction.
	ReSearches      int `json:"re_searches"`
	ReSearchesAfter int `json:"re_searches_after_compaction"`
	Rejected        int `json:"rejected"`
	GaveUp          int `json:"gave_up"`
	Calls           int `json:"calls"`
}

// Report is every run.
type Report struct {
	Command string   `json:"command"`
	Turns   int      `json:"turns"`
	Found   int      `json:"discoveries"`
	Window  int      `json:"context_window"`
	Share   float64  `json:"auto_compact"`
	Results []Result `json:"results"`
}

// keywords name the 20 deferred tools; each prompt that needs one says it.
var keywords = []string{"zebra", "quartz", "falcon", "maple", "cobalt", "lagoon", "tundra", "saffron", "granite", "orchid",
	"harbor", "comet", "walnut", "glacier", "ember", "meadow", "nimbus", "obsidian", "prairie", "juniper"}

func toolName(k int) string { return "svc_" + keywords[k] + "_lookup" }

// Run runs every form in every variant.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.withDefaults()
	rep := &Report{Turns: o.Turns, Found: o.Discoveries, Window: o.Window, Share: o.Share}
	for _, f := range Forms {
		for _, v := range Variants {
			r, err := RunOne(ctx, f, v, o)
			if err != nil {
				return nil, err
			}
			rep.Results = append(rep.Results, *r)
		}
	}
	return rep, nil
}

// prompt is turn t's user text (1-based): every tenth turn from the first
// needs a new tool, most others use one found before, the rest chat.
func prompt(t int, o Options) string {
	every := max(o.Turns/o.Discoveries, 1)
	switch {
	case (t-1)%every == 0 && (t-1)/every < o.Discoveries:
		k := (t - 1) / every
		return fmt.Sprintf("Turn %d: look up record %d with the %s service.", t, t, keywords[k])
	case t%3 != 0:
		found := min((t-1)/every+1, o.Discoveries)
		k := (t * 7) % found
		return fmt.Sprintf("Turn %d: again, look up record %d with the %s service.", t, t, keywords[k])
	}
	return fmt.Sprintf("Turn %d: tell me how the records so far fit together.", t)
}

var filler = strings.Repeat("The record lists its owner, its status, three dates and a note on what changed since the last review. ", 12)

func toolResult(name string, args json.RawMessage) string {
	return name + " found " + string(args) + ": " + filler
}

// brain is the model the fakes play; it logs what it does.
type brain struct {
	mu       sync.Mutex
	seq      int
	found    map[string]bool
	searches int
	re       int
	reAfter  int
	gaveUp   int
	calls    int
	// compacted is set once a compaction happened.
	compacted bool
}

func (b *brain) id(prefix string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	return fmt.Sprintf("%s%024d", prefix, b.seq)
}

// intent is the tool a prompt needs, "" for chat.
func intent(p string) string {
	for k, w := range keywords {
		if strings.Contains(p, " "+w+" service") {
			return toolName(k)
		}
	}
	return ""
}

// view is what a request tells the model.
type view struct {
	prompt     string
	target     string
	answered   bool // the target's result ends the request
	loaded     bool // the target is callable without a search
	searched   bool // a search happened in this turn already
	native     bool // provider search offered
	clientTool bool // a client search tool offered
}

type decision int

const (
	decChat decision = iota
	decAnswer
	decCall
	decSearch
	decGiveUp
)

func (b *brain) decide(v view) decision {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case v.target == "":
		return decChat
	case v.answered:
		return decAnswer
	case v.loaded:
		b.calls++
		return decCall
	case v.searched || !v.native && !v.clientTool:
		b.gaveUp++
		return decGiveUp
	}
	b.searches++
	if b.found[v.target] {
		b.re++
		if b.compacted {
			b.reAfter++
		}
	}
	b.found[v.target] = true
	return decSearch
}

func chatText(p string) string {
	return "Here is what I make of it (" + strings.TrimSpace(p) + "): " + strings.Repeat("the records agree on owners and dates, and the notes explain each change. ", 4)
}

// ---- Anthropic ----

type aBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

var refRE = regexp.MustCompile(`"tool_name":"([^"]+)"`)

func (b *brain) anthropic(r *anthropictest.Request) anthropictest.Reply {
	var body struct {
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Role    string   `json:"role"`
			Content []aBlock `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return anthropictest.Message(anthropictest.Text("unreadable request"))
	}
	v, start := view{}, 0
	for i, m := range body.Messages {
		for _, bl := range m.Content {
			if m.Role == "user" && bl.Type == "text" {
				v.prompt, start = bl.Text, i
			}
		}
	}
	v.target = intent(v.prompt)
	n := len(body.Messages)
	if n >= 2 && v.target != "" {
		calls := map[string]string{}
		for _, bl := range body.Messages[n-2].Content {
			if bl.Type == "tool_use" {
				calls[bl.ID] = bl.Name
			}
		}
		for _, bl := range body.Messages[n-1].Content {
			v.answered = v.answered || bl.Type == "tool_result" && calls[bl.ToolUseID] == v.target
		}
	}
	for _, t := range body.Tools {
		v.native = v.native || strings.HasPrefix(t.Type, "tool_search_tool_")
		v.clientTool = v.clientTool || t.Type == "" && t.Name == anthropic.ClientSearchTool
	}
	for i, m := range body.Messages {
		for _, bl := range m.Content {
			for _, ref := range refRE.FindAllStringSubmatch(string(bl.Content), -1) {
				v.loaded = v.loaded || ref[1] == v.target
			}
			if i > start && m.Role == "assistant" && (bl.Type == "server_tool_use" || bl.Type == "tool_use" && bl.Name == anthropic.ClientSearchTool) {
				v.searched = true
			}
		}
	}
	args := map[string]any{"record": v.prompt}
	switch b.decide(v) {
	case decAnswer:
		return anthropictest.Message(anthropictest.Text("Done: the record is in."))
	case decCall:
		return anthropictest.Message(anthropictest.ToolUse(b.id("toolu_"), v.target, args))
	case decSearch:
		q := strings.TrimSuffix(strings.TrimPrefix(v.target, "svc_"), "_lookup")
		if v.native {
			id := b.id("srvtoolu_")
			return anthropictest.Message(anthropictest.ServerSearch(id, q), anthropictest.SearchResult(id, v.target),
				anthropictest.ToolUse(b.id("toolu_"), v.target, args))
		}
		return anthropictest.Message(anthropictest.ToolUse(b.id("toolu_"), anthropic.ClientSearchTool, map[string]any{"query": q}))
	case decGiveUp:
		return anthropictest.Message(anthropictest.Text("I cannot reach " + v.target + "."))
	}
	return anthropictest.Message(anthropictest.Text(chatText(v.prompt)))
}

// ---- OpenAI Responses ----

type rTool struct {
	Type      string            `json:"type"`
	Name      string            `json:"name"`
	Execution string            `json:"execution"`
	Tools     []json.RawMessage `json:"tools"`
}

func flatten(ts []rTool) []rTool {
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

func (b *brain) responses(body []byte) responsestest.Turn {
	var req struct {
		Tools []rTool `json:"tools"`
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			CallID  string          `json:"call_id"`
			Name    string          `json:"name"`
			Output  json.RawMessage `json:"output"`
			Tools   []rTool         `json:"tools"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return responsestest.Turn{responsestest.Text("unreadable request")}
	}
	v, start := view{}, 0
	for i, it := range req.Input {
		var s string
		if it.Role == "user" && json.Unmarshal(it.Content, &s) == nil {
			v.prompt, start = s, i
		}
	}
	v.target = intent(v.prompt)
	calls := map[string]string{}
	for i, it := range req.Input {
		switch it.Type {
		case "function_call":
			calls[it.CallID] = it.Name
		case "tool_search_output":
			for _, t := range flatten(it.Tools) {
				v.loaded = v.loaded || t.Name == v.target
			}
		case "tool_search_call":
			v.searched = v.searched || i > start
		}
	}
	if n := len(req.Input); n > 0 && v.target != "" {
		last := req.Input[n-1]
		v.answered = last.Type == "function_call_output" && calls[last.CallID] == v.target
	}
	for _, t := range flatten(req.Tools) {
		switch {
		case t.Type == "tool_search" && t.Execution == "client":
			v.clientTool = true
		case t.Type == "tool_search":
			v.native = true
		}
	}
	args, _ := json.Marshal(map[string]any{"record": v.prompt})
	turn := responsestest.Turn{responsestest.Reasoning()}
	switch b.decide(v) {
	case decAnswer:
		return append(turn, responsestest.Text("Done: the record is in."))
	case decCall:
		return append(turn, responsestest.Call(v.target, string(args)))
	case decSearch:
		q := strings.TrimSuffix(strings.TrimPrefix(v.target, "svc_"), "_lookup")
		if v.native {
			return append(turn, responsestest.HostedSearch(q), responsestest.Call(v.target, string(args)))
		}
		return append(turn, responsestest.ClientSearch(q))
	case decGiveUp:
		return append(turn, responsestest.Text("I cannot reach "+v.target+"."))
	}
	return append(turn, responsestest.Text(chatText(v.prompt)))
}

// responsesFront puts the brain in front of the Responses fake, which
// plays scripted turns: each request is read, its turn scripted, and the
// request passed on. Requests are sequential.
func responsesFront(b *brain, fake *responsestest.Server) (*httptest.Server, error) {
	target, err := url.Parse(strings.TrimSuffix(fake.URL, "/v1"))
	if err != nil {
		return nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fake.Script(b.responses(buf.Bytes()))
		r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
		r.ContentLength = int64(buf.Len())
		proxy.ServeHTTP(w, r)
	})), nil
}

// ---- Chat Completions ----

func (b *brain) chat(req chattest.ChatRequest) chattest.Turn {
	v, start := view{}, 0
	for i, m := range req.Messages {
		if m.Role == "user" {
			v.prompt, start = m.Text(), i
		}
	}
	v.target = intent(v.prompt)
	calls := map[string]string{}
	for i, m := range req.Messages {
		if m.Role == "tool" && strings.Contains(m.Text(), `"name":"`+v.target+`"`) {
			v.loaded = true
		}
		for _, c := range m.ToolCalls {
			name := c.Function.Name
			if name == "tool_call" {
				var s string
				_ = json.Unmarshal(c.Function.Arguments, &s)
				var w struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal([]byte(s), &w)
				name = w.Name
			}
			calls[c.ID] = name
			v.searched = v.searched || i > start && c.Function.Name == "tool_search"
		}
	}
	if n := len(req.Messages); n > 0 && v.target != "" {
		last := req.Messages[n-1]
		v.answered = last.Role == "tool" && calls[last.ToolCallID] == v.target
	}
	v.clientTool = bytes.Contains(req.Tools, []byte(`"tool_search"`))
	args := map[string]any{"record": v.prompt}
	switch b.decide(v) {
	case decAnswer:
		return chattest.Text("Done: the record is in.")
	case decCall:
		return chattest.Calls(chattest.WrappedCall(b.id("call_"), v.target, args))
	case decSearch:
		q := strings.TrimSuffix(strings.TrimPrefix(v.target, "svc_"), "_lookup")
		return chattest.Calls(chattest.SearchCall(b.id("call_"), q, 0))
	case decGiveUp:
		return chattest.Text("I cannot reach " + v.target + ".")
	}
	return chattest.Text(chatText(v.prompt))
}

// ---- the run ----

// searcher is the client-side search: the keyword names the tool.
type searcher struct{}

func (searcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	for k, w := range keywords {
		if strings.Contains(c.Query, w) {
			return []string{toolName(k)}, nil
		}
	}
	return []string{}, nil
}

// logged is one request as the fake logged it.
type logged struct {
	status int
	body   []byte
}

// RunOne runs the session on one form in one variant.
func RunOne(ctx context.Context, f Form, variant string, o Options) (*Result, error) {
	o = o.withDefaults()
	ft := &faket.T{}
	defer ft.Close()
	b := &brain{found: map[string]bool{}}
	fk, err := f.fake(b, ft)
	if err != nil {
		return nil, err
	}
	defer fk.close()
	p, requests, msgKey := fk.p, fk.requests, fk.msgKey
	set := tools.NewSet()
	schema := json.RawMessage(`{"type":"object","properties":{"record":{"type":"string","description":"What to look up"}},"required":["record"]}`)
	exec := func(name string) tools.Executor {
		return func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: toolResult(name, args)}, nil
		}
	}
	if err := set.Add(nil, tools.Tool{Name: "read_notes", Description: "Read the user's notes", Schema: schema, Exec: exec("read_notes")}); err != nil {
		return nil, err
	}
	for k, w := range keywords {
		name := toolName(k)
		if err := set.Add([]tools.Option{tools.Defer(true)}, tools.Tool{Name: name, Server: "records",
			Description: "Looks up a record in the " + w + " service", Schema: schema, Exec: exec(name)}); err != nil {
			return nil, err
		}
	}
	cfg := agent.Config{ID: "bench", Provider: p, Model: f.Model, System: "You look up records.", Tools: set,
		Search: agent.SearchNative, Searcher: searcher{}, MaxTokens: 1024, MaxSteps: 8, Backoff: time.Millisecond, Retries: 1}
	if variant != Off {
		cfg.AutoCompact, cfg.ContextWindow = o.Share, o.Window
	}
	s := agent.New(cfg)
	res := &Result{Form: f.Name, AutoCompact: variant}
	for t := 1; t <= o.Turns; t++ {
		var turnErr error
		err := s.Run(ctx, prompt(t, o), func(e agent.Event) {
			switch e.Type {
			case agent.EventUsage:
				res.InputTokens += e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens
			case agent.EventCompacted:
				res.Compactions++
				b.mu.Lock()
				b.compacted = true
				b.mu.Unlock()
				if variant == Naive {
					c := *e.Compaction
					c.Found = nil
					s.SetCompaction(&c)
				}
			case agent.EventError:
				turnErr = e.Err
			}
		})
		if err == nil && turnErr != nil {
			err = turnErr
		}
		if err != nil {
			return nil, fmt.Errorf("%s (compaction %s) turn %d: %w", f.Name, variant, t, err)
		}
	}
	if err := ft.Err(); err != nil {
		return nil, err
	}
	for _, r := range requests() {
		res.Requests++
		if r.status >= 400 && r.status < 500 && r.status != http.StatusTooManyRequests {
			res.Rejected++
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(r.body, &m) == nil {
			res.Context = append(res.Context, tokens.CountCached(string(m[msgKey])))
		}
	}
	total := 0
	for _, c := range res.Context {
		total += c
		res.ContextMax = max(res.ContextMax, c)
	}
	if n := len(res.Context); n > 0 {
		res.ContextMean, res.ContextLast = total/n, res.Context[n-1]
	}
	res.Searches, res.ReSearches, res.ReSearchesAfter, res.GaveUp, res.Calls = b.searches, b.re, b.reAfter, b.gaveUp, b.calls
	return res, nil
}

// Markdown prints the report's table.
func Markdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Compaction: %d turns, %d discoveries, window %d tokens, auto_compact %.1f (`%s`)\n\n", rep.Turns, rep.Found, rep.Window, rep.Share, rep.Command)
	b.WriteString("| form | auto-compact | requests | compactions | context/request mean | max | last | input tokens (session) | searches | re-searches after compaction | rejected | calls without a search | gave up |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Results {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", r.Form, r.AutoCompact, r.Requests, r.Compactions,
			r.ContextMean, r.ContextMax, r.ContextLast, r.InputTokens, r.Searches, r.ReSearchesAfter, r.Rejected, r.Calls, r.GaveUp)
	}
	b.WriteString("\nContext is the o200k tokens of each request's messages (the tools array and system prompt are the same on every request). " +
		"A re-search is the model searching for a tool it had found before; goal 0, as for rejected requests. " +
		"\"naive\" is the same compaction without the found tools' search pair, for comparison: what forgetting discoveries costs.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
