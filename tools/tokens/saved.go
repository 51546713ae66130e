package tokens

import "encoding/json"

// Deferral is what deferring tools does to one request's context, counted
// the way `bench tokens` counts it, so the status bar and the benchmark
// show the same figure.
type Deferral struct {
	// Eager is the definitions' cost with search off: every tool, active
	// and deferred, sent as a plain definition.
	Eager int `json:"eager"`
	// Context is the definitions' cost under deferral: the active tools
	// plus the deferred ones a search has already loaded.
	Context int `json:"context"`
	// Saved is Eager - Context: the input tokens deferral keeps out of the
	// model's context on this request.
	Saved int `json:"saved"`
}

// SavedByDeferral counts, with o200k over each definition's neutral JSON
// ({name, description, input_schema}, as Tool does), what deferral keeps
// out of context on one request. mode is the search mode the adapter
// resolved for the request ("off", "native" or "client"); loaded names the
// deferred tools searches have found so far (agent.Discovered of the
// history), whose definitions are in context again.
//
// The search tool's own definition (10 to 200 tokens depending on the
// adapter) is not subtracted: it differs per provider and the core does
// not know it. The benchmark reports it on its own, measured on the wire.
func SavedByDeferral(active, deferred []ToolDef, loaded []string, mode string) Deferral {
	act := Defs(active)
	all := Defs(deferred)
	d := Deferral{Eager: act + all, Context: act + all}
	if mode == "off" || mode == "" {
		return d
	}
	in := map[string]bool{}
	for _, n := range loaded {
		in[n] = true
	}
	d.Context = act
	for _, t := range deferred {
		if in[t.Name] {
			d.Context += Def(t)
		}
	}
	d.Saved = d.Eager - d.Context
	return d
}

// Def is the cost of one definition: o200k of its neutral JSON. It equals
// Tool(t.Name, t.Description, t.Schema).
func Def(t ToolDef) int {
	b, err := json.Marshal(t)
	if err != nil {
		return 0
	}
	return CountCached(string(b))
}

// Defs sums Def over ts.
func Defs(ts []ToolDef) int {
	n := 0
	for _, t := range ts {
		n += Def(t)
	}
	return n
}
