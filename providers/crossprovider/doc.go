// Package crossprovider holds tests only: one conversation, in real
// agent.Session objects, moved between providers and models mid-way
// (Anthropic Messages, OpenAI Responses, Chat Completions; native, client
// and off search; a fallback model on overload), against the strict fakes
// of each adapter. The tests check that no fake rejects a request, that the
// tools array of each provider and model is the same bytes on every
// request, that no provider is sent another provider's raw blocks, and that
// tools found earlier stay callable without a new search where the target
// can express them.
package crossprovider
