package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-dev/agent/agent"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// What MCP servers ask of the agent as a client (elicitation, sampling) is
// answered here: by the front end's Asker when there is one (the TUI's
// dialogs), else by the run's settings (print mode: elicitation decline or
// accept-defaults, which --yes implies; sampling only with --yes).

// Asker puts a server's requests to the user. The TUI's backend implements
// it; both calls block until the user answers or ctx ends.
type Asker interface {
	// ApproveSampling shows a sampling request (and the model that would
	// answer it) and reports whether the user allows it.
	ApproveSampling(ctx context.Context, r mcptools.SamplingRequest, model string) bool
	// Elicit shows a form, or a URL to open, and returns the answer.
	Elicit(ctx context.Context, e mcptools.Elicitation) mcptools.ElicitAnswer
}

// SetAsker makes the front end answer servers' requests (nil: the
// settings answer).
func (a *App) SetAsker(x Asker) {
	a.mu.Lock()
	a.asker = x
	a.mu.Unlock()
}

func (a *App) currentAsker() Asker {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asker
}

// mcpHost is the mcp.Host of an App.
type mcpHost struct{ a *App }

var _ mcptools.Host = mcpHost{}

// ElicitationPolicy is how a run without a person answers elicitations:
// the elicitation setting, or accept-defaults with --yes.
func (a *App) elicitationPolicy() string {
	if a.opts.Yes {
		return "accept-defaults"
	}
	if a.settings.Elicitation != "" {
		return a.settings.Elicitation
	}
	return "decline"
}

func (h mcpHost) Elicit(ctx context.Context, e mcptools.Elicitation) (mcptools.ElicitAnswer, error) {
	a := h.a
	if x := a.currentAsker(); x != nil {
		return x.Elicit(ctx, e), nil
	}
	policy := a.elicitationPolicy()
	if e.Mode == "url" {
		return a.elicitURL(ctx, e, policy), nil
	}
	return a.elicitForm(e, policy), nil
}

// elicitForm answers a form in a run without a terminal: no one is there
// to fill it in, so it is declined, or with accept-defaults (--yes)
// accepted with the form's defaults when every required field has one.
// What was asked and answered is said on stderr and, in stream-json, as
// an elicitation event with the fields.
func (a *App) elicitForm(e mcptools.Elicitation, policy string) mcptools.ElicitAnswer {
	ev := agent.ElicitationEvent{Server: e.Server, Mode: "form", Message: e.Message, Action: mcptools.ActionDecline}
	for _, f := range e.Fields {
		ef := agent.ElicitationField{Name: f.Name, Title: f.Title, Type: f.Type, Required: f.Required, Options: f.Options}
		if f.HasDefault {
			ef.Default = f.Default
		}
		ev.Fields = append(ev.Fields, ef)
	}
	what := "a form (" + fieldNames(e.Fields) + ")"
	var text string
	content, ok := mcptools.Defaults(e.Fields)
	switch {
	case policy != "accept-defaults":
		text = fmt.Sprintf("MCP server %s asked for %s: declined (set \"elicitation\": \"accept-defaults\" or pass --yes to accept with the form's defaults)", e.Server, what)
	case !ok:
		text = fmt.Sprintf("MCP server %s asked for %s: declined (a required field has no default, and no one is there to fill it in)", e.Server, what)
	case len(content) == 0:
		text = fmt.Sprintf("MCP server %s asked for %s: accepted empty (no field has a default)", e.Server, what)
		ev.Action, ev.Content = mcptools.ActionAccept, map[string]any{}
	default:
		text = fmt.Sprintf("MCP server %s asked for %s: accepted with the defaults", e.Server, what)
		ev.Action, ev.Content = mcptools.ActionAccept, maps.Clone(content)
	}
	a.hostEvent(agent.Event{Type: agent.EventElicitation, Text: text, Elicitation: &ev})
	if ev.Action != mcptools.ActionAccept {
		return mcptools.ElicitAnswer{Action: ev.Action}
	}
	return mcptools.ElicitAnswer{Action: mcptools.ActionAccept, Content: content}
}

// elicitURL answers a URL elicitation in a run without a terminal: the
// URL is said on stderr (and as an elicitation event in stream-json) so
// the user can open it. The agent never opens it. Unless the settings
// accept (accept-defaults, --yes) it is declined. Accepted, a request
// (elicitation/create) is answered at once and the server waits for the
// user; a tool call that needs it (-32042) waits until the server says the
// user is done (ctx ends), else for oauth_timeout, and is then retried.
func (a *App) elicitURL(ctx context.Context, e mcptools.Elicitation, policy string) mcptools.ElicitAnswer {
	ev := agent.ElicitationEvent{Server: e.Server, Mode: e.Mode, Message: e.Message, URL: e.URL, ID: e.ID, Retry: e.Retry, Action: mcptools.ActionDecline}
	asks := fmt.Sprintf("MCP server %s asks you to open %s (%s)", e.Server, e.URL, e.Message)
	wait := time.Duration(a.settings.Config.OAuthTimeout)
	if wait <= 0 {
		wait = 2 * time.Minute // oauth_timeout's default
	}
	var text string
	switch {
	case policy != "accept-defaults" && e.Retry:
		text = asks + " before its tool can run: declined, the call was not retried (open it, then rerun; or pass --yes to wait for it)"
	case policy != "accept-defaults":
		text = asks + ": declined (pass --yes or set \"elicitation\": \"accept-defaults\" to let the server wait while you open it)"
	case e.Retry && e.ID == "":
		// A 2026-07-28 request for input (mcp's mrtr.go): no elicitation
		// id, so no completion notification; only the wait ends it.
		ev.Action = mcptools.ActionAccept
		text = fmt.Sprintf("%s before its tool can run: open it in a browser; the request is sent again in %s (oauth_timeout)", asks, wait)
	case e.Retry:
		ev.Action = mcptools.ActionAccept
		text = fmt.Sprintf("%s before its tool can run: open it in a browser; the call is retried when the server says it is done, or in %s (oauth_timeout)", asks, wait)
	default:
		ev.Action = mcptools.ActionAccept
		text = asks + ": open it in a browser to continue"
	}
	a.hostEvent(agent.Event{Type: agent.EventElicitation, Text: text, Elicitation: &ev})
	if ev.Action != mcptools.ActionAccept || !e.Retry {
		return mcptools.ElicitAnswer{Action: ev.Action}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		// The server said it is done (the call is retried), or the turn
		// ended (it is not).
	case <-t.C:
	}
	return mcptools.ElicitAnswer{Action: mcptools.ActionAccept}
}

func fieldNames(fs []mcptools.Field) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

var samplingSeq atomic.Int64

// Sample answers a server's sampling request with the session's provider
// and model (or the table's model a hint names), once the user allowed
// it; its usage counts as the session's.
func (h mcpHost) Sample(ctx context.Context, r mcptools.SamplingRequest) (mcptools.SamplingAnswer, error) {
	a := h.a
	p, cur := a.session.Target()
	model := a.samplingModel(r.Hints, cur)
	if x := a.currentAsker(); x != nil {
		if !x.ApproveSampling(ctx, r, model) {
			return mcptools.SamplingAnswer{}, mcptools.ErrDeclined
		}
	} else if !a.opts.Yes {
		a.hostNote(fmt.Sprintf("MCP server %s asked to sample the model: declined (pass --yes to allow it)", r.Server))
		return mcptools.SamplingAnswer{}, mcptools.ErrDeclined
	}
	req := &agent.Request{Model: model, System: r.System, MaxTokens: r.MaxTokens}
	for _, m := range r.Messages {
		role := agent.RoleUser
		if m.Role == "assistant" {
			role = agent.RoleAssistant
		}
		text := m.Text
		if len(m.Images) > 0 {
			text += fmt.Sprintf("\n[%d image(s) omitted]", len(m.Images))
		}
		req.Messages = append(req.Messages, agent.Message{Role: role, Parts: []agent.Part{agent.TextPart(text)}})
	}
	resp, err := p.Send(ctx, req, func(agent.StreamEvent) {})
	if resp != nil {
		a.spent(a.Provider(), model, resp.Usage)
		a.mu.Lock()
		ss := a.stored
		a.mu.Unlock()
		if ss != nil {
			_ = ss.RecordRequest(context.WithoutCancel(ctx), agent.RequestRecord{Provider: p.Name(), API: p.API(), Model: model, Usage: resp.Usage})
		}
	}
	if err != nil {
		return mcptools.SamplingAnswer{}, fmt.Errorf("the model could not answer: %w", err)
	}
	slog.Info("mcp sampling answered", "server", r.Server, "model", model, "seq", samplingSeq.Add(1),
		"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
	stop := "endTurn"
	switch resp.StopReason {
	case agent.StopMaxTokens:
		stop = "maxTokens"
	case agent.StopRefused:
		return mcptools.SamplingAnswer{}, errors.New("the model refused to answer")
	}
	return mcptools.SamplingAnswer{Model: model, Text: resp.Message.Text(), StopReason: stop}, nil
}

// samplingModel is the first model of the session's provider that a
// server's hint names (a hint is a substring of a model id, per the
// specification), else the session's model.
func (a *App) samplingModel(hints []string, cur string) string {
	if len(hints) == 0 {
		return cur
	}
	var ids []string
	for _, m := range a.Models() {
		ids = append(ids, m.Name)
	}
	for _, h := range hints {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if strings.Contains(strings.ToLower(cur), h) {
			return cur
		}
		for _, id := range ids {
			if strings.Contains(strings.ToLower(id), h) {
				return id
			}
		}
	}
	return cur
}

// SamplingInput is a sampling request as JSON, for an approval dialog.
func SamplingInput(r mcptools.SamplingRequest, model string) json.RawMessage {
	type msg struct {
		Role string `json:"role"`
		Text string `json:"text"`
	}
	v := struct {
		Model     string `json:"model"`
		System    string `json:"system,omitempty"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []msg  `json:"messages"`
	}{Model: model, System: r.System, MaxTokens: r.MaxTokens}
	for _, m := range r.Messages {
		v.Messages = append(v.Messages, msg{m.Role, m.Text})
	}
	b, _ := json.Marshal(v)
	return b
}

// hostNote says what was answered for the user: a warning in the running
// turn (stderr in print mode, the chat in the TUI), else a notice.
func (a *App) hostNote(text string) {
	a.hostEvent(agent.Event{Type: agent.EventWarning, Text: text})
}

// hostEvent is ev in the running turn, else its Text as a notice.
func (a *App) hostEvent(ev agent.Event) {
	a.mu.Lock()
	emit := a.turnEmit
	a.mu.Unlock()
	if emit != nil {
		emit(ev)
		return
	}
	if ev.Type == agent.EventWarning {
		a.Notice(ev.Text)
	} else {
		a.News(ev.Text)
	}
}
