package crossprovider

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// nativeBlocks is what only a request with Anthropic native search may hold.
var nativeBlocks = regexp.MustCompile(`"type":"server_tool_use"|"type":"tool_search_tool_result"|tool_search_tool_(bm25|regex)`)

// wantNone fails for every successful request of st whose body matches re.
func (w *world) wantNone(st step, re *regexp.Regexp, what string) {
	w.t.Helper()
	for i, r := range st.reqs {
		if r.status != 200 {
			continue
		}
		if m := re.FindString(string(r.body)); m != "" {
			w.t.Errorf("%s/%s request %d: %s (%s):\n%s", r.provider, r.model, i+1, what, m, clip(string(r.body)))
		}
	}
}

// wantAll fails for every successful request of st whose body lacks re.
func (w *world) wantAll(st step, re *regexp.Regexp, what string) {
	w.t.Helper()
	for i, r := range st.reqs {
		if r.status == 200 && !re.MatchString(string(r.body)) {
			w.t.Errorf("%s/%s request %d: %s:\n%s", r.provider, r.model, i+1, what, clip(string(r.body)))
		}
	}
}

// Within Anthropic: a model with native search, an old one without it, and
// back. The tools found stay found; the old model's requests carry neither
// search blocks nor the server search tool (the fake rejects the tool for
// that model, as the API does); coming back replays the raw blocks.
func TestAnthropicModelSwitch(t *testing.T) {
	w := newWorld(t)
	w.ant.NoNativeSearch = map[string]bool{opus41: true}

	first := w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
	w.wantKinds(first, actSearchNative, actAnswer)
	var searchID string
	for _, m := range w.s.Messages() {
		for _, p := range m.Parts {
			if p.SearchCall != nil && p.SearchCall.Where == agent.WhereProvider {
				searchID = p.SearchCall.ID
			}
		}
	}
	if !strings.HasPrefix(searchID, "srvtoolu_") {
		t.Fatalf("no native search in the history (id %q)", searchID)
	}

	// Claude 3.5 has no deferral either: the found tool's definition is
	// carried as text and called through tool_call.
	st := w.turn(w.anthropic, opus41, "And the weather in Rome?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	w.wantNone(st, nativeBlocks, "native search block on a model without native search")
	w.wantNone(st, regexp.MustCompile(regexp.QuoteMeta(searchID)), "the native search id, not renamed")
	w.wantNone(st, regexp.MustCompile(`defer_loading|tool_reference`), "deferral on a model without it")
	w.wantAll(st, regexp.MustCompile(regexp.QuoteMeta(`\"name\":\"weather_lookup\"`)), "the found tool's definition is not carried as text")
	st = w.turn(w.anthropic, opus41, "What is the stock price of ACME?")
	w.wantKinds(st, actSearchClient, actCallWrapped, actAnswer)
	w.wantNone(st, nativeBlocks, "native search block on a model without native search")

	// Back: the raw native blocks replay as they came, and the client
	// search made on the old model stays in its tool_result form.
	st = w.turn(w.anthropic, sonnet, "Weather in Berlin?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAll(st, regexp.MustCompile(`"type":"server_tool_use","id":"`+regexp.QuoteMeta(searchID)+`"`), "the raw server_tool_use is not replayed")
	w.wantAll(st, regexp.MustCompile(`"type":"tool_search_tool_result","tool_use_id":"`+regexp.QuoteMeta(searchID)+`"`), "the raw search result is not replayed")
	st = w.turn(w.anthropic, sonnet, "Stock price of IBM?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAnswer(`"ticker":"IBM"`)

	// The history sent on return starts with the very bytes first sent.
	back := st.reqs[0].body
	firstAsst := assistantBlocks(t, first.reqs[1].body)[0]
	if got := assistantBlocks(t, back)[0]; got != firstAsst {
		t.Errorf("first assistant message changed on return:\n%s\n%s", firstAsst, got)
	}
	w.checkAll()
}

// assistantBlocks returns each assistant message's content as sent.
func assistantBlocks(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range b.Messages {
		if m.Role == "assistant" {
			out = append(out, string(m.Content))
		}
	}
	return out
}

// The fallback model takes over when the provider stays overloaded, and
// follows the same rules: on another Anthropic model without native
// search the found tool is carried in the function form; on another provider
// it is carried over in that provider's form.
func TestFallbackOnOverload(t *testing.T) {
	overloaded := func(w *world, n int) {
		for range n {
			w.ant.Enqueue(anthropictest.Overloaded("0"))
		}
	}
	t.Run("same provider, model without native search", func(t *testing.T) {
		w := newWorld(t)
		w.ant.NoNativeSearch = map[string]bool{opus41: true}
		w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
		// A second adapter on the same server: the core only falls back to
		// a provider value other than the current one (see
		// TestFallbackSameProviderValue).
		_ = w.s.Override(func(turn *agent.TurnContext) {
			turn.Fallback, turn.FallbackModel = anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: w.ant.URL}), opus41
		})
		// Retries+1 answers of 529, then the fallback answers; the next
		// request of the turn goes to the primary again, which recovered.
		overloaded(w, w.s.TurnContext().Retries+1)
		r := w.run("And the weather in Rome?")
		if r.err != nil {
			t.Fatal(r.err)
		}
		w.wantKinds(r.step, actCallWrapped, actAnswer)
		if a := r.actions[0]; a.Model != opus41 {
			t.Errorf("first action on %s, want the fallback %s", a.Model, opus41)
		}
		if a := r.actions[1]; a.Model != sonnet {
			t.Errorf("second action on %s, want the recovered %s", a.Model, sonnet)
		}
		wantWarning(t, r.events, "switching to fallback model "+opus41)
		for _, q := range r.reqs {
			if q.model == opus41 && nativeBlocks.Match(q.body) {
				t.Errorf("native search block sent to the fallback:\n%s", clip(string(q.body)))
			}
		}
		w.wantAnswer(`"city":"Rome"`)
		w.checkAll()
	})
	t.Run("other provider", func(t *testing.T) {
		w := newWorld(t)
		w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
		_ = w.s.Override(func(turn *agent.TurnContext) { turn.Fallback, turn.FallbackModel = w.responses, gpt54 })
		// Overloaded for the whole turn: both requests fall back.
		overloaded(w, 2*(w.s.TurnContext().Retries+1))
		r := w.run("And the weather in Rome?")
		if r.err != nil {
			t.Fatal(r.err)
		}
		w.wantKinds(r.step, actCallDirect, actAnswer)
		for _, a := range r.actions {
			if a.Provider != "openai" || a.Model != gpt54 {
				t.Errorf("action %v, want it on the fallback openai/%s", a, gpt54)
			}
		}
		wantWarning(t, r.events, "switching to fallback model "+gpt54)
		w.wantAnswer(`"city":"Rome"`)
		// The primary recovers: the conversation, now with Responses
		// items in it, continues on Anthropic.
		st := w.turn(w.anthropic, sonnet, "Weather in Berlin?")
		w.wantKinds(st, actCallDirect, actAnswer)
		w.checkAll()
	})
}

// cmd/runtime.go wires --fallback-model as the session's own provider value
// with another model. The turn must then reach the fallback model too.
func TestFallbackSameProviderValue(t *testing.T) {
	w := newWorld(t)
	w.ant.NoNativeSearch = map[string]bool{opus41: true}
	w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Fallback, turn.FallbackModel = w.anthropic, opus41 })
	for range w.s.TurnContext().Retries + 1 {
		w.ant.Enqueue(anthropictest.Overloaded("0"))
	}
	r := w.run("And the weather in Rome?")
	if r.err != nil {
		t.Fatalf("fallback to %s on the same provider never happened: %v "+
			"(agent.Session.request only falls back when the provider value differs, `p != s.cfg.Fallback`; "+
			"it should compare the model too)", opus41, r.err)
	}
	w.wantKinds(r.step, actCallWrapped, actAnswer)
	w.checkAll()
}

func wantWarning(t *testing.T, evs []agent.Event, sub string) {
	t.Helper()
	for _, e := range evs {
		if e.Type == agent.EventWarning && strings.Contains(e.Text, sub) {
			return
		}
	}
	t.Errorf("no warning containing %q", sub)
}

// searchParts is any trace of search in a request body, in any provider's
// form: with search off none may be sent.
var searchParts = regexp.MustCompile(`defer_loading|tool_search|tool_reference|"server_tool_use"|"namespace"`)

// --search off after discoveries on every provider: nothing is deferred,
// the search parts are dropped, the found tools are plain tools called
// directly, and every request is accepted. Turning search back on brings
// the raw blocks back.
func TestSearchOffMidConversation(t *testing.T) {
	w := newWorld(t)
	w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
	w.turn(w.responses, gpt54, "What is the stock price of ACME?")
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchClient })
	w.turn(w.chatP, chatTest, "Weather in Oslo?")
	w.turn(w.responses, gpt41, "Stock price of IBM?")

	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchOff })
	for _, c := range []struct {
		p     agent.Provider
		model string
	}{{w.anthropic, sonnet}, {w.responses, gpt54}, {w.responses, gpt41}, {w.chatP, chatTest}, {w.anthropic, opus41}} {
		st := w.turn(c.p, c.model, "Weather in Madrid?")
		w.wantKinds(st, actCallDirect, actAnswer)
		w.wantNone(st, searchParts, "search part with search off")
		w.wantAll(st, regexp.MustCompile(`"name":"weather_lookup"`), "the found tool is not a plain tool")
	}

	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchNative })
	st := w.turn(w.anthropic, sonnet, "Weather in Lisbon?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAll(st, regexp.MustCompile(`"type":"tool_search_tool_result"`), "raw native blocks not replayed after search off")
	w.checkAll()
}
