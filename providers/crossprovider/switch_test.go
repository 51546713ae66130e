package crossprovider

import (
	"testing"

	"github.com/agent-dev/agent/agent"
)

// A conversation begun on Anthropic with native search moves to OpenAI
// Responses (hosted search on gpt-5.4, client search on gpt-5.4, the
// function-based search of a model without tool_search), then to Chat
// Completions, and back to Anthropic. What one provider found stays
// callable on the next without a new search.
func TestAnthropicToResponsesToChatAndBack(t *testing.T) {
	w := newWorld(t)

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
	w.s.Search = agent.SearchClient
	st = w.turn(w.responses, gpt54, "Then the weather in Lyon?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.responses, gpt54, "Put a calendar event: Standup")
	w.wantKinds(st, actSearchClient, actCallDirect, actAnswer)
	w.s.Search = agent.SearchNative

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
	w := newWorld(t)

	st := w.turn(w.responses, gpt54, "What is the weather in Paris?")
	w.wantKinds(st, actSearchNative, actAnswer)
	w.wantAnswer("weather_lookup ran with")

	st = w.turn(w.anthropic, sonnet, "And the weather in Rome?")
	w.wantKinds(st, actCallDirect, actAnswer)
	st = w.turn(w.anthropic, sonnet, "What is the stock price of ACME?")
	w.wantKinds(st, actSearchNative, actAnswer)

	// Anthropic client mode: the custom tool_search tool.
	w.s.Search = agent.SearchClient
	st = w.turn(w.anthropic, sonnet, "And the stock price of IBM?")
	w.wantKinds(st, actCallDirect, actAnswer)
	w.s.Search = agent.SearchNative

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

	w.checkAll()
}
