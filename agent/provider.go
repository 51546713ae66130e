package agent

import (
	"context"
	"encoding/json"
	"errors"
)

// SearchMode is how deferred tools are found.
type SearchMode string

const (
	// SearchNative uses the provider's own tool search where the provider and
	// model have one, and falls back to client-side search elsewhere.
	SearchNative SearchMode = "native"
	// SearchClient always uses the agent's own engine.
	SearchClient SearchMode = "client"
	// SearchOff sends every tool eagerly.
	SearchOff SearchMode = "off"
)

// ParseSearchMode validates a user-supplied search mode.
func ParseSearchMode(s string) (SearchMode, error) {
	switch SearchMode(s) {
	case SearchNative, SearchClient, SearchOff:
		return SearchMode(s), nil
	case "":
		return SearchNative, nil
	}
	return "", errors.New(`unknown search mode "` + s + `": use native, client or off`)
}

// ToolDef is what a provider needs to advertise a tool.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
	// Server is the MCP server (or other source) the tool comes from;
	// ServerDescription is that server's own one line (MCP instructions or
	// serverInfo), which adapters that group tools by server show the model.
	Server            string `json:"server,omitempty"`
	ServerDescription string `json:"server_description,omitempty"`
	// Tokens is the definition's o200k count when known (tools.Tool.Tokens).
	Tokens int `json:"-"`
}

// ProviderTool is a provider-hosted tool asked for by the user: an alias
// (web_search, web_fetch, code_execution, mcp) with options in the provider's
// own vocabulary, or a raw definition passed through unchanged.
type ProviderTool struct {
	Alias   string          `json:"alias,omitempty"`
	Options json.RawMessage `json:"options,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`
}

// Request is one neutral request. Adapters render it to their own JSON; the
// tools array they render must be a pure function of Tools, Deferred,
// Search, SearchAlgo, ProviderTools and Model so that it is byte-identical on
// every request of a conversation.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	MaxTokens int
	// Tools are sent as usual; Deferred stay out of context until searched.
	Tools    []ToolDef
	Deferred []ToolDef
	// ToolsVersion, when not 0, names the exact contents of Tools and
	// Deferred: every request with the same value has the same lists (the
	// session's catalog version), so an adapter may reuse what it rendered
	// from them. 0: unknown, render every time.
	ToolsVersion uint64
	// Search is the mode asked for; the adapter resolves it for this model.
	Search SearchMode
	// SearchAlgo picks the native search variant where there is a choice
	// ("bm25" or "regex" on Anthropic).
	SearchAlgo    string
	ProviderTools []ProviderTool
	// NoStream asks for a non-streaming request.
	NoStream bool
	// Effort is the reasoning effort asked for (none, minimal, low, medium,
	// high, max; "" leaves the provider's default). Adapters map it to their
	// API through the models table and say once when the model has none.
	Effort string
	// MaxOutput asks for the model's largest output limit instead of
	// MaxTokens (the retry of a tool call cut at the limit).
	MaxOutput bool
	// WireBudget is the largest payload of deferred definitions a request
	// may carry, in bytes (0: no limit). Past it native search resolves to
	// client search, and an adapter whose client form still sends every
	// deferred definition (Anthropic's, for tool_reference) uses the
	// tool_search and tool_call functions instead, which send none.
	WireBudget int
	// Directory tells the model what waits behind the search: each server
	// of the deferred tools, its tool count and one line on what it offers
	// (tools.Directory). Set whenever tools are deferred; the same catalog
	// gives the same bytes. Adapters put it in the system prompt where the
	// search tool has no description of its own (native search), else in
	// the search tool's description (WithDirectory).
	Directory string
}

// DeferredBytes is what the deferred definitions weigh on the wire: their
// names, descriptions and schemas.
func (r *Request) DeferredBytes() int {
	n := 0
	for _, d := range r.Deferred {
		n += len(d.Name) + len(d.Description) + len(d.Schema)
	}
	return n
}

// OverWireBudget reports whether the deferred definitions exceed the
// request's wire budget.
func (r *Request) OverWireBudget() bool {
	return r.WireBudget > 0 && r.DeferredBytes() > r.WireBudget
}

// WithDirectory is text followed by the request's directory, a blank line
// between, or text alone when there is no directory.
func (r *Request) WithDirectory(text string) string {
	switch {
	case r.Directory == "":
		return text
	case text == "":
		return r.Directory
	}
	return text + "\n\n" + r.Directory
}

// Usage is token accounting for one request. InputTokens follows Anthropic's
// convention: input NOT read from or written to the cache, so the three input
// figures add up to the whole prompt. Adapters of APIs that count cached
// tokens inside their input figure subtract them.
type Usage struct {
	InputTokens      int            `json:"input_tokens"`
	OutputTokens     int            `json:"output_tokens"`
	CacheReadTokens  int            `json:"cache_read_input_tokens"`
	CacheWriteTokens int            `json:"cache_creation_input_tokens"`
	ServerToolUses   map[string]int `json:"server_tool_use,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CacheReadTokens += u2.CacheReadTokens
	u.CacheWriteTokens += u2.CacheWriteTokens
	for k, v := range u2.ServerToolUses {
		if u.ServerToolUses == nil {
			u.ServerToolUses = map[string]int{}
		}
		u.ServerToolUses[k] += v
	}
}

// Response is what a provider returns for one request: the assistant message
// (with its raw blocks), usage and why it stopped.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
	// ToolsHash is the sha256 (hex) of the rendered tools array.
	ToolsHash string
	// Resolved is the search mode the adapter actually used for this request.
	Resolved SearchMode
	// OutputLimit is the output token limit the request carried and
	// OutputMax the model's largest; CutCall is set when a tool call was
	// cut off by the limit (and left out of Message).
	OutputLimit, OutputMax int
	CutCall                bool
}

// StopReason is why the model stopped, in neutral words: each adapter maps
// its API's own reasons to these.
type StopReason string

const (
	StopEnd       StopReason = "end"        // the answer is complete
	StopToolUse   StopReason = "tool_use"   // the model waits for tool results
	StopMaxTokens StopReason = "max_tokens" // the output budget ran out
	// StopPaused: the provider paused a long server-side tool run; sending
	// the history back lets it continue where it stopped.
	StopPaused  StopReason = "paused"
	StopRefused StopReason = "refused" // the model declined to answer
)

// StreamEvent is a delta reported by an adapter while it streams. Notices
// (EventWarning) carry their text in Text.
type StreamEvent struct {
	Type         EventType
	Text         string
	SearchCall   *SearchCall
	SearchResult *SearchResult
	ServerTool   *ServerTool
}

// Provider is one wire API. It is defined here, where it is consumed; each
// adapter under providers/ implements it.
type Provider interface {
	// Name and API tag raw parts ("anthropic"/"messages", "openai"/"responses").
	Name() string
	API() string
	// NativeSearch reports whether this provider searches deferred tools
	// itself for model. It is consulted on every request.
	NativeSearch(model string) bool
	// Send performs one request. emit receives deltas as they stream. On an
	// error mid-stream Send returns what arrived so far with Interrupted set.
	Send(ctx context.Context, req *Request, emit func(StreamEvent)) (*Response, error)
}

// ResolveSearch is the per-request deferral decision shared by every adapter.
func ResolveSearch(p Provider, req *Request) SearchMode {
	if len(req.Deferred) == 0 {
		return SearchOff
	}
	switch req.Search {
	case SearchOff:
		return SearchOff
	case SearchClient:
		return SearchClient
	}
	if p.NativeSearch(req.Model) && !req.OverWireBudget() {
		return SearchNative
	}
	return SearchClient
}

// APIError is a provider's error answer, shown with its type and message.
type APIError struct {
	Provider   string
	Status     int
	Type       string
	Message    string
	RequestID  string
	RetryAfter string
}

func (e *APIError) Error() string {
	s := e.Provider + " API error"
	if e.Status != 0 {
		s += " (" + itoa(e.Status) + ")"
	}
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retryable reports whether the request may succeed if sent again.
func (e *APIError) Retryable() bool {
	return e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500
}
