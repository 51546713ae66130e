package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/commands"
	"github.com/agent-dev/agent/internal/suggest"
	"github.com/agent-dev/agent/tools/permission"
)

// Custom commands: /NAME ARGS, where NAME.md is a file of the user's
// commands directory or of a trusted project's .agent/commands, runs the
// file's prompt as the turn (config/commands reads and expands it). Send
// expands them, so the TUI and -p behave alike; the TUI's own commands
// take precedence over a custom one of the same name there.
//
// A command's model is the model of its turn only. Its allowed-tools are
// tools its turn may call without asking: they lift require_approval for
// that turn as allow rules would (allowFor, around the session's Permit).
// A project's command cannot relax the user's approvals (as a project's
// config cannot): its allowed-tools are ignored, with a warning.

// loadCommands reads the user's commands, and the project's when project.
func loadCommands(s Settings, project bool) *commands.Set {
	var d commands.Dirs
	if dir := config.UserDir(); dir != "" {
		d.User = filepath.Join(dir, "commands")
	}
	if project {
		d.Project = filepath.Join(s.Project.Dir, ".agent", "commands")
	}
	return commands.Load(d)
}

// commandWarnings are the bad command files and the hidden commands, one
// line each.
func commandWarnings(s *commands.Set) []string {
	var out []string
	for _, err := range s.Errors {
		out = append(out, err.Error())
	}
	return append(out, s.Warnings...)
}

// Commands lists the custom commands, sorted by name.
func (a *App) Commands() []commands.Command {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commands.List()
}

// commandTurn expands text when it calls a custom command: the prompt the
// turn sends, and undo, which takes back what the command's front matter
// changed of the session for its turn (model, allowed-tools). warn is
// said in the turn. Text that calls no custom command is returned as is.
func (a *App) commandTurn(text string) (prompt string, undo func(), warn []string, err error) {
	undo = func() {}
	a.mu.Lock()
	a.cmdNamed.adapter, a.cmdNamed.label = "", ""
	a.mu.Unlock()
	// Only at the text's first byte: a blank before the "/" sends the text
	// as typed, in -p and the TUI alike (the README's way to send
	// "/help" to the model).
	if !strings.HasPrefix(text, "/") {
		return text, undo, nil, nil
	}
	name, args, ok := commands.Call(text)
	if !ok {
		return text, undo, nil, nil
	}
	a.mu.Lock()
	c, found := a.commands.Find(name)
	a.mu.Unlock()
	if !found {
		return text, undo, nil, nil
	}
	prompt = c.Expand(args)
	var p agent.Provider
	var prov, model string
	if c.Model != "" {
		if prov, model, err = a.checkModel(c.Model); err == nil {
			p, err = a.providerFor(prov)
		}
		if err != nil {
			return "", undo, nil, fmt.Errorf("custom command /%s (%s): model %s: %w", c.Name, c.Path, c.Model, err)
		}
	}
	var allow []string
	if len(c.AllowedTools) > 0 {
		if c.Source == commands.SourceProject {
			warn = append(warn, fmt.Sprintf("allowed-tools of /%s (%s) is ignored: a project's command cannot relax your approvals; copy it to %s to allow them",
				c.Name, c.Path, filepath.Join(config.UserDir(), "commands")))
		} else {
			for _, pat := range c.AllowedTools {
				if err := permission.Check("allowed-tools", pat); err != nil {
					return "", undo, nil, fmt.Errorf("custom command /%s (%s): %w", c.Name, c.Path, err)
				}
			}
			allow = c.AllowedTools
		}
	}
	if p == nil && allow == nil {
		return prompt, undo, warn, nil
	}
	var saved agent.TurnContext
	label := a.Provider()
	if err := a.session.Override(func(tc *agent.TurnContext) {
		saved = *tc
		if p != nil {
			tc.Provider, tc.Model = p, model
		}
		if allow != nil {
			tc.Permit = allowFor(c.Name, allow, tc.Permit)
		}
	}); err != nil {
		return "", undo, nil, err
	}
	if p != nil {
		a.mu.Lock()
		a.label = prov
		a.cmdNamed.adapter, a.cmdNamed.label = p.Name(), prov
		a.mu.Unlock()
	}
	var once sync.Once
	undo = func() { once.Do(a.undoCommand(saved, label)) }
	return prompt, undo, warn, nil
}

// turnTarget is the provider and model a turn of text would run on: the
// model: of the custom command it calls, else the session's (stream-json's
// init names them before the turn begins, and must agree with the
// result's). The provider is "" for the session's, else the command's as
// it names it.
func (a *App) turnTarget(text string) (provider, model string) {
	_, model = a.session.Target()
	name, _, ok := commands.Call(text)
	if !ok || !strings.HasPrefix(text, "/") {
		return "", model
	}
	a.mu.Lock()
	c, found := a.commands.Find(name)
	a.mu.Unlock()
	if !found || c.Model == "" {
		return "", model
	}
	prov, m, err := a.checkModel(c.Model)
	if err != nil {
		return "", model // the turn fails, saying why, on no model
	}
	if prov == a.Provider() {
		prov = ""
	}
	return prov, m
}

// undoCommand puts back the model and approvals a command's turn changed.
func (a *App) undoCommand(saved agent.TurnContext, label string) func() {
	return func() {
		_ = a.session.Override(func(tc *agent.TurnContext) {
			tc.Provider, tc.Model, tc.Permit = saved.Provider, saved.Model, saved.Permit
		})
		a.mu.Lock()
		a.label = label
		a.mu.Unlock()
	}
}

// allowFor is next with a command's allowed-tools as allow rules for its
// turn: a call require_approval would ask about runs when a pattern names
// it. What an allow rule cannot override stays: a deny (a rule's, plan
// mode's, a hook's), an explicit ask rule, a hook's ask.
func allowFor(name string, patterns []string, next permission.Func) permission.Func {
	return func(ctx context.Context, c permission.Call) permission.Decision {
		d := permission.Decision{Behavior: permission.Allow, Source: permission.SourceDefault}
		if next != nil {
			d = next(ctx, c)
		}
		if d.Behavior != permission.Ask || d.Source != permission.SourceRequireApproval {
			return d
		}
		for _, p := range patterns {
			if permission.Match(p, c.Tool) {
				return permission.Decision{Behavior: permission.Allow, Source: permission.SourceRule, Rule: p,
					Reason: "allowed-tools of /" + name}
			}
		}
		return d
	}
}

// UnknownCommandError is -p's refusal of text of a command's shape
// (/NAME ARGS, config/commands.Call) that calls no custom command: the TUI
// says "unknown command" for it, and -p sent it to the model as a prompt.
// Near is the custom command it looks like a typo of; Untrusted says the
// project has a command of that name, unused until the project is trusted.
// Interactive says it is one of the TUI's own commands (/help, /model),
// which -p does not run; Instead is what does its work outside the TUI,
// when something does ("agent tools").
type UnknownCommandError struct {
	Name, Near  string
	Untrusted   bool
	Interactive bool
	Instead     string
}

func (e *UnknownCommandError) Error() string {
	// The way around it: neither CheckCommand nor commandTurn reads a
	// command after a leading blank.
	send := fmt.Sprintf(`to send it as a prompt, start it with a space: -p " /%s ..."`, e.Name)
	switch {
	case e.Interactive && e.Instead != "":
		return fmt.Sprintf("/%s is a command of the interactive UI (run agent without -p), not of -p: use %s; %s", e.Name, e.Instead, send)
	case e.Interactive:
		return fmt.Sprintf("/%s is a command of the interactive UI (run agent without -p), not of -p; %s", e.Name, send)
	case e.Untrusted:
		return fmt.Sprintf("/%s is a command of this project, which is not trusted: review .agent/commands, then run `agent trust` (or pass --trust); %s", e.Name, send)
	case e.Near != "":
		return fmt.Sprintf("unknown command /%s: did you mean /%s? (%s)", e.Name, e.Near, send)
	}
	return fmt.Sprintf("unknown command /%s: no custom command has that name (%s)", e.Name, send)
}

// CheckCommand refuses text that starts with a command that does not
// exist, as the TUI does, instead of sending it to the model. Text that is
// not of a command's shape goes as typed: a path ("/etc/hosts is ..."), an
// MCP server's prompt (/SERVER:PROMPT, which promptTurn reads once the
// servers are up), anything after a leading blank.
func (a *App) CheckCommand(text string) error {
	if !strings.HasPrefix(text, "/") {
		return nil
	}
	name, _, ok := commands.Call(text)
	if !ok {
		return nil
	}
	a.mu.Lock()
	_, found := a.commands.Find(name)
	list := a.commands.List()
	a.mu.Unlock()
	if found {
		return nil
	}
	e := &UnknownCommandError{Name: name}
	names := make([]string, 0, len(list))
	for _, c := range list {
		names = append(names, c.Name)
	}
	e.Near = suggest.Nearest(name, names)
	e.Untrusted = a.UntrustedCommand(name)
	return &UsageError{e}
}

// UntrustedCommand reports whether name ("review") is a custom command of
// this project that is not used because the project is not trusted: -p
// and the TUI say so instead of "unknown command".
func (a *App) UntrustedCommand(name string) bool {
	if a.settings.Project.Dir == "" {
		return false
	}
	a.mu.Lock()
	_, found := a.commands.Find(name)
	a.mu.Unlock()
	if found {
		return false
	}
	// Read again only on this path: Open left out an untrusted project's
	// commands.
	_, ok := commands.Load(commands.Dirs{Project: filepath.Join(a.settings.Project.Dir, ".agent", "commands")}).Find(name)
	return ok
}
