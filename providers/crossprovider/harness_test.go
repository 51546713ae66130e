package crossprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

// Models used across the tests.
const (
	sonnet   = "claude-sonnet-4-5-20250929" // native tool search
	opus41   = "claude-opus-4-1-20250805"   // no native tool search (claude-3-5-haiku, retired 2026-02-19, was this model)
	gpt54    = "gpt-5.4"                    // hosted tool_search
	gpt41    = "gpt-4.1"                    // no tool_search: function-based client search
	chatTest = "llama-3.3-70b"
)

func httpBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// catalog is the tool set of every test: one eager tool and a few deferred
// ones, each executor echoing what it was called with.
func catalog(t *testing.T) *tools.Set {
	t.Helper()
	set := tools.NewSet()
	echo := func(name string) tools.Executor {
		return func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Text: name + " ran with " + string(args)}, nil
		}
	}
	schema := func(prop, desc string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"string","description":"` + desc + `"}},"required":["` + prop + `"]}`)
	}
	if err := set.Add(nil, tools.Tool{Name: "read_file", Description: "Read a file from disk", Schema: schema("path", "File path"), Exec: echo("read_file")}); err != nil {
		t.Fatal(err)
	}
	if err := set.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "weather_lookup", Description: "Looks up the current weather for a city", Schema: schema("city", "City name"), Server: "weather", Exec: echo("weather_lookup")},
		tools.Tool{Name: "stock_price", Description: "Looks up the current price of a stock ticker", Schema: schema("ticker", "Ticker symbol"), Server: "finance", Exec: echo("stock_price")},
		tools.Tool{Name: "calendar_create", Description: "Creates a calendar event", Schema: schema("title", "Event title"), Server: "calendar", Exec: echo("calendar_create")},
		tools.Tool{Name: "email_send", Description: "Sends an email", Schema: schema("to", "Recipient"), Server: "mail", Exec: echo("email_send")},
	); err != nil {
		t.Fatal(err)
	}
	return set
}

// wordSearcher is the client-side search: a deferred tool matches when its
// name or description holds every word of the query; select: picks by name.
type wordSearcher struct{ set *tools.Set }

func (s wordSearcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	return s.find(c.Query, c.Names), nil
}

func (s wordSearcher) find(query string, names []string) []string {
	if n, ok := strings.CutPrefix(query, "select:"); ok {
		names = strings.Split(n, ",")
	}
	found := []string{}
	for _, t := range s.set.Deferred() {
		text := strings.ToLower(strings.ReplaceAll(t.Name, "_", " ") + " " + t.Description)
		match := len(names) == 0 && query != ""
		for _, w := range strings.Fields(strings.ToLower(query)) {
			match = match && strings.Contains(text, w)
		}
		for _, n := range names {
			match = match || n == t.Name
		}
		if match {
			found = append(found, t.Name)
		}
	}
	return found
}

// world is the three fakes, the model they play, and one session moved
// between them.
type world struct {
	t         *testing.T
	brain     *brain
	ant       *anthropictest.Server
	resp      *responsestest.Server
	chat      *chattest.Server
	anthropic agent.Provider
	responses agent.Provider
	chatP     agent.Provider
	s         *agent.Session
	// steps records, for every turn, which provider and model ran it and
	// which of the fakes' requests it made.
	steps []step
}

type step struct {
	provider, model string
	search          agent.SearchMode
	actions         []action
	reqs            []sent
}

// sent is one request as a fake received it.
type sent struct {
	provider, model string
	search          agent.SearchMode
	body, tools     []byte
	status          int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	set := catalog(t)
	ws := wordSearcher{set}
	w := &world{t: t, brain: &brain{search: func(q string) []string { return ws.find(q, nil) }}}
	w.ant = anthropictest.NewServer(t)
	w.ant.Handler = w.brain.anthropic
	w.resp = responsestest.NewServer(t)
	w.chat = chattest.NewServer(t)
	w.chat.Reply = w.brain.chat
	w.anthropic = anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: w.ant.URL})
	w.responses = openairesponses.New(openairesponses.Options{APIKey: responsestest.DefaultKey, BaseURL: responsesFront(t, w.brain, w.resp)})
	w.chatP = openaichat.New(openaichat.Options{Name: "fake", BaseURL: w.chat.BaseURL()})
	w.s = agent.New(agent.Config{
		Provider: w.anthropic, Model: sonnet, System: "You are a test.", Tools: set,
		Search: agent.SearchNative, Searcher: ws, Backoff: time.Millisecond, Retries: 2,
	})
	return w
}

// counts is how many requests each fake has logged.
func (w *world) counts() [3]int {
	return [3]int{len(w.ant.Requests()), len(w.resp.Requests()), len(w.chat.Requests())}
}

// turn switches the session to p/model and runs one user turn. The turn
// must end without error.
func (w *world) turn(p agent.Provider, model, prompt string) step {
	w.t.Helper()
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Provider, turn.Model = p, model })
	st := w.run(prompt)
	if st.err != nil {
		w.t.Fatalf("turn %q on %s/%s: %v\nmodel actions: %v", prompt, p.Name(), model, st.err, st.actions)
	}
	return st.step
}

type ran struct {
	step
	events []agent.Event
	err    error
}

// run runs one turn on the session as it is configured.
func (w *world) run(prompt string) ran {
	w.t.Helper()
	before, mark := w.counts(), w.brain.mark()
	var evs []agent.Event
	err := w.s.Run(w.t.Context(), prompt, func(e agent.Event) { evs = append(evs, e) })
	st := step{provider: w.s.TurnContext().Provider.Name(), model: w.s.TurnContext().Model, search: w.s.TurnContext().Search, actions: w.brain.since(mark)}
	for _, r := range w.ant.Requests()[before[0]:] {
		st.reqs = append(st.reqs, sent{"anthropic", r.Model(), w.s.TurnContext().Search, r.Body, r.Tools(), r.Status})
	}
	for _, r := range w.resp.Requests()[before[1]:] {
		var b struct {
			Model string          `json:"model"`
			Tools json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(r.Body, &b)
		st.reqs = append(st.reqs, sent{"openai", b.Model, w.s.TurnContext().Search, r.Body, b.Tools, r.Status})
	}
	for _, r := range w.chat.Requests()[before[2]:] {
		var tl []byte
		model := ""
		if r.Parsed != nil {
			tl, model = r.Parsed.Tools, r.Parsed.Model
		}
		st.reqs = append(st.reqs, sent{"openai-chat", model, w.s.TurnContext().Search, r.Body, tl, r.Status})
	}
	w.steps = append(w.steps, st)
	return ran{step: st, events: evs, err: err}
}

// kinds is the list of action kinds of a step, for compact assertions.
func (st step) kinds() []string {
	var out []string
	for _, a := range st.actions {
		out = append(out, a.Kind)
	}
	return out
}

func (w *world) wantKinds(st step, want ...string) {
	w.t.Helper()
	if got := st.kinds(); strings.Join(got, ",") != strings.Join(want, ",") {
		w.t.Errorf("%s/%s: model actions %v, want %v\n%v", st.provider, st.model, got, want, st.actions)
	}
}

// lastAnswer is the text of the last assistant message.
func (w *world) lastAnswer() string {
	h := w.s.Messages()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == agent.RoleAssistant {
			return h[i].Text()
		}
	}
	return ""
}

func (w *world) wantAnswer(sub string) {
	w.t.Helper()
	if got := w.lastAnswer(); !strings.Contains(got, sub) {
		w.t.Errorf("last answer %q, want it to contain %q", got, sub)
	}
}

// Foreign block patterns: what another provider's raw content looks like.
var (
	anthropicBlocks = regexp.MustCompile(`"type":"(server_tool_use|tool_search_tool_result|tool_reference|tool_search_tool_search_result|mcp_tool_use|mcp_tool_result)"|tool_search_tool_(bm25|regex)|"tool_use_id"`)
	responsesBlocks = regexp.MustCompile(`"type":"(tool_search_call|tool_search_output|function_call|function_call_output|reasoning|message|output_text)"|"namespace"|"execution"|"encrypted_content"|"(id|call_id|tool_use_id)":"(tso|fc|rs|msg|resp)_`)
	chatBlocks      = regexp.MustCompile(`"tool_calls"|"tool_call_id"|"role":"tool"|"reasoning_content"`)
	// A provider search carried over keeps its id as the call id of the
	// client-form pair on OpenAI (accepted there, PROTOCOLS.md §2.3) and
	// Chat Completions: that is an id, not a block, and is allowed only in
	// those positions. Anthropic renames them (toolu_search_...).
	srvID        = regexp.MustCompile(`srvtoolu_`)
	srvIDAllowed = regexp.MustCompile(`"(call_id|tool_call_id)":"srvtoolu_|"id":"srvtoolu_[A-Za-z0-9_]*","type":"function"`)
	tscID        = regexp.MustCompile(`"tsc_`)
	// toolSearchParts is what only a Responses model with tool_search takes.
	toolSearchParts = regexp.MustCompile(`"type":"tool_search(_call|_output)?"|"namespace"|"defer_loading"`)
	chatIDs         = regexp.MustCompile(`"(id|tool_call_id)":"([^"]*)"`)
)

// checkAll is the invariant of every test: no fake rejected a request; per
// provider, model and search mode the tools array is the same bytes on
// every request of the conversation; no request carries another
// provider's raw blocks.
func (w *world) checkAll() {
	w.t.Helper()
	tools := map[string][]byte{}
	for i, st := range w.steps {
		w.t.Logf("turn %d on %s/%s (search %s): %d requests, model: %v", i+1, st.provider, st.model, st.search, len(st.reqs), st.kinds())
		for j, r := range st.reqs {
			where := func() string { return st.provider + "/" + st.model + " turn " + itoa(i+1) + " request " + itoa(j+1) }
			if r.status >= 400 && r.status < 500 && r.status != 429 {
				w.t.Errorf("%s: rejected with %d:\n%s", where(), r.status, rejection(w, r))
			}
			if r.status != 200 {
				continue
			}
			key := r.provider + "|" + r.model + "|" + string(r.search)
			if prev, ok := tools[key]; !ok {
				tools[key] = r.tools
			} else if !bytes.Equal(prev, r.tools) {
				w.t.Errorf("%s: tools array differs from the first %s request:\n%s\n%s", where(), key, prev, r.tools)
			}
			body := string(r.body)
			bad := func(what string) { w.t.Errorf("%s: %s:\n%s", where(), what, clip(body)) }
			if r.provider != "anthropic" {
				if m := anthropicBlocks.FindString(body); m != "" {
					bad("Anthropic block " + m + " sent to " + r.provider)
				}
				if len(srvID.FindAllString(body, -1)) != len(srvIDAllowed.FindAllString(body, -1)) {
					bad("srvtoolu_ id outside a call id position")
				}
			}
			if r.provider != "openai" {
				if m := responsesBlocks.FindString(body); m != "" {
					bad("Responses item " + m + " sent to " + r.provider)
				}
			}
			if r.provider == "anthropic" && tscID.MatchString(body) {
				bad("a tool_search_call id sent to Anthropic")
			}
			if r.provider == "openai-chat" {
				for _, id := range chatIDs.FindAllStringSubmatch(body, -1) {
					if len(id[2]) > 40 {
						bad("call id " + id[2] + " is longer than the 40 characters OpenAI accepts")
					}
				}
			}
			// A model without native search gets none of its parts.
			if r.provider == "anthropic" && !w.anthropic.NativeSearch(r.model) {
				if m := nativeBlocks.FindString(body); m != "" {
					bad("native search part " + m + " sent to a model without native search")
				}
			}
			if r.provider == "openai" && !strings.HasPrefix(r.model, "gpt-5") && strings.Contains(body, `"type":"reasoning"`) {
				bad("a reasoning model's reasoning item sent to " + r.model + ", which does not reason")
			}
			if r.provider == "openai" && !w.responses.NativeSearch(r.model) {
				if m := toolSearchParts.FindString(body); m != "" {
					bad("tool_search part " + m + " sent to a model without tool_search")
				}
			}
			if r.provider != "openai-chat" {
				if m := chatBlocks.FindString(body); m != "" {
					bad("Chat Completions key " + m + " sent to " + r.provider)
				}
			}
		}
	}
}

func rejection(w *world, r sent) string {
	switch r.provider {
	case "anthropic":
		for _, q := range w.ant.Requests() {
			if bytes.Equal(q.Body, r.body) && q.Rejection != "" {
				return q.Rejection
			}
		}
	case "openai":
		for _, q := range w.resp.Requests() {
			if bytes.Equal(q.Body, r.body) && q.Error != "" {
				return q.Error
			}
		}
	case "openai-chat":
		for _, q := range w.chat.Requests() {
			if bytes.Equal(q.Body, r.body) && q.Error != "" {
				return q.Error
			}
		}
	}
	return "(no message)"
}

// clip shortens a body for a failure message.
func clip(s string) string {
	if len(s) > 1500 {
		return s[:700] + " ... " + s[len(s)-700:]
	}
	return s
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
