package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/hooks"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// sessionHooks are the configured hooks of a run, wired to its session:
// agent.Hooks for the points of a turn, SessionStart when a session
// begins, and the PreToolUse decision the permission path folds in. Hooks
// of a project's config are among them only when the directory is trusted
// (applyProject), so a cloned repository never starts a command.
type sessionHooks struct {
	a *App
	r *hooks.Runner

	mu sync.Mutex
	// pending is SessionStart's context, given to the model with the next
	// prompt.
	pending []string
	// halt is a hook's "continue": false, until the turn reads it.
	halt *string
}

// newSessionHooks compiles the settings' hooks (nil when there are none);
// what Compile warns about joins the run's warnings.
func (a *App) newSessionHooks() (*sessionHooks, error) {
	if len(a.settings.Hooks) == 0 {
		return nil, nil
	}
	h, warnings, err := hooks.Compile(a.settings.Hooks)
	if err != nil {
		return nil, usage(err)
	}
	a.warnings = append(a.warnings, warnings...)
	return &sessionHooks{a: a, r: &hooks.Runner{Hooks: h, Dir: a.settings.Workdir}}, nil
}

// checkHooks reports a file's hooks that cannot run (a bad matcher, an
// empty command), naming the file: every command refuses the config, as
// for any other bad key.
func checkHooks(path string, c hooks.Config) error {
	if len(c) == 0 {
		return nil
	}
	if _, _, err := hooks.Compile(c); err != nil {
		return Usagef("config %s: %v", path, err)
	}
	return nil
}

// input is the part of every hook's stdin that the session gives.
func (h *sessionHooks) input() hooks.Input {
	h.a.perms.mu.Lock()
	mode := h.a.perms.mode
	h.a.perms.mu.Unlock()
	if mode == "" {
		mode = permission.ModeDefault
	}
	return hooks.Input{SessionID: h.a.session.ID(), Cwd: h.a.settings.Workdir, PermissionMode: string(mode)}
}

// toolName is the name hooks see and match a tool by: an MCP tool's
// SERVER__TOOL with the configured server name and the server's own tool
// name, whatever its wire name became (shortened, made unique); a built-in
// tool's name.
func toolName(t tools.Tool) string {
	if t.Server != "" && t.Orig != "" {
		return t.Server + "__" + t.Orig
	}
	return t.Name
}

// tell shows a hook's notes to the user: into the turn when one runs (emit
// or the app's turn stream), else as the run's notices.
func (h *sessionHooks) tell(emit func(agent.Event), notes []string) {
	h.show(emit, notes, true)
}

// show puts texts into the turn when one runs (emit), else among the
// run's notices: as warnings, or as news.
func (h *sessionHooks) show(emit func(agent.Event), texts []string, warning bool) {
	if h == nil {
		return
	}
	typ, keep := agent.EventNotice, h.a.News
	if warning {
		typ, keep = agent.EventWarning, h.a.Notice
	}
	for _, t := range texts {
		if emit != nil {
			emit(agent.Event{Type: typ, Text: t})
			continue
		}
		keep(t)
	}
}

// say gives the user the hooks' systemMessage, named by its event, as
// news: a Stop hook's "tests passed" is no problem, and the chat marked it
// as a warning. -p prints it on stderr as before (print.go).
func (h *sessionHooks) say(emit func(agent.Event), ev hooks.Event, msgs []string) {
	named := make([]string, len(msgs))
	for i, m := range msgs {
		named[i] = string(ev) + " hook: " + m
	}
	h.show(emit, named, false)
}

func (h *sessionHooks) halted(o hooks.Outcome) {
	if !o.Halt {
		return
	}
	h.mu.Lock()
	r := o.StopReason
	h.halt = &r
	h.mu.Unlock()
}

// Halted implements agent.Hooks; reading it clears it.
func (h *sessionHooks) Halted() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.halt == nil {
		return "", false
	}
	r := *h.halt
	h.halt = nil
	return r, true
}

// contextPart labels what a hook adds to the conversation, so the model
// can tell it from what the user typed.
func contextPart(ev hooks.Event, text string) string {
	return string(ev) + " hook context:\n" + text
}

// Prompt implements agent.Hooks: UserPromptSubmit (not for a subagent). Exit 2 or "decision":
// "block" refuses the prompt (the reason is for the user, the prompt is
// not sent); "continue": false too. Its context and SessionStart's still
// pending are added after the text.
func (h *sessionHooks) Prompt(ctx context.Context, text string, emit func(agent.Event)) ([]string, error) {
	if h.a.isSub {
		return nil, nil // a subagent's task is the model's, not the user's prompt
	}
	in := h.input()
	in.Prompt = text
	o := h.r.Run(ctx, hooks.UserPromptSubmit, "", in)
	h.tell(emit, o.Notes)
	h.say(emit, hooks.UserPromptSubmit, o.Messages)
	switch {
	case o.Block:
		return nil, errors.New("the UserPromptSubmit hook blocked the prompt: " + o.Reason)
	case o.Halt:
		msg := "the UserPromptSubmit hook stopped the prompt"
		if o.StopReason != "" {
			msg += ": " + o.StopReason
		}
		return nil, errors.New(msg)
	}
	h.mu.Lock()
	out := h.pending
	h.pending = nil
	h.mu.Unlock()
	for _, c := range o.Context {
		out = append(out, contextPart(hooks.UserPromptSubmit, c))
	}
	return out, nil
}

// toolResponse is a result as hooks read it: an MCP tools/call result.
func toolResponse(r agent.ToolResult) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": r.Text}},
		"isError": r.IsError,
	})
	return b
}

// ToolDone implements agent.Hooks: PostToolUse. Exit 2 or "decision":
// "block" gives its reason to the model with the result (the tool already
// ran); additionalContext is added too.
func (h *sessionHooks) ToolDone(ctx context.Context, c agent.ToolCall, r agent.ToolResult, emit func(agent.Event)) string {
	if !h.r.Hooks.Has(hooks.PostToolUse) {
		return ""
	}
	in := h.input()
	in.ToolName = c.Name
	if t, ok := h.a.session.Tools().Lookup(c.Name); ok {
		in.ToolName = toolName(*t)
	}
	in.ToolInput, in.ToolUseID, in.ToolResponse = c.Input, c.ID, toolResponse(r)
	o := h.r.Run(ctx, hooks.PostToolUse, in.ToolName, in)
	h.tell(emit, o.Notes)
	h.say(emit, hooks.PostToolUse, o.Messages)
	h.halted(o)
	var add []string
	if o.Block {
		add = append(add, "PostToolUse hook: "+o.Reason)
	}
	for _, x := range o.Context {
		add = append(add, contextPart(hooks.PostToolUse, x))
	}
	return strings.Join(add, "\n\n")
}

// Stopping implements agent.Hooks: Stop. Exit 2 or "decision": "block"
// makes the model go on with the reason; "continue": false wins over it.
func (h *sessionHooks) Stopping(ctx context.Context, active bool, last string, emit func(agent.Event)) string {
	// A subagent's end is not the session's (Claude Code has SubagentStop
	// for it, which the agent does not run).
	if !h.r.Hooks.Has(hooks.Stop) || h.a.isSub {
		return ""
	}
	in := h.input()
	in.StopHookActive, in.LastAssistantMessage = &active, last
	o := h.r.Run(ctx, hooks.Stop, "", in)
	h.tell(emit, o.Notes)
	h.say(emit, hooks.Stop, o.Messages)
	h.halted(o)
	if !o.Block || o.Halt {
		return ""
	}
	return "Stop hook: " + o.Reason
}

// Compacting implements agent.Hooks: PreCompact, matched on its trigger.
// Exit 2 or "decision": "block" stops the compaction, the reason said to
// the user.
func (h *sessionHooks) Compacting(ctx context.Context, auto bool, focus string, emit func(agent.Event)) error {
	if !h.r.Hooks.Has(hooks.PreCompact) {
		return nil
	}
	in := h.input()
	in.Trigger = "manual"
	if auto {
		in.Trigger = "auto"
	}
	in.CustomInstructions = &focus
	o := h.r.Run(ctx, hooks.PreCompact, in.Trigger, in)
	h.tell(emit, o.Notes)
	h.say(emit, hooks.PreCompact, o.Messages)
	if o.Block {
		return errors.New("the PreCompact hook blocked the compaction: " + o.Reason)
	}
	return nil
}

// sessionStart runs SessionStart (source: startup, resume, clear or
// compact, after a compaction); its context waits for the next prompt. It
// returns the notes for the user (failures, a block's reason: warnings)
// and the hooks' systemMessage, named by the hook ("SessionStart hook:
// …"), which is news as the other hooks' is (say).
func (h *sessionHooks) sessionStart(ctx context.Context, source string) (notes, msgs []string) {
	if h == nil || !h.r.Hooks.Has(hooks.SessionStart) {
		return nil, nil
	}
	if h.a.opts.NoMCP && source != "compact" {
		// agent sessions compact opens a session to compact it, not to
		// start or resume a conversation.
		return nil, nil
	}
	in := h.input()
	in.Source = source
	_, in.Model = h.a.session.Target()
	o := h.r.Run(ctx, hooks.SessionStart, source, in)
	h.mu.Lock()
	if source == "clear" || source == "resume" {
		// Another session now: what was pending was for the one left.
		h.pending = nil
	}
	for _, c := range o.Context {
		h.pending = append(h.pending, contextPart(hooks.SessionStart, c))
	}
	h.mu.Unlock()
	for _, m := range o.Messages {
		msgs = append(msgs, string(hooks.SessionStart)+" hook: "+m)
	}
	if o.Block && o.Reason != "" {
		// SessionStart cannot block: its stderr is for the user.
		o.Notes = append(o.Notes, "SessionStart hook: "+o.Reason)
	}
	return o.Notes, msgs
}

// startedIdle is started between turns (/clear, /resume, /compact).
func (h *sessionHooks) startedIdle(notes, msgs []string) { h.started(nil, notes, msgs) }

// started tells the user what a SessionStart run between turns or after a
// compaction said: its notes as warnings, its messages as news.
func (h *sessionHooks) started(emit func(agent.Event), notes, msgs []string) {
	h.tell(emit, notes)
	h.show(emit, msgs, false)
}

// preToolUse is the PreToolUse step of the permission path (perms'
// preToolUse), run before the rules: exit 2 denies with stderr as the
// reason the model reads; a JSON permissionDecision decides as it says and
// permission.Combine folds it into the rules' decision; "continue": false
// denies too and ends the turn. No decision is a zero Decision.
func (h *sessionHooks) preToolUse(ctx context.Context, c permission.Call) permission.Decision {
	if !h.r.Hooks.Has(hooks.PreToolUse) {
		return permission.Decision{}
	}
	in := h.input()
	in.ToolName, in.ToolInput, in.ToolUseID = toolName(c.Tool), c.Input, c.ID
	o := h.r.Run(ctx, hooks.PreToolUse, in.ToolName, in)
	h.a.mu.Lock()
	emit := h.a.turnEmit
	h.a.mu.Unlock()
	h.tell(emit, o.Notes)
	h.say(emit, hooks.PreToolUse, o.Messages)
	h.halted(o)
	d := permission.Decision{Source: permission.SourceHook}
	switch {
	case o.Block:
		d.Behavior, d.Reason = permission.Deny, o.Reason
	case o.Halt:
		d.Behavior, d.Reason = permission.Deny, "a PreToolUse hook stopped the turn"
		if o.StopReason != "" {
			d.Reason += ": " + o.StopReason
		}
	case o.Decision != "":
		b, err := permission.ParseBehavior(o.Decision)
		if err != nil {
			return permission.Decision{}
		}
		d.Behavior, d.Reason = b, o.DecisionReason
		if b == permission.Deny && d.Reason == "" {
			d.Reason = "a PreToolUse hook denied this call; do not retry it"
		}
	default:
		return permission.Decision{}
	}
	return d
}
