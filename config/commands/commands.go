// Package commands loads custom slash commands: Markdown files NAME.md in
// the user's commands directory (~/.config/agent/commands) and the
// project's (.agent/commands), with optional YAML front matter
// (description, argument-hint, model, allowed-tools) as Claude Code
// writes them. A file in a subdirectory is still /NAME; its directory is
// its namespace, shown beside its description ("project:frontend"), as in
// Claude Code. The body is the prompt, with $ARGUMENTS and $1, $2, …
// replaced by what follows the command.
//
// A bad file is one error naming the file and line; the others still load.
package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agent-dev/agent/config"
)

// Where a command came from.
const (
	SourceUser    = "user"
	SourceProject = "project"
)

// Command is one custom command.
type Command struct {
	Name         string // what follows the "/"
	Description  string
	ArgumentHint string
	// Model, when set, is the model of the command's turn (NAME or
	// PROVIDER:NAME, as /model takes it).
	Model string
	// AllowedTools are tool patterns (as require_approval takes them) the
	// command's turn may call without asking.
	AllowedTools []string
	Body         string
	Path         string
	Source       string // SourceUser or SourceProject
	Namespace    string // the subdirectory, "" at the top
}

// Label is where the command comes from, as /help shows it:
// "user", "project", "project:frontend".
func (c Command) Label() string {
	if c.Namespace == "" {
		return c.Source
	}
	return c.Source + ":" + c.Namespace
}

// Set is every command found, by name, with what went wrong on the way.
type Set struct {
	byName map[string]Command
	// Errors are bad files (one line each); Warnings name the commands a
	// command of the same name hides.
	Errors   []error
	Warnings []string
}

// Dirs are where command files are looked for; "" skips one.
type Dirs struct {
	User    string // ~/.config/agent/commands
	Project string // <workdir>/.agent/commands (trusted directories only)
}

// Load reads the user's then the project's directory. On a name both
// have, the user's wins: a cloned project cannot replace a command the
// user relies on. Missing directories are fine.
func Load(d Dirs) *Set {
	s := &Set{byName: map[string]Command{}}
	for _, dir := range []struct{ path, source string }{{d.User, SourceUser}, {d.Project, SourceProject}} {
		if dir.path == "" {
			continue
		}
		var files []string
		err := filepath.WalkDir(dir.path, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.Errors = append(s.Errors, fmt.Errorf("read custom commands in %s: %w", dir.path, err))
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				s.Errors = append(s.Errors, fmt.Errorf("read custom command %s: %w", f, err))
				continue
			}
			c, err := Parse(f, b)
			if err != nil {
				s.Errors = append(s.Errors, err)
				continue
			}
			c.Source = dir.source
			if ns, _ := filepath.Rel(dir.path, filepath.Dir(f)); ns != "." {
				c.Namespace = filepath.ToSlash(ns)
			}
			if old, ok := s.byName[c.Name]; ok {
				s.Warnings = append(s.Warnings, fmt.Sprintf("custom command /%s of %s is not used: /%s of %s has the name already; rename one", c.Name, f, c.Name, old.Path))
				continue
			}
			s.byName[c.Name] = c
		}
	}
	return s
}

// List returns the commands sorted by name.
func (s *Set) List() []Command {
	if s == nil {
		return nil
	}
	out := make([]Command, 0, len(s.byName))
	for _, c := range s.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Find returns the command called name.
func (s *Set) Find(name string) (Command, bool) {
	if s == nil {
		return Command{}, false
	}
	c, ok := s.byName[name]
	return c, ok
}

// Error is a bad command file: the file, the line and the field.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: custom command: field %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: custom command: %s", loc, e.Msg)
}

// nameRE is a command's name: no ":", which names an MCP server's prompt
// (/SERVER:PROMPT), and nothing a terminal would interpret.
// Compiled on first use: package init runs on every start, -p and --help too.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// ignored are Claude Code front matter fields that mean nothing here (the
// model never runs a command by itself): accepted, so its files load.
var ignored = map[string]bool{"disable-model-invocation": true}

// Parse reads one command file. The name is the file's.
func Parse(file string, b []byte) (Command, error) {
	c := Command{Name: strings.TrimSuffix(filepath.Base(file), ".md"), Path: file}
	fail := func(line int, field, msg string) (Command, error) {
		return Command{}, &Error{File: file, Line: line, Field: field, Msg: msg}
	}
	if !nameRE().MatchString(c.Name) {
		return fail(0, "", "the file name must be letters, digits, '.', '_' or '-' (it is the command's name)")
	}
	front, body, has, closed := config.SplitFrontMatter(b)
	if !closed {
		return fail(1, "", "the front matter opened with --- is never closed by a --- line")
	}
	c.Body = strings.TrimSpace(body)
	front = c.rawHint(front)
	if has && strings.TrimSpace(front) != "" {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
			line, msg := config.YAMLErrLine(err)
			return fail(line+1, "", "front matter is not valid YAML: "+msg)
		}
		n := &yaml.Node{Kind: yaml.MappingNode}
		if len(doc.Content) > 0 {
			n = doc.Content[0]
		}
		if n.Kind != yaml.MappingNode {
			return fail(n.Line+1, "", "the front matter must be fields (name: value)")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			str := func(dst *string) error {
				if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
					_, err := fail(v.Line+1, k.Value, "must be a string")
					return err
				}
				*dst = strings.TrimSpace(v.Value)
				return nil
			}
			var err error
			switch k.Value {
			case "description":
				err = str(&c.Description)
			case "argument-hint":
				err = str(&c.ArgumentHint)
			case "model":
				err = str(&c.Model)
			case "allowed-tools":
				c.AllowedTools, err = toolList(v, func(msg string) error { _, e := fail(v.Line+1, k.Value, msg); return e })
			default:
				if !ignored[k.Value] {
					_, err = fail(k.Line+1, k.Value, "unknown field: use description, argument-hint, model or allowed-tools")
				}
			}
			if err != nil {
				return Command{}, err
			}
		}
	}
	if c.Body == "" {
		return fail(0, "", "the file has no prompt after its front matter")
	}
	if c.Description == "" {
		// As Claude Code does: the prompt's first line.
		line, _, _ := strings.Cut(c.Body, "\n")
		c.Description = strings.TrimSpace(strings.TrimLeft(line, "# "))
	}
	return c, nil
}

// rawHint takes argument-hint's value as written: Claude Code's own
// examples write "argument-hint: [pr-number] [priority]", which YAML does
// not read. The line stays, as a comment, so the lines keep their numbers.
func (c *Command) rawHint(front string) string {
	lines := strings.Split(front, "\n")
	for i, l := range lines {
		v, ok := strings.CutPrefix(l, "argument-hint:")
		v = strings.TrimSpace(v)
		if !ok || v == "" || strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'") {
			continue
		}
		c.ArgumentHint, lines[i] = v, "#"
	}
	return strings.Join(lines, "\n")
}

// toolList reads allowed-tools: a list, or one string of names separated
// by commas or spaces (Claude Code writes both).
func toolList(v *yaml.Node, bad func(string) error) ([]string, error) {
	var out []string
	switch v.Kind {
	case yaml.ScalarNode:
		out = strings.FieldsFunc(v.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	case yaml.SequenceNode:
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || strings.TrimSpace(e.Value) == "" {
				return nil, bad("must be a list of tool names or patterns")
			}
			out = append(out, strings.TrimSpace(e.Value))
		}
	default:
		return nil, bad("must be a list of tool names or patterns")
	}
	return out, nil
}

// Expand is the prompt of the command run with args: $ARGUMENTS is args
// as typed, $1, $2, … its words (quotes group words; a missing one is
// empty). A body that uses none of them gets the arguments after it, so
// nothing typed is lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := splitArgs(args)
	used := false
	out := argRE().ReplaceAllStringFunc(c.Body, func(m string) string {
		used = true
		if m == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(m[1:])
		if n >= 1 && n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

var argRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$ARGUMENTS|\$[1-9][0-9]*`) })

// splitArgs splits args into words as a shell would for plain words and
// quotes: "a b" and 'a b' are one word.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Call splits "/NAME args" into the name and the arguments; ok is false
// when text is not a command's call.
func Call(text string) (name, args string, ok bool) {
	t := strings.TrimLeft(text, " \t\n")
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	name = t[1:]
	if i := strings.IndexAny(name, " \t\n"); i >= 0 {
		name, args = name[:i], name[i+1:]
	}
	if !nameRE().MatchString(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}
