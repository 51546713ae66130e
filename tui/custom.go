package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/sanitize"
)

// Custom commands (/NAME ARGS from the user's or a trusted project's
// command files) come with Info. The TUI offers them in completion and
// /help; running one sends "/NAME ARGS" as the turn, which the backend
// expands. A built-in command of the same name wins, with one warning.

// CommandInfo is one custom command.
type CommandInfo struct {
	Name         string // without the "/"
	Description  string
	ArgumentHint string
	// Source is where it comes from: "user", "project", "project:frontend".
	Source string
	Path   string
}

// builtin reports whether name ("/x") is one of the TUI's own commands.
func builtin(name string) bool {
	return slices.Contains(commandNames(), name) || name == "/resume"
}

// outside names what does a TUI command's work from the shell, for -p's
// refusal of the command (BuiltinCommand).
var outside = map[string]string{
	"/model":    "--model NAME",
	"/agent":    "--agent NAME",
	"/tools":    "agent tools",
	"/search":   "agent tools search QUERY",
	"/sessions": "agent sessions, then --resume ID",
	"/resume":   "--resume ID or --continue",
	"/compact":  "agent sessions compact ID",
	"/mcp":      "agent mcp",
	"/help":     "agent --help",
	"/cost":     "--output-format json (its usage and total_cost_usd)",
}

// BuiltinCommand reports whether name ("/help") is one of the TUI's own
// commands, and what does its work outside the TUI ("" when nothing does):
// -p does not run them and says so.
func BuiltinCommand(name string) (instead string, ok bool) {
	if !builtin(name) {
		return "", false
	}
	return outside[name], true
}

// customCommands are the custom commands a built-in does not hide.
func (m *Model) customCommands() []CommandInfo {
	var out []CommandInfo
	for _, c := range m.status.info.Commands {
		if !builtin("/" + c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// customCommand returns the custom command name ("/x") calls.
func (m *Model) customCommand(name string) (CommandInfo, bool) {
	for _, c := range m.customCommands() {
		if "/"+c.Name == name {
			return c, true
		}
	}
	return CommandInfo{}, false
}

// warnShadowed says once of each custom command a built-in hides.
func (m *Model) warnShadowed() {
	for _, c := range m.status.info.Commands {
		if !builtin("/"+c.Name) || m.shadowWarned[c.Name] {
			continue
		}
		if m.shadowWarned == nil {
			m.shadowWarned = map[string]bool{}
		}
		m.shadowWarned[c.Name] = true
		m.chat.notice(itemWarning, sanitize.Line(fmt.Sprintf("custom command /%s (%s) is hidden by the built-in /%s: rename its file", c.Name, c.Path, c.Name)))
	}
}

// customHelp is /help's list of custom commands.
func (m *Model) customHelp(col int) string {
	cs := m.customCommands()
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Custom commands\n")
	for _, c := range cs {
		use := "/" + c.Name
		if c.ArgumentHint != "" {
			use += " " + c.ArgumentHint
		}
		fmt.Fprintf(&b, "  %-*s %s (%s)\n", col, sanitize.Line(use), sanitize.Line(c.Description), sanitize.Line(c.Source))
	}
	return b.String()
}

// customNames are the custom commands' names, for completion.
func (m *Model) customNames() []string {
	var out []string
	for _, c := range m.customCommands() {
		out = append(out, "/"+c.Name)
	}
	return out
}
