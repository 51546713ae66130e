package agent

import (
	"context"
	"errors"
)

// ErrBlocked is the kind of a turn a hook refused before it started (a
// UserPromptSubmit hook): nothing was added to the history, and the
// error's text is the hook's reason, for the user.
var ErrBlocked = errors.New("blocked by a hook")

// Hooks are the user's commands at points of a turn (the app runs them,
// package hooks). Each method is told the turn's emit, for what the user
// should read (a warning); nil Hooks run nothing. A PreToolUse hook is not
// here: it decides a call with the permission rules, before the agent
// sees the decision.
type Hooks interface {
	// Prompt is called before the user's text joins the history. An error
	// refuses the turn, nothing added; the strings are context added to
	// the user's message after the text.
	Prompt(ctx context.Context, text string, emit func(Event)) ([]string, error)
	// ToolDone is called after a tool ran without error; what it returns
	// is added to the result the model reads ("" for nothing).
	ToolDone(ctx context.Context, c ToolCall, r ToolResult, emit func(Event)) string
	// Stopping is called when the model ends the turn with last as its
	// answer; active says a Stopping answer already made this turn go on.
	// A non-empty answer is given to the model and the turn goes on.
	Stopping(ctx context.Context, active bool, last string, emit func(Event)) string
	// Compacting is called before a compaction (auto: the context window
	// share triggered it; focus is what /compact was given); an error
	// stops the compaction.
	Compacting(ctx context.Context, auto bool, focus string, emit func(Event)) error
	// Halted reports that a hook of this turn said to stop ("continue":
	// false): the turn ends after the step in progress, its reason told
	// to the user.
	Halted() (reason string, halted bool)
}
