// Package agents loads agent profiles: a model, its tools and servers with
// their deferral, provider tools and instructions under one name. A profile
// is a Markdown file with YAML front matter, NAME.md, in the project's
// .agent/agents/ or the user's ~/.config/agent/agents/ (the project's wins),
// or an entry of the config file's "agents" object; the Markdown body (or the
// entry's "prompt") is the system prompt.
//
// A bad profile is one line naming the file, the line and the field, so the
// user can go straight to it.
package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agent-dev/agent/config"
)

// Where a profile came from, lowest precedence first.
const (
	SourceConfig  = "config"
	SourceUser    = "user"
	SourceProject = "project"
)

// Profile is one named agent. Empty fields leave the run's own settings
// alone. Its settings are config keys (those declared with the profile
// tag, under the same names); the rest says which servers and tools.
type Profile struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	config.Config
	// MCP names the servers to connect (presets or configured servers).
	MCP []string `json:"mcp,omitempty"`
	// Defer is "", "true", "false" or "auto"; DeferTools, when set, lists
	// the tool names or glob patterns to defer instead of every tool.
	Defer      string   `json:"defer,omitempty"`
	DeferTools []string `json:"defer_tools,omitempty"`
	// Tools is an allow list of tool-name glob patterns (or "server:NAME"):
	// a tool matching none is not offered at all, active or deferred.
	// Deny (Claude Code's disallowedTools) takes tools out of what Tools
	// lets in.
	Tools []string `json:"tools,omitempty"`
	Deny  []string `json:"disallowed_tools,omitempty"`
	// Subagent makes the profile callable by another session's model,
	// through its run_agent tool (app/subagent.go).
	Subagent bool `json:"subagent,omitempty"`
	// Source is SourceProject, SourceUser or SourceConfig; Path the file.
	Source string `json:"source"`
	Path   string `json:"path"`
}

// Dirs are where profile files are looked for.
type Dirs struct {
	Project string // <workdir>/.agent/agents
	User    string // ~/.config/agent/agents
}

// DefaultDirs is the project directory under workdir and the user's
// directory under the user config directory.
func DefaultDirs(workdir string) Dirs {
	d := Dirs{Project: filepath.Join(workdir, ".agent", "agents")}
	if cfg, err := os.UserConfigDir(); err == nil {
		d.User = filepath.Join(cfg, "agent", "agents")
	}
	return d
}

// Set is every profile found, by name, with the problems met on the way.
type Set struct {
	byName map[string]Profile
	// Errors holds one error per bad profile; the good ones still load.
	Errors []error
}

// Load reads the config file's "agents" object (configPath may be ""),
// then the user's and the project's directories; a later source replaces a
// profile of the same name. Missing directories and files are fine.
func Load(dirs Dirs, configPath string) *Set {
	s := &Set{byName: map[string]Profile{}}
	if configPath != "" {
		if b, err := os.ReadFile(configPath); err == nil {
			ps, errs := ParseConfig(configPath, b)
			s.Errors = append(s.Errors, errs...)
			for _, p := range ps {
				s.byName[p.Name] = p
			}
		}
	}
	for _, d := range []struct{ dir, source string }{{dirs.User, SourceUser}, {dirs.Project, SourceProject}} {
		if d.dir == "" {
			continue
		}
		ents, err := os.ReadDir(d.dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.Errors = append(s.Errors, fmt.Errorf("read agent profiles in %s: %w", d.dir, err))
			}
			continue
		}
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			file := filepath.Join(d.dir, e.Name())
			b, err := os.ReadFile(file)
			if err != nil {
				s.Errors = append(s.Errors, fmt.Errorf("read agent profile %s: %w", file, err))
				continue
			}
			p, err := ParseFile(file, b)
			if err != nil {
				s.Errors = append(s.Errors, err)
				continue
			}
			p.Source = d.source
			s.byName[p.Name] = p
		}
	}
	return s
}

// List returns the profiles sorted by name.
func (s *Set) List() []Profile {
	out := make([]Profile, 0, len(s.byName))
	for _, p := range s.byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Find returns the profile called name. When it is missing, the error says
// why: its file is bad (that file's error), or which profiles exist.
func (s *Set) Find(name string) (Profile, error) {
	if p, ok := s.byName[name]; ok {
		return p, nil
	}
	for _, err := range s.Errors {
		var pe *Error
		if errors.As(err, &pe) && pe.Profile == name {
			return Profile{}, err
		}
	}
	var names []string
	for _, p := range s.List() {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return Profile{}, fmt.Errorf("no agent profile %q: add .agent/agents/%s.md (YAML front matter, then the system prompt)", name, name)
	}
	return Profile{}, fmt.Errorf("no agent profile %q: the profiles are %s (agent agents lists them)", name, strings.Join(names, ", "))
}

// Error is a bad profile: the file, the line and the field.
type Error struct {
	File    string
	Line    int
	Field   string
	Profile string
	Msg     string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: agent profile %s: field %s: %s", loc, e.Profile, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: agent profile %s: %s", loc, e.Profile, e.Msg)
}

// Compiled on first use: package init runs on every start, -p and --help too.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// ParseFile reads one profile file: "---", YAML front matter, "---", then
// the Markdown body, which is the system prompt. The name is the file's.
func ParseFile(file string, b []byte) (Profile, error) {
	name := strings.TrimSuffix(filepath.Base(file), ".md")
	p := Profile{Name: name, Source: SourceProject, Path: file}
	fail := func(line int, field, msg string) (Profile, error) {
		return Profile{}, &Error{File: file, Line: line, Field: field, Profile: name, Msg: msg}
	}
	if !nameRE().MatchString(name) {
		return fail(0, "", "the file name must be letters, digits, '.', '_' or '-' (it names the agent)")
	}
	front, body, has, closed := config.SplitFrontMatter(b)
	if !has {
		// No front matter: the whole file is the prompt.
		p.System = strings.TrimSpace(body)
		return p, nil
	}
	if !closed {
		return fail(1, "", "the front matter opened with --- is never closed by a --- line")
	}
	p.System = strings.TrimSpace(body)
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		line, msg := config.YAMLErrLine(err)
		return fail(line+1, "", "front matter is not valid YAML: "+msg)
	}
	if len(doc.Content) == 0 {
		return p, nil
	}
	if err := fields(&p, doc.Content[0], 1, false); err != nil {
		err.File, err.Profile = file, name
		return Profile{}, err
	}
	return p, nil
}

// ParseConfig reads the "agents" object of a config file. JSON is YAML, so
// the file is read as YAML to know each field's line; an entry's "prompt"
// (or "system") is its system prompt.
func ParseConfig(file string, b []byte) ([]Profile, []error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return parseConfigJSON(file, b)
	}
	root := doc.Content[0]
	var agents *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "agents" {
			agents = root.Content[i+1]
		}
	}
	if agents == nil {
		return nil, nil
	}
	if agents.Kind != yaml.MappingNode {
		return nil, []error{&Error{File: file, Line: agents.Line, Field: "agents", Msg: "must be an object of profiles by name"}}
	}
	var out []Profile
	var errs []error
	for i := 0; i+1 < len(agents.Content); i += 2 {
		name := agents.Content[i].Value
		p := Profile{Name: name, Source: SourceConfig, Path: file}
		if !nameRE().MatchString(name) {
			errs = append(errs, &Error{File: file, Line: agents.Content[i].Line, Profile: name, Msg: "the name must be letters, digits, '.', '_' or '-'"})
			continue
		}
		if err := fields(&p, agents.Content[i+1], 0, true); err != nil {
			err.File, err.Profile = file, name
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, errs
}

// parseConfigJSON reads the agents of a config file YAML cannot read (JSON
// that is not also YAML): each entry is read alone, without line numbers.
func parseConfigJSON(file string, b []byte) ([]Profile, []error) {
	var f struct {
		Agents map[string]json.RawMessage `json:"agents"`
	}
	if json.Unmarshal(b, &f) != nil {
		return nil, nil // the config loader reports a file it cannot read
	}
	var out []Profile
	var errs []error
	names := make([]string, 0, len(f.Agents))
	for name := range f.Agents {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var m map[string]any
		var doc yaml.Node
		err := json.Unmarshal(f.Agents[name], &m)
		if err == nil {
			var y []byte
			if y, err = yaml.Marshal(m); err == nil {
				err = yaml.Unmarshal(y, &doc)
			}
		}
		if err != nil || len(doc.Content) == 0 || !nameRE().MatchString(name) {
			errs = append(errs, &Error{File: file, Profile: name, Msg: "must be an object of profile fields, under a name of letters, digits, '.', '_' or '-'"})
			continue
		}
		p := Profile{Name: name, Source: SourceConfig, Path: file}
		if perr := fields(&p, doc.Content[0], -1_000_000, true); perr != nil {
			perr.File, perr.Profile, perr.Line = file, name, 0
			errs = append(errs, perr)
			continue
		}
		out = append(out, p)
	}
	return out, errs
}

// fields applies a mapping node to p. lineBase is added to node lines (the
// front matter starts on the file's second line).
func fields(p *Profile, n *yaml.Node, lineBase int, inConfig bool) *Error {
	if n.Kind != yaml.MappingNode {
		return &Error{Line: n.Line + lineBase, Msg: "the front matter must be a mapping of fields (name: value)"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		bad := func(msg string, at ...*yaml.Node) *Error {
			line := v.Line
			if len(at) > 0 {
				line = at[0].Line
			}
			return &Error{Line: line + lineBase, Field: k.Value, Msg: msg}
		}
		str := func(dst *string) *Error {
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				return bad("must be a string")
			}
			*dst = strings.TrimSpace(v.Value)
			return nil
		}
		var err *Error
		switch k.Value {
		case "name":
			var s string
			if err = str(&s); err == nil && s != p.Name {
				err = bad(fmt.Sprintf("is %q but the profile is named %q (by its file or key): make them the same", s, p.Name))
			}
		case "description":
			err = str(&p.Description)
		case "mcp", "mcp_servers", "mcpServers":
			p.MCP, err = list(v, bad)
		case "subagent":
			if v.Kind != yaml.ScalarNode || v.Decode(&p.Subagent) != nil {
				err = bad("must be true or false")
			}
		case "disallowedTools", "disallowed_tools":
			p.Deny, err = list(v, bad)
			if err == nil {
				err = checkPatterns(p.Deny, bad)
			}
		case "model":
			// Claude Code's "inherit": the calling session's model.
			if v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "inherit" {
				break
			}
			err = setting(p, k.Value, v, bad)
		case "maxTurns":
			err = setting(p, "max_steps", v, bad)
		case "tools":
			p.Tools, err = list(v, bad)
			if err == nil {
				err = checkPatterns(p.Tools, bad)
			}
		case "provider_tools":
			p.ProviderTools, err = providerTools(v, bad)
		case "require_approval":
			p.RequireApproval, err = list(v, bad)
			if err == nil {
				err = checkPatterns(p.RequireApproval, bad)
			}
		case "defer":
			err = deferField(p, v, bad)
		case "prompt", "system":
			if !inConfig {
				err = &Error{Line: k.Line + lineBase, Field: k.Value, Msg: "the system prompt is the Markdown after the front matter, not a field"}
				break
			}
			err = str(&p.System)
		default:
			if !profileKey(k.Value) {
				err = &Error{Line: k.Line + lineBase, Field: k.Value, Msg: "unknown field: use " + fieldList()}
				break
			}
			err = setting(p, k.Value, v, bad)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// profileKey tells whether name is a config key a profile may set.
func profileKey(name string) bool {
	k, ok := config.Lookup(name)
	return ok && k.Profile && name != "system"
}

// fieldList names the fields a profile's front matter takes.
func fieldList() string {
	names := []string{"description", "subagent", "mcp", "defer", "tools", "disallowedTools"}
	for _, k := range config.Keys() {
		if profileKey(k.Name) {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// setting reads a profile key (profileKey) into its field: a string
// checked as the config file's is, a positive whole number or a list.
func setting(p *Profile, name string, v *yaml.Node, bad func(string, ...*yaml.Node) *Error) *Error {
	k, _ := config.Lookup(name)
	switch dst := k.Ptr(&p.Config).(type) {
	case *string:
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return bad("must be a string")
		}
		*dst = strings.TrimSpace(v.Value)
		if err := config.CheckValue(name, *dst); err != nil {
			return bad(err.Error())
		}
	case *int:
		var x int
		if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || x <= 0 {
			return bad("must be a positive whole number")
		}
		*dst = x
	case *[]string:
		l, err := list(v, bad)
		*dst = l
		return err
	default:
		return bad(fmt.Sprintf("a profile cannot set %s", name))
	}
	return nil
}

// list reads a sequence of strings, or one comma-separated string (the way
// Claude Code's subagent files write tools: Read, Grep).
func list(v *yaml.Node, bad func(string, ...*yaml.Node) *Error) ([]string, *Error) {
	var out []string
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		for _, s := range strings.Split(v.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || strings.TrimSpace(it.Value) == "" {
				return nil, bad("must be a list of names", it)
			}
			out = append(out, strings.TrimSpace(it.Value))
		}
	default:
		return nil, bad("must be a list of names")
	}
	return out, nil
}

func checkPatterns(ps []string, bad func(string, ...*yaml.Node) *Error) *Error {
	for _, p := range ps {
		if _, err := path.Match(strings.TrimPrefix(p, "server:"), ""); err != nil {
			return bad(fmt.Sprintf("bad pattern %q: %v", p, err))
		}
	}
	return nil
}

// providerTools accepts the --provider-tool forms: "alias", "alias:{json}",
// a raw JSON definition, or an object written in YAML (a definition).
func providerTools(v *yaml.Node, bad func(string, ...*yaml.Node) *Error) ([]string, *Error) {
	if v.Kind != yaml.SequenceNode {
		return list(v, bad)
	}
	var out []string
	for _, it := range v.Content {
		switch it.Kind {
		case yaml.ScalarNode:
			out = append(out, strings.TrimSpace(it.Value))
		case yaml.MappingNode:
			var m map[string]any
			if err := it.Decode(&m); err != nil {
				return nil, bad("an entry is not a valid definition: " + err.Error())
			}
			b, err := json.Marshal(m)
			if err != nil {
				return nil, bad("an entry is not a valid definition: " + err.Error())
			}
			out = append(out, string(b))
		default:
			return nil, bad("must be a list of aliases (web_search, web_fetch, ...) or definitions")
		}
	}
	return out, nil
}

// deferField reads defer: true, false, "auto", or a list of names/patterns.
func deferField(p *Profile, v *yaml.Node, bad func(string, ...*yaml.Node) *Error) *Error {
	switch v.Kind {
	case yaml.ScalarNode:
		switch strings.ToLower(strings.TrimSpace(v.Value)) {
		case "true", "yes", "on":
			p.Defer = "true"
		case "false", "no", "off":
			p.Defer = "false"
		case "auto":
			p.Defer = "auto"
		default:
			return bad(fmt.Sprintf("unknown value %q: use true, false, auto or a list of tool names", v.Value))
		}
	case yaml.SequenceNode:
		names, err := list(v, bad)
		if err != nil {
			return err
		}
		if err := checkPatterns(names, bad); err != nil {
			return err
		}
		p.Defer, p.DeferTools = "true", names
	default:
		return bad("must be true, false, auto or a list of tool names")
	}
	return nil
}

// Allows reports whether the tool (its agent-side name and server) is on
// the profile's allow list; with no list every tool is.
func (p Profile) Allows(name, server string) bool {
	return (len(p.Tools) == 0 || Match(p.Tools, name, server)) && !Match(p.Deny, name, server)
}

// Match reports whether a pattern names the tool: a glob over its name, or
// "server:GLOB" over its server.
func Match(patterns []string, name, server string) bool {
	for _, pat := range patterns {
		if srv, ok := strings.CutPrefix(pat, "server:"); ok {
			if ok, _ := path.Match(srv, server); ok && server != "" {
				return true
			}
			continue
		}
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// Defers reports whether the profile defers the tool: every tool with
// defer: true and no list, those the list names otherwise.
func (p Profile) Defers(name, server string) bool {
	if p.Defer != "true" {
		return false
	}
	return len(p.DeferTools) == 0 || Match(p.DeferTools, name, server)
}
