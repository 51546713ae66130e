package crossprovider

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat"
)

// A conversation begun on Anthropic with native search moves to OpenAI
// Responses (hosted search on gpt-5.4, client search on gpt-5.4, the
// function-based search of a model without tool_search), then to Chat
// Completions, and back to Anthropic. What one provider found stays
// callable on the next without a new search.
func TestAnthropicToResponsesToChatAndBack(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		name := "stream"
		if noStream {
			name = "no stream"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			_ = w.s.Override(func(turn *agent.TurnContext) { turn.NoStream = noStream })
			anthropicToResponsesToChatAndBack(t, w)
		})
	}
}

func anthropicToResponsesToChatAndBack(t *testing.T, w *world) {

	st := w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
	w.wantKinds(st, actSearchNative, actAnswer)
	w.wantAnswer("weather_lookup ran with")

	// Hosted search: the Anthropic search is carried over as a client-form
	// tool_search_call/tool_search_output pair that loads the definition.
	st = w.turn(w.responses, gpt54, "And the weather in Rome?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAnswer(`"city":"Rome"`)
	st = w.turn(w.responses, gpt54, "What is the stock price of ACME?")
	w.wantKinds(st, actSearchNative, actAnswer)

	// Client-executed tool_search on the same model.
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchClient })
	st = w.turn(w.responses, gpt54, "Then the weather in Lyon?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.responses, gpt54, "Put a calendar event: Standup")
	w.wantKinds(st, actSearchClient, actCallDirect, actAnswer)
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchNative })

	// A model without tool_search: tool_search/tool_call functions; the
	// schemas found earlier travel in the search outputs.
	st = w.turn(w.responses, gpt41, "Now the weather in Oslo?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	w.wantAnswer(`"city":"Oslo"`)

	st = w.turn(w.chatP, chatTest, "And the stock price of MSFT?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	w.wantAnswer(`"ticker":"MSFT"`)
	st = w.turn(w.chatP, chatTest, "The weather in Madrid?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	st = w.turn(w.chatP, chatTest, "Another calendar event: Retro")
	w.wantKinds(st, actCallWrapped, actAnswer)
	st = w.turn(w.chatP, chatTest, "Send an email to bob")
	w.wantKinds(st, actSearchClient, actCallWrapped, actAnswer)

	// Back home: the first search replays raw, the others come back as
	// client-form tool_reference results.
	st = w.turn(w.anthropic, sonnet, "Weather in Berlin?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.anthropic, sonnet, "And the stock price of ORCL?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAnswer(`"ticker":"ORCL"`)
	st = w.turn(w.anthropic, sonnet, "A calendar event: Review")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.anthropic, sonnet, "Another email to alice")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAnswer(`"to":"alice"`)

	w.checkAll()
}

// The reverse: OpenAI Responses with hosted search, then Anthropic, then
// Chat Completions, then Responses again.
func TestResponsesToAnthropicToChatAndBack(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		name := "stream"
		if noStream {
			name = "no stream"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			_ = w.s.Override(func(turn *agent.TurnContext) { turn.NoStream = noStream })
			responsesToAnthropicToChatAndBack(t, w)
		})
	}
}

func responsesToAnthropicToChatAndBack(t *testing.T, w *world) {

	st := w.turn(w.responses, gpt54, "What is the weather in Paris?")
	w.wantKinds(st, actSearchNative, actAnswer)
	w.wantAnswer("weather_lookup ran with")

	st = w.turn(w.anthropic, sonnet, "And the weather in Rome?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.anthropic, sonnet, "What is the stock price of ACME?")
	w.wantKinds(st, actSearchNative, actAnswer)

	// Anthropic client mode: the custom tool_search tool.
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchClient })
	st = w.turn(w.anthropic, sonnet, "And the stock price of IBM?")
	w.wantKinds(st, actCallDirect, actAnswer)
	_ = w.s.Override(func(turn *agent.TurnContext) { turn.Search = agent.SearchNative })

	st = w.turn(w.chatP, chatTest, "The weather in Oslo?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	st = w.turn(w.chatP, chatTest, "The stock price of MSFT?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	st = w.turn(w.chatP, chatTest, "Send an email to bob")
	w.wantKinds(st, actSearchClient, actCallWrapped, actAnswer)

	st = w.turn(w.responses, gpt54, "Weather in Berlin?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.responses, gpt54, "Stock price of ORCL?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.wantAnswer(`"ticker":"ORCL"`)
	st = w.turn(w.responses, gpt54, "One more email to carol")
	w.wantKinds(st, actCallDirect, actAnswer)
	// And on a model without tool_search, the wrapped form.
	st = w.turn(w.responses, gpt41, "Last email to dave")
	w.wantKinds(st, actCallWrapped, actAnswer)
	w.wantAnswer(`"to":"dave"`)
	st = w.turn(w.responses, gpt41, "A calendar event: Sync")
	w.wantKinds(st, actSearchClient, actCallWrapped, actAnswer)
	// The function-based search items of gpt-4.1 become a client-form
	// pair that loads the definition on gpt-5.4.
	st = w.turn(w.responses, gpt54, "Another calendar event: Demo")
	w.wantKinds(st, actCallDirect, actAnswer)

	w.checkAll()
}

// Anthropic can split a native search across two responses: the call ends
// one response (next to a client tool call), its result opens the next.
// Every target pairs the two halves again in its own form.
func TestSplitNativeSearchCarriedOver(t *testing.T) {
	for _, c := range []struct {
		name   string
		target func(w *world) (agent.Provider, string)
		want   string
	}{
		{"responses hosted", func(w *world) (agent.Provider, string) { return w.responses, gpt54 }, actCallDirect},
		{"responses functions", func(w *world) (agent.Provider, string) { return w.responses, gpt41 }, actCallWrapped},
		{"chat", func(w *world) (agent.Provider, string) { return w.chatP, chatTest }, actCallWrapped},
		{"anthropic client", func(w *world) (agent.Provider, string) { return w.anthropic, opus41 }, actCallWrapped},
		{"anthropic native", func(w *world) (agent.Provider, string) { return w.anthropic, sonnet }, actCallDirect},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.ant.NoNativeSearch = map[string]bool{opus41: true}
			w.ant.Handler = nil
			w.ant.Script = anthropictest.NewScript(
				anthropictest.Turn{Search: "weather", SplitSearch: true, Call: "weather_lookup", Input: map[string]any{"city": "Paris"}},
				anthropictest.Turn{Text: "Sunny in Paris."},
			)
			w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
			h := w.s.Messages()
			if n := len(h); n != 4 || h[1].Parts[len(h[1].Parts)-2].SearchCall == nil || h[3].Parts[0].SearchResult == nil {
				t.Fatalf("the search was not split across the two responses: %+v", h)
			}
			w.ant.Script, w.ant.Handler = nil, w.brain.anthropic
			p, model := c.target(w)
			st := w.turn(p, model, "And the weather in Rome?")
			w.wantKinds(st, c.want, actAnswer)
			w.wantAnswer(`"city":"Rome"`)
			w.checkAll()
		})
	}
}

// A native search cut off mid-stream (the call arrived, its result never
// did) leaves half a pair in the history. Every target drops it or answers
// it as failed, the model searches again, and no request is rejected.
func TestCutNativeSearchCarriedOver(t *testing.T) {
	for _, c := range []struct {
		name   string
		target func(w *world) (agent.Provider, string)
		want   []string
	}{
		{"responses hosted", func(w *world) (agent.Provider, string) { return w.responses, gpt54 }, []string{actSearchNative, actAnswer}},
		{"responses functions", func(w *world) (agent.Provider, string) { return w.responses, gpt41 }, []string{actSearchClient, actCallWrapped, actAnswer}},
		{"chat", func(w *world) (agent.Provider, string) { return w.chatP, chatTest }, []string{actSearchClient, actCallWrapped, actAnswer}},
		{"anthropic client", func(w *world) (agent.Provider, string) { return w.anthropic, opus41 }, []string{actSearchClient, actCallWrapped, actAnswer}},
		{"anthropic native", func(w *world) (agent.Provider, string) { return w.anthropic, sonnet }, []string{actSearchNative, actAnswer}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			w.ant.NoNativeSearch = map[string]bool{opus41: true}
			id := "srvtoolu_01CutCutCutCutCutCutCut"
			w.s.Reset([]agent.Message{
				{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("What is the weather in Paris?")}},
				{Role: agent.RoleAssistant, Interrupted: true, Parts: []agent.Part{
					agent.TextPart("Let me look."),
					agent.SearchCallPart(agent.SearchCall{ID: id, Where: agent.WhereProvider, Query: "weather"}),
					agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"text","text":"Let me look."},{"type":"server_tool_use","id":"`+id+`","name":"tool_search_tool_bm25","input":{"query":"weather"}}]`)),
				}},
			})
			p, model := c.target(w)
			st := w.turn(p, model, "And the weather in Rome?")
			w.wantKinds(st, c.want...)
			w.wantAnswer(`"city":"Rome"`)
			w.checkAll()
		})
	}
}

// Mistral accepts only 9-character alphanumeric call ids: the ids of every
// other provider (srvtoolu_..., tsc_..., call_...) are mapped, calls and
// their results alike.
func TestMistralCallIDsAfterOtherProviders(t *testing.T) {
	w := newWorld(t)
	w.chatP = openaichat.New(openaichat.Options{Name: "mistral", BaseURL: w.chat.BaseURL(), ShortCallIDs: true, NoStreamOptions: true, DropReasoning: true})
	w.turn(w.anthropic, sonnet, "What is the weather in Paris?")
	w.turn(w.responses, gpt54, "What is the stock price of ACME?")
	st := w.turn(w.chatP, "mistral-large-latest", "Weather in Oslo?")
	w.wantKinds(st, actCallWrapped, actAnswer)
	st = w.turn(w.chatP, "mistral-large-latest", "Send an email to bob")
	w.wantKinds(st, actSearchClient, actCallWrapped, actAnswer)
	nine := regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)
	for _, r := range st.reqs {
		for _, id := range chatIDs.FindAllStringSubmatch(string(r.body), -1) {
			if !nine.MatchString(id[2]) {
				t.Errorf("call id %q sent to Mistral", id[2])
			}
		}
	}
	w.turn(w.anthropic, sonnet, "Another email to alice")
	w.checkAll()
}
