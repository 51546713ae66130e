package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// What the agent offers servers as a client: the capabilities it declares
// at initialize (roots, sampling, elicitation in form and URL modes) and the
// handlers that answer the requests they allow. The answers themselves
// (asking the user, running the model) are the Host's: this package only
// speaks the protocol.

// Host answers the requests servers make of the client. The app implements
// it: the TUI asks the user, print mode follows its settings.
type Host interface {
	// Elicit asks the user for what a server needs (a form, or a URL to
	// open). The answer's content is checked against the form here.
	Elicit(ctx context.Context, e Elicitation) (ElicitAnswer, error)
	// Sample runs the model for a server (sampling/createMessage), after
	// the user approved it.
	Sample(ctx context.Context, r SamplingRequest) (SamplingAnswer, error)
}

// ErrDeclined is a Host's answer when the user (or the run's settings)
// refused a sampling request.
var ErrDeclined = errors.New("declined")

// SamplingRequest is a server's sampling/createMessage, in neutral terms.
type SamplingRequest struct {
	Server   string
	System   string
	Messages []SamplingMessage
	// MaxTokens is what the server asked for (required by the protocol).
	MaxTokens int
	// Hints are model names, in the server's order of preference
	// (substrings of a model id, per the specification).
	Hints []string
	// IntelligencePriority, SpeedPriority and CostPriority are in [0, 1].
	IntelligencePriority, SpeedPriority, CostPriority float64
	Temperature                                       float64
	StopSequences                                     []string
}

// SamplingMessage is one message of a sampling request: text and images.
type SamplingMessage struct {
	Role   string // "user" or "assistant"
	Text   string
	Images []tools.Image
}

// SamplingAnswer is the model's reply to a sampling request.
type SamplingAnswer struct {
	Model      string
	Text       string
	StopReason string // endTurn, maxTokens, stopSequence
}

// host is the client-side half of one connection: it answers the server's
// requests (requests.go dispatches them).
type host struct{ c *conn }

// clientOptions declares the client's capabilities: roots, sampling,
// elicitation in both modes, and tasks for the last two (taskrecv.go).
// Over the legacy SSE transport too: mcp-go's SSE client drops a server's
// requests, so they are taken off its stream first (sserequests.go).
func (c *conn) clientOptions() []client.ClientOption {
	tasks := &mcpgo.TasksCapability{List: &struct{}{}, Cancel: &struct{}{}, Requests: &mcpgo.TaskRequestsCapability{}}
	tasks.Requests.Sampling = &struct {
		CreateMessage *struct{} `json:"createMessage,omitempty"`
	}{CreateMessage: &struct{}{}}
	tasks.Requests.Elicitation = &struct {
		Create *struct{} `json:"create,omitempty"`
	}{Create: &struct{}{}}
	caps := mcpgo.ClientCapabilities{
		Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{},
		Sampling:    &mcpgo.SamplingCapability{},
		Elicitation: &mcpgo.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
		Tasks:       tasks,
	}
	return append([]client.ClientOption{client.WithClientCapabilities(caps)}, c.inputOptions()...)
}

// ListRoots answers roots/list: the working directory, the one place the
// agent works in.
func (h host) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	dir := h.c.m.opts.Workdir
	if dir == "" {
		return &mcpgo.ListRootsResult{Roots: []mcpgo.Root{}}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return &mcpgo.ListRootsResult{Roots: []mcpgo.Root{{URI: u.String(), Name: filepath.Base(abs)}}}, nil
}

// CreateMessage answers sampling/createMessage through the Host.
func (h host) CreateMessage(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	p := req.CreateMessageParams
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		// The specification: a client that did not declare sampling.tools
		// must reject a request that carries tools.
		return nil, invalidParams("sampling with tools is not supported by this client (it does not declare sampling.tools)")
	}
	if p.MaxTokens <= 0 {
		return nil, invalidParams("sampling/createMessage needs maxTokens above 0")
	}
	r := SamplingRequest{Server: h.c.cfg.Name, System: p.SystemPrompt, MaxTokens: p.MaxTokens,
		Temperature: p.Temperature, StopSequences: p.StopSequences}
	if mp := p.ModelPreferences; mp != nil {
		for _, hint := range mp.Hints {
			if hint.Name != "" {
				r.Hints = append(r.Hints, hint.Name)
			}
		}
		r.IntelligencePriority, r.SpeedPriority, r.CostPriority = mp.IntelligencePriority, mp.SpeedPriority, mp.CostPriority
	}
	for i, m := range p.Messages {
		sm := SamplingMessage{Role: string(m.Role)}
		if sm.Role != "user" && sm.Role != "assistant" {
			return nil, invalidParams("sampling message %d has role %q: use user or assistant", i, m.Role)
		}
		for _, part := range samplingParts(m.Content) {
			switch part := part.(type) {
			case mcpgo.TextContent:
				sm.Text += part.Text
			case *mcpgo.TextContent:
				sm.Text += part.Text
			case mcpgo.ImageContent:
				sm.Images = append(sm.Images, tools.Image{MediaType: part.MIMEType, Data: part.Data})
			case *mcpgo.ImageContent:
				sm.Images = append(sm.Images, tools.Image{MediaType: part.MIMEType, Data: part.Data})
			default:
				return nil, invalidParams("sampling message %d: content of type %T is not supported (text and images are)", i, part)
			}
		}
		r.Messages = append(r.Messages, sm)
	}
	if len(r.Messages) == 0 {
		return nil, invalidParams("sampling/createMessage has no messages")
	}
	hst := h.c.m.opts.Host
	if hst == nil {
		return nil, errors.New("this client cannot sample a model here (no session)")
	}
	ans, err := hst.Sample(ctx, r)
	if errors.Is(err, ErrDeclined) {
		return nil, &rpcError{code: codeUserRejected, msg: "User rejected sampling request"}
	} else if err != nil {
		return nil, err
	}
	res := &mcpgo.CreateMessageResult{Model: ans.Model, StopReason: ans.StopReason}
	res.Role = mcpgo.RoleAssistant
	res.Content = mcpgo.TextContent{Type: "text", Text: ans.Text}
	return res, nil
}

// samplingParts flattens a sampling message's content: one content block,
// or (protocol 2025-11-25) an array of them.
func samplingParts(content any) []any {
	switch c := content.(type) {
	case []any:
		var out []any
		for _, x := range c {
			if m, ok := x.(map[string]any); ok {
				if parsed, err := mcpgo.ParseContent(m); err == nil {
					out = append(out, parsed)
					continue
				}
			}
			out = append(out, x)
		}
		return out
	case []mcpgo.Content:
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = x
		}
		return out
	}
	return []any{content}
}

// Elicit answers elicitation/create through the Host: the form is parsed
// from requestedSchema, the answer completed with the form's defaults
// (SEP-1034) and checked against it.
func (h host) Elicit(ctx context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	p := req.Params
	e := Elicitation{Server: h.c.cfg.Name, Mode: p.Mode, Message: p.Message, URL: p.URL, ID: p.ElicitationID}
	if e.Mode == "" {
		e.Mode = mcpgo.ElicitationModeForm
	}
	if e.Mode == mcpgo.ElicitationModeForm {
		fields, err := ParseForm(p.RequestedSchema)
		if err != nil {
			return nil, invalidParams("requestedSchema: %v", err)
		}
		e.Fields = fields
	} else if err := checkElicitURL(e.URL); err != nil {
		return nil, err
	}
	ans := ElicitAnswer{Action: ActionDecline}
	if hst := h.c.m.opts.Host; hst != nil {
		var err error
		if ans, err = hst.Elicit(ctx, e); err != nil {
			return nil, err
		}
	}
	res := &mcpgo.ElicitationResult{}
	res.Action = mcpgo.ElicitationResponseAction(ans.Action)
	switch ans.Action {
	case ActionAccept:
		if e.Mode == mcpgo.ElicitationModeForm {
			content, err := CompleteAnswer(e.Fields, ans.Content)
			if err != nil {
				return nil, err
			}
			res.Content = content
		}
	case ActionDecline, ActionCancel:
	default:
		return nil, fmt.Errorf("elicitation answer %q: use accept, decline or cancel", ans.Action)
	}
	h.c.m.log.Info("mcp elicitation answered", "server", h.c.cfg.Name, "mode", e.Mode, "action", ans.Action)
	return res, nil
}
