package app

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/pricing"
	"github.com/agent-dev/agent/providers/registry"
)

// TurnResult is what a turn came to: the -p --output-format json object.
type TurnResult struct {
	Type      string `json:"type,omitempty"`
	SessionID string `json:"session_id"`
	// Compactions lists the automatic compactions of this run.
	Compactions     []agent.Compaction `json:"compactions,omitempty"`
	Result          string             `json:"result"`
	IsError         bool               `json:"is_error"`
	Error           string             `json:"error,omitempty"`
	NumRequests     int                `json:"num_requests"`
	Provider        string             `json:"provider"`
	Model           string             `json:"model"`
	Usage           ResultUsage        `json:"usage"`
	Searches        []ResultSearch     `json:"searches"`
	ToolCalls       []ResultToolCall   `json:"tool_calls"`
	ServerToolCalls []ResultServerTool `json:"server_tool_calls"`
	Sources         []agent.Source     `json:"sources"`
	Warnings        []string           `json:"warnings"`
	Discovered      []string           `json:"discovered_tools"`
	// ToolsHash and StopReason are always there (the README's fields), ""
	// when the run failed before a request was answered.
	ToolsHash string `json:"tools_hash"`
	// StopReason is why the last request stopped ("max_tokens": the answer
	// was cut at the output limit).
	StopReason agent.StopReason `json:"stop_reason"`
	// TotalCostUSD is what this run's requests cost, from the price table;
	// null when a model it used has no price. DurationMS is the run's wall
	// time and NumTurns its provider requests (Claude Code's names).
	TotalCostUSD *float64 `json:"total_cost_usd"`
	DurationMS   int64    `json:"duration_ms"`
	NumTurns     int      `json:"num_turns"`
	// Subagents are the run_agent calls of the turn, in the order they
	// ended; their requests, tokens and cost are in the totals above.
	Subagents []ResultSubagent `json:"subagents,omitempty"`
}

// ResultSubagent is one subagent's run: its stored session, answer, the
// line of tools it found and called, requests and cost (null: unpriced).
type ResultSubagent struct {
	Agent     string   `json:"agent"`
	SessionID string   `json:"session_id"`
	Provider  string   `json:"provider"`
	Model     string   `json:"model"`
	Result    string   `json:"result"`
	Summary   string   `json:"tools_summary"`
	IsError   bool     `json:"is_error"`
	Error     string   `json:"error,omitempty"`
	NumTurns  int      `json:"num_turns"`
	CostUSD   *float64 `json:"cost_usd"`
}

// ResultUsage mirrors the provider usage fields.
type ResultUsage struct {
	InputTokens              int            `json:"input_tokens"`
	OutputTokens             int            `json:"output_tokens"`
	CacheReadInputTokens     int            `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int            `json:"cache_creation_input_tokens"`
	ServerToolUse            map[string]int `json:"server_tool_use"`
}

// ResultSearch is one tool search of the turn.
type ResultSearch struct {
	Query string   `json:"query"`
	Tools []string `json:"tools"`
	Where string   `json:"where"`
	Error string   `json:"error,omitempty"`
}

// ResultToolCall is one local tool call of the turn.
type ResultToolCall struct {
	Name    string `json:"name"`
	IsError bool   `json:"is_error"`
}

// ResultServerTool is one provider-hosted tool call.
type ResultServerTool struct {
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	IsError bool            `json:"is_error"`
}

// Reducer folds a turn's event stream into its TurnResult.
type Reducer struct {
	res        TurnResult
	start      time.Time
	cost       float64
	unpriced   bool
	price      func(provider, model string) (pricing.Price, bool) // "": the session's
	named      func(adapter string) string                        // a usage event's provider as the user named it
	searchIdx  map[string]int
	seenSource map[string]bool
	last, all  strings.Builder
	breakNext  bool
	err        error
}

// NewReducer starts the result of a turn of a's session.
func (a *App) NewReducer() *Reducer {
	p, model := a.session.Target()
	r := &Reducer{searchIdx: map[string]int{}, seenSource: map[string]bool{}, start: time.Now()}
	// The model at each request: a fallback or /model may change it.
	r.price = func(prov, m string) (pricing.Price, bool) {
		if m == "" {
			_, m = a.session.Target()
		}
		if prov == "" {
			prov = a.Provider()
		}
		return Price(prov, m)
	}
	// The provider as the user named it ("ollama", not the "openai-chat"
	// its adapter calls itself).
	provider := a.Provider()
	if provider == "" {
		provider = p.Name()
	}
	// A custom command's model: may be another provider's (its name as
	// the command gave it); the session's otherwise, a fallback's too.
	session := p.Name()
	r.named = func(adapter string) string {
		a.mu.Lock()
		cmd := a.cmdNamed
		a.mu.Unlock()
		switch adapter {
		case "":
			return ""
		case cmd.adapter:
			return cmd.label
		case session:
			return provider
		}
		return adapter
	}
	r.res = emptyResult(provider, model, append(a.Warnings(), a.startNews...))
	r.res.SessionID = a.session.ID()
	return r
}

// emptyResult is a result with every list field present and empty, as the
// README lists them.
func emptyResult(provider, model string, warnings []string) TurnResult {
	return TurnResult{Provider: provider, Model: model,
		Searches: []ResultSearch{}, ToolCalls: []ResultToolCall{}, ServerToolCalls: []ResultServerTool{}, Sources: []agent.Source{},
		Warnings: append([]string{}, warnings...), Discovered: []string{}, Usage: ResultUsage{ServerToolUse: map[string]int{}}}
}

// FailedResult is the -p JSON of a run that failed before its turn began
// (a server named with --mcp that cannot start, a store that cannot
// open): the same fields as a turn's result, empty where the run never
// got to them, with the error.
func FailedResult(s Settings, err error) TurnResult {
	model := s.Model
	if d, ok := registry.Lookup(s.Provider); ok && model == "" {
		model = d.DefaultModel // what the run would have used, as a turn's result says
	}
	res := emptyResult(s.Provider, model, s.Warnings)
	res.IsError, res.Error = true, err.Error()
	return res
}

// Add folds ev in. It returns the answer text ev adds, with the break that
// makes each assistant message its own paragraph, for text output.
func (r *Reducer) Add(ev agent.Event) string {
	res := &r.res
	switch ev.Type {
	case agent.EventTextDelta:
		out := ev.Text
		if r.breakNext {
			// Without the break, "…for that." and "The search found…" run
			// together.
			r.breakNext = false
			sep := "\n\n"
			if strings.HasSuffix(r.all.String(), "\n") {
				sep = "\n"
			}
			r.all.WriteString(sep)
			out = sep + out
		}
		r.last.WriteString(ev.Text)
		r.all.WriteString(ev.Text)
		return out
	case agent.EventSearchStarted:
		r.searchIdx[ev.Search.ID] = len(res.Searches)
		res.Searches = append(res.Searches, ResultSearch{Query: ev.Search.Query, Where: ev.Search.Where, Tools: []string{}})
	case agent.EventSearchFinished:
		i, ok := r.searchIdx[ev.Search.ID]
		if !ok {
			// A search finished in a later response than it began (split pair).
			i = len(res.Searches)
			res.Searches = append(res.Searches, ResultSearch{Query: ev.Search.Query, Where: ev.Search.Where})
			r.searchIdx[ev.Search.ID] = i
		}
		if ev.Search.Tools != nil {
			res.Searches[i].Tools = ev.Search.Tools
		}
		res.Searches[i].Error = ev.Search.Error
	case agent.EventToolStarted:
		r.last.Reset()
	case agent.EventToolFinished:
		res.ToolCalls = append(res.ToolCalls, ResultToolCall{Name: ev.Tool.Name, IsError: ev.Tool.IsError})
	case agent.EventMessage:
		// Server tool calls are taken from completed assistant messages:
		// streams announce them before their results arrive.
		if m := ev.Message; m != nil && m.Role == agent.RoleAssistant {
			r.breakNext = r.all.Len() > 0
			r.serverTools(m)
		} else if m != nil && m.Role == agent.RoleUser {
			// A Stop hook's message makes the model answer again: the
			// result is that answer.
			r.last.Reset()
		}
	case agent.EventUsage:
		res.NumRequests++
		res.StopReason = ev.StopReason
		u := ev.Usage
		res.Usage.InputTokens += u.InputTokens
		res.Usage.OutputTokens += u.OutputTokens
		res.Usage.CacheReadInputTokens += u.CacheReadTokens
		res.Usage.CacheCreationInputTokens += u.CacheWriteTokens
		for k, v := range u.ServerToolUses {
			res.Usage.ServerToolUse[k] += v
		}
		// The provider and model that answered: a custom command's
		// model: (or a fallback) runs the turn on another than the
		// session's, and the result names and prices that one. Served
		// says it as the request was made; the session's provider and
		// model may be put back by the time this event is read.
		provider, model := "", ""
		if sv := ev.Served; sv != nil && sv.Model != "" {
			provider, model = sv.Provider, sv.Model
			if r.named != nil {
				provider = r.named(provider)
			}
			if !sv.Compaction {
				res.Model = sv.Model
				if provider != "" {
					res.Provider = provider
				}
			}
		}
		if r.price == nil {
			r.unpriced = true
		} else if p, ok := r.price(provider, model); ok {
			r.cost += p.Cost(pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens})
		} else {
			r.unpriced = true
		}
	case agent.EventWarning, agent.EventNotice:
		// A turn's notice is a hook's systemMessage: in warnings, where
		// -p's JSON always had it.
		res.Warnings = append(res.Warnings, ev.Text)
	case agent.EventCompacted:
		if c := ev.Compaction; c != nil {
			res.Compactions = append(res.Compactions, *c)
		}
	case agent.EventError:
		r.err = ev.Err
	case agent.EventSubagentFinished:
		r.subagent(ev.Subagent)
	}
	return ""
}

// subagent counts a finished subagent in the turn's totals.
func (r *Reducer) subagent(s *agent.SubagentEvent) {
	if s == nil {
		return
	}
	res := &r.res
	res.Subagents = append(res.Subagents, ResultSubagent{Agent: s.Agent, SessionID: s.SessionID, Provider: s.Provider, Model: s.Model,
		Result: s.Result, Summary: s.Summary, IsError: s.IsError, Error: s.Error, NumTurns: s.Requests, CostUSD: s.CostUSD})
	res.NumRequests += s.Requests
	if u := s.Usage; u != nil {
		res.Usage.InputTokens += u.InputTokens
		res.Usage.OutputTokens += u.OutputTokens
		res.Usage.CacheReadInputTokens += u.CacheReadTokens
		res.Usage.CacheCreationInputTokens += u.CacheWriteTokens
	}
	if s.CostUSD != nil {
		r.cost += *s.CostUSD
	} else if s.Requests > 0 {
		r.unpriced = true
	}
}

func (r *Reducer) serverTools(m *agent.Message) {
	for _, p := range m.Parts {
		st := p.ServerTool
		if p.Type != agent.PartServerTool || st == nil {
			continue
		}
		if !st.Pending && st.Name != "citations" {
			r.res.ServerToolCalls = append(r.res.ServerToolCalls, ResultServerTool{Name: st.Name, Input: st.Input, IsError: st.IsError})
		}
		for _, s := range st.Sources {
			if !r.seenSource[s.URL] {
				r.seenSource[s.URL] = true
				r.res.Sources = append(r.res.Sources, s)
			}
		}
	}
}

// Err is the turn's error (nil when it ended well).
func (r *Reducer) Err() error { return r.err }

// Text is every answer text of the turn, as Add returned it.
func (r *Reducer) Text() string { return r.all.String() }

// Result is the turn's result: the last answer (the text after the last
// tool call, else all of it), the session's discoveries and the last
// tools hash.
func (r *Reducer) Result(a *App) TurnResult {
	res := r.res
	res.Result = strings.TrimSpace(r.last.String())
	if res.Result == "" {
		res.Result = strings.TrimSpace(r.all.String())
	}
	res.Discovered = a.session.Discovered()
	if res.Discovered == nil {
		res.Discovered = []string{}
	}
	res.ToolsHash = a.LastToolsHash()
	res.DurationMS, res.NumTurns = time.Since(r.start).Milliseconds(), res.NumRequests
	if !r.unpriced {
		c := pricing.Round(r.cost)
		res.TotalCostUSD = &c
	}
	if r.err != nil {
		res.IsError = true
		res.Error = r.err.Error()
	}
	return res
}
