package tokens

import (
	"encoding/json"
	"sync"
)

// Def is a tool definition to count.
type Def struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Estimate is what tool definitions cost in the model's context per request.
type Estimate struct {
	// Context is what the model sees: active definitions plus the search
	// tool(s) when something is deferred.
	Context int `json:"context_tokens"`
	// Eager is what sending every tool would cost.
	Eager int `json:"eager_tokens"`
	// Saved is Eager minus Context.
	Saved int `json:"saved_tokens"`
}

// searchToolCost approximates the definitions that stand in for the deferred
// catalog: the provider's search tool, or the client's tool_search and
// tool_call pair.
// It is counted on first use: loading the encoder costs about 400 ms, which
// a program start must not pay.
var searchToolCost = sync.OnceValue(func() int {
	return Tool("tool_search",
		"Search the catalog of deferred tools by keywords, select:NAME,NAME or /regex/; returns matching tools.",
		json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)) +
		Tool("tool_call", "Call a tool found by tool_search with its arguments.",
			json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}},"required":["name","arguments"]}`))
})

// EstimateContext counts the definitions in context for a resolved search
// mode ("native", "client" or "off"). Deferred definitions that a provider
// receives with defer_loading stay out of the model's context and are not
// counted; the benchmark (go run ./bench tokens) uses the same method.
func EstimateContext(active, deferred []Def, mode string) Estimate {
	var a, d int
	for _, t := range active {
		a += Tool(t.Name, t.Description, t.Schema)
	}
	for _, t := range deferred {
		d += Tool(t.Name, t.Description, t.Schema)
	}
	e := Estimate{Eager: a + d}
	switch {
	case len(deferred) == 0 || mode == "off" || mode == "":
		e.Context = a + d
	default:
		e.Context = a + searchToolCost()
	}
	e.Saved = max(0, e.Eager-e.Context)
	return e
}
