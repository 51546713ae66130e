// Package hooks runs the user's commands at points of a session, in Claude
// Code's settings format so that its users can bring theirs: a "hooks"
// object {EVENT: [{"matcher", "hooks": [{"type": "command", "command",
// "timeout"}]}]}, JSON on each command's stdin, its exit code and JSON
// stdout read back as Claude Code documents them. It knows neither a
// provider nor the agent's types: the app turns an Outcome into what the
// turn does.
package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Event names a point of a session where hooks run (Claude Code's names).
type Event string

const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SessionStart     Event = "SessionStart"
	PreCompact       Event = "PreCompact"
)

// Events are the events the agent runs hooks at.
var Events = []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, PreCompact}

// DefaultTimeout is a command's timeout when it gives none (Claude Code's).
const DefaultTimeout = 60 * time.Second

// Config is the "hooks" object of a config file: event name → matchers.
type Config map[string][]Matcher

// Matcher is one entry of an event's list: the commands to run when the
// matcher matches (a tool name for the tool events, the source for
// SessionStart, the trigger for PreCompact; the other events ignore it).
type Matcher struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Command `json:"hooks"`
}

// Command is one hook. Only "command" hooks run; Claude Code's other types
// (prompt, http, agent, mcp_tool) are reported and skipped.
type Command struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds (0: DefaultTimeout).
	Timeout float64 `json:"timeout,omitempty"`
	// unknown are the fields of Claude Code's this runner does not honour
	// (async, once, statusMessage…): said once, never silently dropped.
	unknown []string
}

// UnmarshalJSON reads a command, keeping the names of fields it does not
// know so Compile can say they are ignored (a settings file copied from
// Claude Code is not refused for them).
func (c *Command) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("a hook is an object {\"type\": \"command\", \"command\": \"...\", \"timeout\": seconds}: %w", err)
	}
	*c = Command{}
	for k, v := range m {
		var err error
		switch k {
		case "type":
			err = json.Unmarshal(v, &c.Type)
		case "command":
			err = json.Unmarshal(v, &c.Command)
		case "timeout":
			err = json.Unmarshal(v, &c.Timeout)
		default:
			c.unknown = append(c.unknown, k)
		}
		if err != nil {
			return fmt.Errorf("hook field %q: %w", k, err)
		}
	}
	sort.Strings(c.unknown)
	return nil
}

// MarshalJSON writes the fields it knows.
func (c Command) MarshalJSON() ([]byte, error) {
	type plain struct {
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Timeout float64 `json:"timeout,omitempty"`
	}
	return json.Marshal(plain{c.Type, c.Command, c.Timeout})
}

// Concat is the hooks of both layers: a project's hooks run besides the
// user's, never in their place (as Claude Code merges its settings files).
func Concat(a, b Config) Config {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := Config{}
	for _, c := range []Config{a, b} {
		for ev, ms := range c {
			out[ev] = append(slices.Clip(out[ev]), ms...)
		}
	}
	return out
}

// matcher is a compiled matcher: "", "*" match everything; a name made
// only of letters, digits, _ and | is an exact name or a list of them;
// anything else is a regular expression searched in the name (Claude
// Code's rules).
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// Compiled on first use: package init runs on every start, -p and --help too.
var plainMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

func compileMatcher(s string) (matcher, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case plainMatcher().MatchString(s):
		return matcher{names: strings.Split(s, "|")}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, err
	}
	return matcher{re: re}, nil
}

func (m matcher) match(name string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(name)
	}
	return slices.Contains(m.names, name)
}

// usesMatcher says which events filter by the matcher.
func usesMatcher(ev Event) bool {
	return ev == PreToolUse || ev == PostToolUse || ev == SessionStart || ev == PreCompact
}

type entry struct {
	m    matcher
	cmds []Command
}

// Hooks are the compiled hooks of a run, ready to Run. The zero value (or
// nil) runs nothing.
type Hooks struct {
	events map[Event][]entry
}

// Compile checks c and compiles its matchers. An event the agent has no
// such point for, a hook type other than "command" and a field it does not
// honour are warnings (the rest still runs); a bad matcher, an empty
// command or a negative timeout is an error naming where it is.
func Compile(c Config) (*Hooks, []string, error) {
	h := &Hooks{events: map[Event][]entry{}}
	var warnings []string
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ev := Event(name)
		if !slices.Contains(Events, ev) {
			warnings = append(warnings, fmt.Sprintf("hooks.%s is ignored: the agent runs hooks at %s", name, eventList()))
			continue
		}
		for i, m := range c[name] {
			where := fmt.Sprintf("hooks.%s[%d]", name, i)
			cm, err := compileMatcher(m.Matcher)
			if err != nil {
				return nil, warnings, fmt.Errorf("%s: matcher %q is not a regular expression: %v", where, m.Matcher, err)
			}
			if !usesMatcher(ev) {
				cm = matcher{all: true}
			}
			var cmds []Command
			for j, cmd := range m.Hooks {
				at := fmt.Sprintf("%s.hooks[%d]", where, j)
				if len(cmd.unknown) > 0 {
					warnings = append(warnings, fmt.Sprintf("%s: %s ignored (not supported)", at, strings.Join(cmd.unknown, ", ")))
				}
				switch {
				case cmd.Type != "command":
					warnings = append(warnings, fmt.Sprintf("%s: type %q is not supported (only \"command\" hooks run); it is skipped", at, cmd.Type))
					continue
				case strings.TrimSpace(cmd.Command) == "":
					return nil, warnings, fmt.Errorf("%s: \"command\" is empty: give the shell command to run", at)
				case cmd.Timeout < 0:
					return nil, warnings, fmt.Errorf("%s: timeout %v must be a positive number of seconds", at, cmd.Timeout)
				}
				cmds = append(cmds, cmd)
			}
			if len(cmds) > 0 {
				h.events[ev] = append(h.events[ev], entry{m: cm, cmds: cmds})
			}
		}
	}
	return h, warnings, nil
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// Has reports whether any hook is set for ev.
func (h *Hooks) Has(ev Event) bool { return h != nil && len(h.events[ev]) > 0 }

// matching are the commands of ev whose matcher matches name, each command
// once (Claude Code runs identical commands once).
func (h *Hooks) matching(ev Event, name string) []Command {
	if h == nil {
		return nil
	}
	var out []Command
	seen := map[string]bool{}
	for _, e := range h.events[ev] {
		if !e.m.match(name) {
			continue
		}
		for _, c := range e.cmds {
			if !seen[c.Command] {
				seen[c.Command] = true
				out = append(out, c)
			}
		}
	}
	return out
}
