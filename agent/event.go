package agent

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agent-dev/agent/tools/permission"
)

// EventType names the events of the single stream a turn emits.
type EventType string

const (
	EventTextDelta EventType = "text_delta"
	// EventReasoningDelta is reasoning text (a summary or a thinking
	// block) as it streams; front ends show it dimmed, apart from the answer.
	EventReasoningDelta EventType = "reasoning_delta"
	EventSearchStarted  EventType = "search_started"
	EventSearchFinished EventType = "search_finished"
	EventToolStarted    EventType = "tool_call_started"
	EventToolFinished   EventType = "tool_call_finished"
	// EventToolProgress is a running tool's progress report (an MCP
	// server's notifications/progress); its JSON is flat:
	// {"type":"tool_progress","id":…,"progress":…,"total":…,"message":…}.
	EventToolProgress EventType = "tool_progress"
	EventServerTool   EventType = "server_tool_call"
	EventApproval     EventType = "approval_requested"
	EventMessage      EventType = "message"
	EventUsage        EventType = "usage"
	EventWarning      EventType = "warning"
	EventCompacted    EventType = "compacted"
	EventError        EventType = "error"
	EventDone         EventType = "done"
	// EventCatalogWait opens a turn whose first request is held while MCP
	// servers with no known tool list start (Text names them);
	// EventCatalogReady ends the wait (Text says how, when it was not that
	// every server listed its tools).
	EventCatalogWait  EventType = "catalog_wait"
	EventCatalogReady EventType = "catalog_ready"
	// EventElicitation: an MCP server asked the user to open a URL (URL
	// mode elicitation) or to fill in a form (form mode) in a run with no
	// one to show it to; Text says it in words, Elicitation what was
	// asked and answered.
	EventElicitation EventType = "elicitation"
	// EventNotice is news for the user, no problem: an MCP server is up,
	// its tools changed (the TUI's backend), a hook's systemMessage (in a
	// turn too: app's hooks).
	EventNotice EventType = "notice"
)

// Event is one item of a turn's event stream. Terminal events (error, done)
// are always delivered.
type Event struct {
	Type EventType `json:"type"`
	Text string    `json:"text,omitempty"`
	// Search is set on search_started / search_finished.
	Search *SearchEvent `json:"search,omitempty"`
	// Tool is set on tool_call_started / tool_call_finished / approval_requested.
	Tool *ToolEvent `json:"tool,omitempty"`
	// Progress is set on tool_progress.
	Progress *ToolProgress `json:"-"`
	// ServerTool is set on server_tool_call.
	ServerTool *ServerTool `json:"server_tool,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	// Message is set on message: a completed message appended to history.
	Message *Message `json:"message,omitempty"`
	// Compaction is set on compacted: the summary now sent in place of
	// the earlier turns, with the estimated tokens before and after.
	Compaction *Compaction `json:"compaction,omitempty"`
	// Err is set on error: test its kind with errors.Is (ErrCancelled,
	// ErrRateLimited, …) or KindOf. JSON carries its text as "error".
	Err error `json:"-"`
	// Request is the 1-based request number within the turn, on usage events.
	Request int `json:"request,omitempty"`
	// StopReason is why the model stopped that request, on usage events
	// ("max_tokens": cut at the output limit).
	StopReason StopReason `json:"stop_reason,omitempty"`
	// Subagent is set on subagent_started, subagent_event and
	// subagent_finished (subagent.go).
	Subagent *SubagentEvent `json:"subagent,omitempty"`
	// Elicitation is set on elicitation.
	Elicitation *ElicitationEvent `json:"elicitation,omitempty"`
	// Served is set on usage events: what answered the request and how
	// long it took; and on an error event when the turn ended on a
	// request that got no response, or the warning of an automatic
	// compaction whose summary request got none, what it asked (with
	// Failed set). Telemetry reads it; it is not part of the JSON.
	Served *Served `json:"-"`
}

// Served describes the request a usage event counts: the adapter and model
// that answered (a fallback may have replaced the session's), the search
// mode the adapter resolved, whether it was a compaction's summary request,
// and its wall time, retries included.
type Served struct {
	Provider, API, Model string
	Search               SearchMode
	Compaction           bool
	Elapsed              time.Duration
	// Failed is why a request that got no response failed; nil for one
	// answered.
	Failed error
}

// FailedRequest is what a request that got no response asked, when err is
// (or wraps) such a failure: a turn's, or a compaction's summary request.
func FailedRequest(err error) *Served {
	if rf := (*requestFailed)(nil); errors.As(err, &rf) {
		return rf.served
	}
	return nil
}

// ElicitationEvent is a server's elicitation and its answer: a URL to
// open (mode "url") or a form to fill in (mode "form").
type ElicitationEvent struct {
	Server  string `json:"server"`
	Mode    string `json:"mode"`
	Message string `json:"message"`
	// URL is the page to open (url mode; empty, and left out, for a form).
	URL string `json:"url,omitempty"`
	ID  string `json:"elicitation_id,omitempty"`
	// Retry: a tool call needs it done (URLElicitationRequiredError) and is
	// retried once the server says so or the wait ends.
	Retry bool `json:"retry,omitempty"`
	// Fields are the form's requested fields (form mode).
	Fields []ElicitationField `json:"fields,omitempty"`
	// Action is accept (url: the run waits for the user to open it; form:
	// answered with Content), decline or cancel.
	Action string `json:"action"`
	// Content is what an accepted form was answered with (its defaults,
	// as no one is there to fill it in). MarshalJSON writes it for every
	// accepted form, {} when the form has no defaults, and for nothing else.
	Content map[string]any `json:"content,omitempty"`
}

// MarshalJSON writes "content" exactly when a form was accepted: an
// accepted form with no defaults is answered with {}, and omitempty alone
// would leave it out, so that a reader could not tell it from a decline
// without reading "action" too.
func (e ElicitationEvent) MarshalJSON() ([]byte, error) {
	type plain ElicitationEvent
	out := struct {
		plain
		Content *map[string]any `json:"content,omitempty"`
	}{plain: plain(e)}
	if e.Mode == "form" && e.Action == "accept" {
		c := e.Content
		if c == nil {
			c = map[string]any{}
		}
		out.Content = &c
	}
	return json.Marshal(out)
}

// ElicitationField is one field a form asks for, as its requestedSchema
// gives it.
type ElicitationField struct {
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	// Type is string, number, integer, boolean or array (multiple choice).
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
	// Options are a choice field's values.
	Options []string `json:"options,omitempty"`
	// Default is the field's default; nil (left out) when it has none.
	Default any `json:"default,omitempty"`
}

// ToolProgress is one progress report of a running tool call. Total is
// nil when the tool does not know it.
type ToolProgress struct {
	ID       string   `json:"id"`
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total"`
	Message  string   `json:"message"`
}

// MarshalJSON writes Err as its text under "error", and a tool_progress
// event flat.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type == EventToolProgress && e.Progress != nil {
		return json.Marshal(struct {
			Type EventType `json:"type"`
			ToolProgress
		}{e.Type, *e.Progress})
	}
	type plain Event
	out := struct {
		plain
		Err string `json:"error,omitempty"`
	}{plain: plain(e)}
	if e.Err != nil {
		out.Err = e.Err.Error()
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads "error" back as an error without a kind.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var in struct {
		plain
		Err string `json:"error,omitempty"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*e = Event(in.plain)
	if e.Type == EventToolProgress {
		var p ToolProgress
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		e.Progress = &p
	}
	if in.Err != "" {
		e.Err = errors.New(in.Err)
	}
	return nil
}

// SearchEvent describes one tool search.
type SearchEvent struct {
	ID    string   `json:"id"`
	Where string   `json:"where"`
	Query string   `json:"query"`
	Tools []string `json:"tools,omitempty"`
	Error string   `json:"error,omitempty"`
}

// ToolEvent describes one local tool call.
type ToolEvent struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Server   string          `json:"server,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Result   string          `json:"result,omitempty"`
	IsError  bool            `json:"is_error,omitempty"`
	Duration time.Duration   `json:"duration_ns,omitempty"`
	// Discovered is true when the tool was deferred and found by a search.
	Discovered bool `json:"discovered,omitempty"`
	// Agent names the subagent whose call this is, on an approval a child
	// session asks in its parent's stream ("" for the session's own).
	Agent string `json:"agent,omitempty"`
	// Err is why the call failed (its kind is ErrToolFailed), on
	// tool_call_finished; the model sees Result.
	Err error `json:"-"`
	// Permission is why the call waits, on approval_requested: the rule,
	// mode or hook that asks.
	Permission *permission.Decision `json:"permission,omitempty"`
}
