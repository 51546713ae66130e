package tokens

import (
	"encoding/json"
)

// Def is a tool definition to count.
type Def struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Tokens is the definition's count when already known (cached with the
	// catalog); 0 counts it.
	Tokens int
}

func (d Def) count() int {
	if d.Tokens > 0 {
		return d.Tokens
	}
	return Tool(d.Name, d.Description, d.Schema)
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
// tool_call pair. It is the count of searchToolDefs, kept as a constant so
// an estimate never loads the encoder (about 400 ms and tens of MB) for
// it; TestSearchToolCost holds it to the count.
const searchToolCost = 108

var searchToolDefs = []Def{
	{Name: "tool_search", Description: "Search the catalog of deferred tools by keywords, select:NAME,NAME or /regex/; returns matching tools.",
		Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)},
	{Name: "tool_call", Description: "Call a tool found by tool_search with its arguments.",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}},"required":["name","arguments"]}`)},
}

// EstimateContext counts the definitions in context for a resolved search
// mode ("native", "client" or "off"). Deferred definitions that a provider
// receives with defer_loading stay out of the model's context and are not
// counted; the benchmark (go run ./bench tokens) uses the same method.
func EstimateContext(active, deferred []Def, mode string) Estimate {
	var a, d int
	for _, t := range active {
		a += t.count()
	}
	for _, t := range deferred {
		d += t.count()
	}
	e := Estimate{Eager: a + d}
	switch {
	case len(deferred) == 0 || mode == "off" || mode == "":
		e.Context = a + d
	default:
		e.Context = a + searchToolCost
	}
	e.Saved = max(0, e.Eager-e.Context)
	return e
}
