package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Input is what a hook reads on stdin: Claude Code's field names, each
// where the event has it.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  Event  `json:"hook_event_name"`
	// PreToolUse, PostToolUse: MCP tools by their SERVER__TOOL name.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// SessionStart: startup, resume or clear; and the model.
	Source string `json:"source,omitempty"`
	Model  string `json:"model,omitempty"`
	// PreCompact: manual or auto, and the focus given to /compact.
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	// Stop: whether a Stop hook already made this turn go on.
	StopHookActive       *bool  `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
}

// Outcome is what the hooks of one event came to, all of them together.
type Outcome struct {
	// Block: a hook exited 2 or decided "block" (PreToolUse: "deny").
	// Reason is its stderr or reason: for the model (PreToolUse,
	// PostToolUse, Stop) or the user (UserPromptSubmit, PreCompact).
	Block  bool
	Reason string
	// Decision is a PreToolUse hook's permissionDecision: "allow", "ask",
	// "deny" or "" (none); the most restrictive of the hooks wins.
	Decision       string
	DecisionReason string
	// Context is what goes to the model besides: additionalContext, and a
	// UserPromptSubmit or SessionStart hook's plain stdout.
	Context []string
	// Halt: a hook said "continue": false; StopReason is for the user.
	Halt       bool
	StopReason string
	// Notes are warnings for the user: failures, timeouts.
	Notes []string
	// Messages are the hooks' systemMessage: for the user too, but news,
	// not a problem (the front ends do not mark them as warnings).
	Messages []string
}

// output is a hook's JSON stdout (Claude Code's fields).
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	// Decision is "block" (PostToolUse, Stop, UserPromptSubmit,
	// PreCompact), or PreToolUse's older "approve"/"block".
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific *struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// maxOutput bounds what is read of a hook's stdout and stderr each.
const maxOutput = 1 << 20

// Runner runs hooks in a directory (the session's), with the environment
// of the agent plus CLAUDE_PROJECT_DIR and AGENT_PROJECT_DIR.
type Runner struct {
	Hooks *Hooks
	Dir   string
	// Env is the base environment (nil: the process's).
	Env []string
}

// Run runs the hooks of ev whose matcher matches name, in parallel, with
// in on their stdin, and folds their answers. It returns when every one
// has ended, been killed at its timeout, or ctx is done (then each is
// killed with its process group).
func (r *Runner) Run(ctx context.Context, ev Event, name string, in Input) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	cmds := r.Hooks.matching(ev, name)
	if len(cmds) == 0 {
		return out
	}
	in.HookEventName = ev
	if in.Cwd == "" {
		in.Cwd = r.Dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("%s hook: %v", ev, err))
		return out
	}
	results := make([]result, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.exec(ctx, c, stdin)
		}()
	}
	wg.Wait()
	for i, res := range results {
		fold(&out, ev, cmds[i], res)
	}
	return out
}

// result is one command's run.
type result struct {
	code           int
	stdout, stderr []byte
	timedOut       bool
	err            error // could not start, or was cancelled
}

func (r *Runner) exec(ctx context.Context, c Command, stdin []byte) result {
	timeout := DefaultTimeout
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout * float64(time.Second))
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "/bin/sh", "-c", c.Command)
	cmd.Dir = r.Dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...), "CLAUDE_PROJECT_DIR="+r.Dir, "AGENT_PROJECT_DIR="+r.Dir)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ownGroup(cmd)
	// A command whose children keep its pipes open (cmd & exit) does not
	// hold the turn: the pipes are closed a moment after it is killed.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res := result{stdout: stdout.b.Bytes(), stderr: stderr.b.Bytes()}
	var ee *exec.ExitError
	switch {
	case tctx.Err() != nil && ctx.Err() == nil:
		res.timedOut = true
	case ctx.Err() != nil:
		res.err = ctx.Err()
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		res.err = err
	}
	return res
}

// capped keeps the first maxOutput bytes written to it and drops the rest,
// so a chatty hook cannot fill memory (nor block on a full pipe).
type capped struct{ b bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

var _ io.Writer = (*capped)(nil)

// contextEvents are the events whose plain stdout goes to the model.
func contextEvent(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart }

// fold adds one command's answer to out, as Claude Code reads it: exit 2
// blocks with stderr; exit 0 with a JSON object decides; another code is a
// failure the user is told of and the session goes on.
func fold(out *Outcome, ev Event, c Command, res result) {
	label := fmt.Sprintf("%s hook %q", ev, short(c.Command))
	errText := strings.TrimSpace(string(res.stderr))
	switch {
	case res.timedOut:
		t := DefaultTimeout
		if c.Timeout > 0 {
			t = time.Duration(c.Timeout * float64(time.Second))
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s timed out after %s and was stopped; the session goes on", label, t))
		return
	case res.err != nil && errors.Is(res.err, context.Canceled):
		out.Notes = append(out.Notes, fmt.Sprintf("%s was stopped: the turn was cancelled", label))
		return
	case res.err != nil:
		out.Notes = append(out.Notes, fmt.Sprintf("%s did not run: %v", label, res.err))
		return
	case res.code == 2:
		out.Block = true
		if errText == "" {
			errText = fmt.Sprintf("blocked by the %s hook %q (it exited 2 and said nothing on stderr)", ev, short(c.Command))
		}
		out.Reason = join(out.Reason, errText)
		return
	case res.code != 0:
		note := fmt.Sprintf("%s failed (exit %d)", label, res.code)
		if errText != "" {
			note += ": " + firstLine(errText)
		}
		out.Notes = append(out.Notes, note)
		return
	}
	text := strings.TrimSpace(string(res.stdout))
	if !strings.HasPrefix(text, "{") {
		if text != "" && contextEvent(ev) {
			out.Context = append(out.Context, text)
		}
		return
	}
	var o output
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		if contextEvent(ev) {
			out.Context = append(out.Context, text)
		} else {
			out.Notes = append(out.Notes, fmt.Sprintf("%s printed JSON that could not be read: %v", label, err))
		}
		return
	}
	if o.SystemMessage != "" {
		out.Messages = append(out.Messages, o.SystemMessage)
	}
	if o.Continue != nil && !*o.Continue {
		out.Halt = true
		out.StopReason = join(out.StopReason, o.StopReason)
	}
	if sp := o.Specific; sp != nil {
		if sp.AdditionalContext != "" {
			out.Context = append(out.Context, sp.AdditionalContext)
		}
		if ev == PreToolUse && sp.PermissionDecision != "" {
			decide(out, label, sp.PermissionDecision, sp.PermissionDecisionReason)
		}
	}
	switch {
	case ev == PreToolUse && o.Decision == "approve":
		decide(out, label, "allow", o.Reason)
	case ev == PreToolUse && o.Decision == "block":
		decide(out, label, "deny", o.Reason)
	case o.Decision == "block":
		out.Block = true
		reason := o.Reason
		if reason == "" {
			reason = fmt.Sprintf("blocked by the %s hook %q", ev, short(c.Command))
		}
		out.Reason = join(out.Reason, reason)
	case o.Decision != "" && o.Decision != "approve":
		out.Notes = append(out.Notes, fmt.Sprintf("%s: decision %q is not one of block (or, for PreToolUse, approve); ignored", label, o.Decision))
	}
}

// rank orders permission decisions: deny wins over ask, ask over allow.
var rank = map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}

func decide(out *Outcome, label, d, reason string) {
	if _, ok := rank[d]; !ok || d == "" {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: permissionDecision %q is not allow, ask or deny; ignored", label, d))
		return
	}
	switch {
	case rank[d] > rank[out.Decision]:
		out.Decision, out.DecisionReason = d, reason
	case d == out.Decision:
		out.DecisionReason = join(out.DecisionReason, reason)
	}
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return short(line)
}

// short keeps a command or line readable in a one-line note.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
