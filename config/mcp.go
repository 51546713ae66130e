package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/internal/suggest"
)

// MCP transports.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)

// MCPServer is one MCP server as configured in an mcpServers object (the
// format of Claude Desktop's config and of .mcp.json), plus the agent's own
// per-server settings.
type MCPServer struct {
	// Name is the key of the server in mcpServers.
	Name string `json:"-"`
	// Type is stdio, http (streamable HTTP) or sse. Empty is inferred: a
	// command means stdio, a URL means http (sse when the path ends in /sse).
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Description says what the server is for; tool search uses it.
	Description string `json:"description,omitempty"`
	// Cwd is the working directory of a stdio server (default: the agent's).
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth is how the agent signs in to a remote server (oauth.go).
	OAuth *MCPOAuth `json:"oauth,omitempty"`
	// Defer says which of the server's tools start deferred.
	Defer DeferSetting `json:"defer,omitzero"`
	// AlwaysLoad lists tools (the server's own names) that are never deferred.
	AlwaysLoad []string `json:"alwaysLoad,omitempty"`
	Disabled   bool     `json:"disabled,omitempty"`
	// Start is when a server whose tool list is cached starts: "lazy" (the
	// default) when one of its tools is first called or /mcp reconnect
	// names it, "eager" at launch (in -p mode as the first request goes
	// out). A server with nothing cached always starts at launch: its
	// tools must be listed.
	Start string `json:"start,omitempty"`
	// Protocol is the MCP protocol revision the server is spoken to in:
	// "auto" (the default, also when empty) probes a streamable HTTP
	// server with server/discover and speaks 2026-07-28 when it answers,
	// else 2025-11-25; "2025-11-25" sends initialize only, never a probe
	// (a server of both eras whose tools send requests of their own,
	// which 2026-07-28 has not); "2026-07-28" speaks that revision only,
	// a server that does not answer server/discover failing its start.
	Protocol string `json:"protocol,omitempty"`
	// Timeout bounds connecting and listing tools (0: the manager's default).
	Timeout time.Duration `json:"-"`
	// ToolTimeout bounds one tool call (0: the manager's default).
	ToolTimeout time.Duration `json:"-"`
	// MaxResultBytes caps a tool result's text (0: the manager's default).
	MaxResultBytes int `json:"maxResultBytes,omitempty"`

	// Source is the file the server came from, or "preset".
	Source string `json:"-"`
	// Unavailable, when set, explains why the server cannot be started
	// (a preset missing its token); the manager reports it instead.
	Unavailable string `json:"-"`
}

// DeferSetting is the JSON value of a server's "defer": true, false, a list
// of tool names, or "auto" (kept for the token-budget deferral decided later).
type DeferSetting struct {
	// Set is true when the setting was given at all.
	Set bool
	// All defers every tool (JSON true).
	All bool
	// Auto is the string "auto".
	Auto bool
	// Tools are the server's own tool names to defer (JSON list).
	Tools []string
}

// Defers reports whether tool is deferred by this setting and whether the
// setting says anything about it.
func (d DeferSetting) Defers(tool string) (deferred, decided bool) {
	switch {
	case !d.Set || d.Auto:
		return false, false
	case d.Tools != nil:
		return slices.Contains(d.Tools, tool), true
	default:
		return d.All, true
	}
}

// IsZero lets omitzero drop an unset setting.
func (d DeferSetting) IsZero() bool { return !d.Set }

// MarshalJSON writes the setting back in the form it was read.
func (d DeferSetting) MarshalJSON() ([]byte, error) {
	switch {
	case !d.Set:
		return []byte("null"), nil
	case d.Auto:
		return []byte(`"auto"`), nil
	case d.Tools != nil:
		return json.Marshal(d.Tools)
	}
	return json.Marshal(d.All)
}

// UnmarshalJSON accepts true, false, a list of tool names or "auto".
func (d *DeferSetting) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*d = DeferSetting{}
	if string(b) == "null" {
		return nil
	}
	var v bool
	if err := json.Unmarshal(b, &v); err == nil {
		*d = DeferSetting{Set: true, All: v}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		switch s {
		case "auto":
			*d = DeferSetting{Set: true, Auto: true}
			return nil
		case "true", "false":
			*d = DeferSetting{Set: true, All: s == "true"}
			return nil
		}
		return fmt.Errorf(`defer must be true, false, "auto" or a list of tool names, got %q`, s)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf(`defer must be true, false, "auto" or a list of tool names, got %s`, b)
	}
	*d = DeferSetting{Set: true, Tools: append([]string{}, list...)}
	return nil
}

// UnmarshalJSON reads one server, with timeouts given as seconds (30) or
// as Go durations ("30s", "2m").
func (s *MCPServer) UnmarshalJSON(b []byte) error {
	type plain MCPServer
	var v struct {
		plain
		Timeout     json.RawMessage `json:"timeout"`
		ToolTimeout json.RawMessage `json:"toolTimeout"`
	}
	// Unknown keys are ignored: the same file often carries settings of
	// other clients (autoApprove, ...).
	if err := json.Unmarshal(b, &v); err != nil {
		return mcpTypeError(err)
	}
	*s = MCPServer(v.plain)
	var err error
	if s.Timeout, err = parseMCPDuration("timeout", v.Timeout); err != nil {
		return err
	}
	if s.ToolTimeout, err = parseMCPDuration("toolTimeout", v.ToolTimeout); err != nil {
		return err
	}
	return nil
}

// MarshalJSON writes timeouts as Go duration strings.
func (s MCPServer) MarshalJSON() ([]byte, error) {
	type plain MCPServer
	v := struct {
		plain
		Timeout     string `json:"timeout,omitempty"`
		ToolTimeout string `json:"toolTimeout,omitempty"`
	}{plain: plain(s)}
	if s.Timeout > 0 {
		v.Timeout = s.Timeout.String()
	}
	if s.ToolTimeout > 0 {
		v.ToolTimeout = s.ToolTimeout.String()
	}
	return json.Marshal(v)
}

func parseMCPDuration(field string, raw json.RawMessage) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		if secs < 0 {
			return 0, fmt.Errorf("%s must not be negative, got %v", field, secs)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf(`%s must be seconds (30) or a duration ("30s"), got %s`, field, raw)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf(`%s must be seconds (30) or a duration ("30s"), got %q`, field, s)
	}
	return d, nil
}

// DefaultMCPConfigPaths lists the MCP config files read when they exist, in
// the order they apply: the user's (config dir/agent/mcp.json), then the
// project's ./.mcp.json in workdir.
func DefaultMCPConfigPaths(workdir string) []string {
	var out []string
	if dir, err := os.UserConfigDir(); err == nil {
		out = append(out, filepath.Join(dir, "agent", "mcp.json"))
	}
	if workdir == "" {
		workdir = "."
	}
	return append(out, filepath.Join(workdir, ".mcp.json"))
}

// LoadMCPConfig reads mcpServers files; a server in a later file replaces
// the one of the same name from an earlier file. Missing files are skipped
// (pass only files the user named through ReadMCPConfigFile to require
// them). ${VAR} and ${VAR:-default} are expanded from the environment.
func LoadMCPConfig(paths ...string) (map[string]MCPServer, error) {
	return LoadMCPConfigWith(os.LookupEnv, paths...)
}

// LoadMCPConfigWith is LoadMCPConfig expanding ${VAR} through lookup.
func LoadMCPConfigWith(lookup func(string) (string, bool), paths ...string) (map[string]MCPServer, error) {
	out := map[string]MCPServer{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		servers, err := ReadMCPConfigFileWith(p, lookup)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for name, s := range servers {
			out[name] = s
		}
	}
	return out, nil
}

// missingFileError is a named MCP config file that does not exist.
type missingFileError struct{ path string }

func (e *missingFileError) Error() string {
	return fmt.Sprintf("MCP config %s does not exist: check the path given to --mcp-config", e.path)
}

func (e *missingFileError) Unwrap() error { return os.ErrNotExist }

// ReadMCPConfigFile reads one mcpServers file. A missing file is an error
// wrapping os.ErrNotExist.
func ReadMCPConfigFile(path string) (map[string]MCPServer, error) {
	return ReadMCPConfigFileWith(path, os.LookupEnv)
}

// ReadMCPConfigFileWith is ReadMCPConfigFile expanding ${VAR} through
// lookup (a project's file may read only the variables the user allows).
func ReadMCPConfigFileWith(path string, lookup func(string) (string, bool)) (map[string]MCPServer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &missingFileError{path: path}
		}
		return nil, fmt.Errorf("read MCP config %s: %w", path, err)
	}
	var f struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Placed as config.json's are, path:line:col, which editors
			// and terminals open at the place.
			return nil, syntaxError(path, b, err)
		}
		return nil, fmt.Errorf("parse MCP config %s: %v", path, err)
	}
	if len(f.MCPServers) == 0 {
		return nil, fmt.Errorf(`parse MCP config %s: no "mcpServers" object (expected {"mcpServers": {"name": {...}}})`, path)
	}
	return ParseMCPServersWith(f.MCPServers, path, lookup)
}

// ParseMCPServers reads the value of an mcpServers object (also accepted
// inline in the main config file); source names it in errors.
func ParseMCPServers(raw json.RawMessage, source string) (map[string]MCPServer, error) {
	return ParseMCPServersWith(raw, source, os.LookupEnv)
}

// ParseMCPServersWith is ParseMCPServers expanding ${VAR} through lookup
// (nil: not at all).
func ParseMCPServersWith(raw json.RawMessage, source string, lookup func(string) (string, bool)) (map[string]MCPServer, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		got := "another kind of value"
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			got = valueWords(te.Value)
		}
		return nil, fmt.Errorf(`parse MCP config %s: "mcpServers" must be an object of servers ({"name": {"command": …}}), got %s`, source, got)
	}
	out := make(map[string]MCPServer, len(m))
	for _, name := range mcpSortedKeys(m) {
		var s MCPServer
		if err := json.Unmarshal(m[name], &s); err != nil {
			return nil, fmt.Errorf("parse MCP config %s: server %q: %v", source, name, err)
		}
		s.Name, s.Source = name, source
		s = s.Expand(lookup)
		if err := s.normalizeWith(lookup == nil); err != nil {
			return nil, fmt.Errorf("MCP config %s: server %q: %v%s", source, name, err, misspeltKey(m[name]))
		}
		out[name] = s
	}
	return out, nil
}

// misspeltKey names a key of a server that failed to load which is no key
// of a server but near one ("comand"): unknown keys are ignored (the file
// carries other clients' settings), so the error said only that the
// server "needs a command", with one written a letter short beside it.
// "" when no key is such a typo.
func misspeltKey(raw json.RawMessage) string {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return ""
	}
	known := mcpServerKeys()
	for _, k := range mcpSortedKeys(keys) {
		if near := suggest.Nearest(k, known); near != "" {
			return fmt.Sprintf(`; %q is no key of a server: did you mean %q?`, k, near)
		}
	}
	return ""
}

// mcpServerKeys are the keys a server's entry is read from.
func mcpServerKeys() []string {
	keys := []string{"timeout", "toolTimeout"}
	t := reflect.TypeFor[MCPServer]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// normalize infers the transport and checks what it needs.
func (s *MCPServer) normalize() error { return s.normalizeWith(false) }

// normalizeWith is normalize of a server whose values may be as written
// (verbatim): a URL with a ${VAR} gets its scheme only when expanded
// ("${MCP_URL:-https://…}/mcp"), so it is not judged on it.
func (s *MCPServer) normalizeWith(verbatim bool) error {
	if s.Name == "" {
		return errors.New("empty server name")
	}
	switch strings.ToLower(s.Type) {
	case "":
		switch {
		case s.Command != "":
			s.Type = MCPStdio
		case strings.HasSuffix(strings.TrimRight(s.URL, "/"), "/sse"):
			s.Type = MCPSSE
		case s.URL != "":
			s.Type = MCPHTTP
		}
	case "stdio":
		s.Type = MCPStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		s.Type = MCPHTTP
	case "sse":
		s.Type = MCPSSE
	default:
		return fmt.Errorf("unknown type %q: use stdio, http or sse", s.Type)
	}
	switch s.Type {
	case MCPStdio:
		if s.Command == "" {
			return errors.New(`stdio server needs a "command"`)
		}
	case MCPHTTP, MCPSSE:
		if s.URL == "" {
			return fmt.Errorf(`%s server needs a "url"`, s.Type)
		}
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") && !(verbatim && strings.Contains(s.URL, "${")) {
			return fmt.Errorf("url %q must start with http:// or https://", s.URL)
		}
	default:
		return errors.New(`needs a "command" (stdio) or a "url" (http, sse)`)
	}
	if s.Type == MCPStdio && s.OAuth != nil && !s.OAuth.Off {
		return errors.New(`"oauth" is for http and sse servers; a stdio server gets its credentials through "env"`)
	}
	if s.MaxResultBytes < 0 {
		return fmt.Errorf("maxResultBytes must not be negative, got %d", s.MaxResultBytes)
	}
	if s.Start != "" && s.Start != StartLazy && s.Start != StartEager {
		return fmt.Errorf(`start must be "lazy" or "eager", got %q`, s.Start)
	}
	switch s.Protocol {
	case "", ProtocolAuto, ProtocolLegacy:
	case ProtocolModern:
		if s.Type == MCPSSE {
			// The SSE transport is of the revisions before 2026-07-28,
			// which has no such transport.
			return fmt.Errorf(`protocol %q is for http and stdio servers: an sse server speaks %q or earlier`, s.Protocol, ProtocolLegacy)
		}
	default:
		return fmt.Errorf(`protocol must be %q, %q or %q, got %q`, ProtocolAuto, ProtocolLegacy, ProtocolModern, s.Protocol)
	}
	return nil
}

// A server's protocol settings (MCPServer.Protocol).
const (
	ProtocolAuto   = "auto"
	ProtocolLegacy = "2025-11-25"
	ProtocolModern = "2026-07-28"
)

// ProtocolSetting is the server's "protocol" as it applies: "auto" when
// unset.
func (s MCPServer) ProtocolSetting() string {
	if s.Protocol == "" {
		return ProtocolAuto
	}
	return s.Protocol
}

// A server's start settings (MCPServer.Start).
const (
	StartLazy  = "lazy"
	StartEager = "eager"
)

// Expand returns s with ${VAR} and ${VAR:-default} expanded in the command,
// args, env values, url and header values. A nil lookup leaves them as
// written, defaults and all (the trust question shows them so).
func (s MCPServer) Expand(lookup func(string) (string, bool)) MCPServer {
	if lookup == nil {
		return s
	}
	x := func(v string) string { return ExpandEnv(v, lookup) }
	s.Command = x(s.Command)
	s.URL = x(s.URL)
	s.Cwd = x(s.Cwd)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = x(a)
		}
		s.Args = args
	}
	s.Env = expandMap(s.Env, x)
	s.Headers = expandMap(s.Headers, x)
	if s.OAuth != nil {
		o := *s.OAuth
		o.expand(x)
		s.OAuth = &o
	}
	return s
}

func expandMap(m map[string]string, x func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x(v)
	}
	return out
}

// ExpandEnv expands ${VAR} and ${VAR:-default} (the default is used when
// VAR is unset or empty, and may itself hold ${...}). $VAR without braces
// and unterminated ${ are left as they are: config values such as regexes
// may contain dollars.
func ExpandEnv(s string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		end := matchingBrace(s, i+2)
		if end < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		expr := s[i+2 : end]
		name, def, hasDef := strings.Cut(expr, ":-")
		v, ok := lookup(name)
		if hasDef && (!ok || v == "") {
			v = ExpandEnv(def, lookup)
		}
		b.WriteString(v)
		s = s[end+1:]
	}
}

// matchingBrace finds the } closing a ${ whose body starts at from, allowing
// nested ${...} in a default.
func matchingBrace(s string, from int) int {
	depth := 1
	for j := from; j < len(s); j++ {
		switch {
		case strings.HasPrefix(s[j:], "${"):
			depth++
			j++
		case s[j] == '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// MCPPresets are named servers usable with --mcp NAME without any config.
// workdir is the filesystem server's root ("" means the current directory).
func MCPPresets(workdir string) map[string]MCPServer {
	return presets(workdir, os.LookupEnv, exec.LookPath)
}

func presets(workdir string, lookup func(string) (string, bool), lookPath func(string) (string, error)) map[string]MCPServer {
	if workdir == "" {
		if wd, err := os.Getwd(); err == nil {
			workdir = wd
		} else {
			workdir = "."
		}
	}
	stdio := func(name, cmd string, args ...string) MCPServer {
		return MCPServer{Name: name, Type: MCPStdio, Command: cmd, Args: args, Source: "preset"}
	}
	out := map[string]MCPServer{
		"filesystem": stdio("filesystem", "npx", "-y", "@modelcontextprotocol/server-filesystem", workdir),
		"memory":     stdio("memory", "npx", "-y", "@modelcontextprotocol/server-memory"),
		"fetch":      stdio("fetch", "uvx", "mcp-server-fetch"),
		"playwright": stdio("playwright", "npx", "-y", "@playwright/mcp@latest"),
		"everything": stdio("everything", "npx", "-y", "@modelcontextprotocol/server-everything", "stdio"),
	}
	token := ExpandEnv("${GITHUB_TOKEN:-${GITHUB_PERSONAL_ACCESS_TOKEN}}", lookup)
	if _, err := lookPath("github-mcp-server"); err == nil {
		gh := stdio("github", "github-mcp-server", "stdio")
		if token != "" {
			// The local server reads only this variable.
			gh.Env = map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": token}
		}
		out["github"] = gh
	} else {
		gh := MCPServer{
			Name: "github", Type: MCPHTTP, URL: "https://api.githubcopilot.com/mcp/", Source: "preset",
			Headers: map[string]string{"Authorization": "Bearer " + token},
		}
		if token == "" {
			gh.Headers = nil
			gh.Unavailable = "set GITHUB_TOKEN or GITHUB_PERSONAL_ACCESS_TOKEN (or put github-mcp-server on PATH)"
		}
		out["github"] = gh
	}
	return out
}

// MergeMCP returns the presets with the configured servers over them: a
// configured server replaces a preset of the same name.
func MergeMCP(configured, presets map[string]MCPServer) map[string]MCPServer {
	out := make(map[string]MCPServer, len(configured)+len(presets))
	for n, s := range presets {
		out[n] = s
	}
	for n, s := range configured {
		out[n] = s
	}
	return out
}

// ResolveMCPIn picks the servers named (with --mcp) from the configured
// ones and the presets, in the order named.
func ResolveMCPIn(configured, presets map[string]MCPServer, names []string) ([]MCPServer, error) {
	all := MergeMCP(configured, presets)
	var out []MCPServer
	seen := map[string]bool{}
	for _, raw := range names {
		// --mcp a,b is accepted as well as --mcp a --mcp b.
		for _, n := range strings.Split(raw, ",") {
			n = strings.TrimSpace(n)
			if n == "" || seen[n] {
				continue
			}
			s, ok := all[n]
			if !ok {
				return nil, fmt.Errorf("unknown MCP server %q: %s", n, knownServers(configured, presets))
			}
			seen[n] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// SelectMCP is what a run connects: every configured server that is not
// disabled, plus the servers named with --mcp (configured or preset), in
// that order. An unknown name is an error.
func SelectMCP(configured map[string]MCPServer, presets map[string]MCPServer, names []string) ([]MCPServer, error) {
	named, err := ResolveMCPIn(configured, presets, names)
	if err != nil {
		return nil, err
	}
	var out []MCPServer
	for _, n := range mcpSortedKeys(configured) {
		if !configured[n].Disabled && !slices.ContainsFunc(named, func(s MCPServer) bool { return s.Name == n }) {
			out = append(out, configured[n])
		}
	}
	return append(out, named...), nil
}

// DeferAll marks every tool of the servers named with --mcp as deferred
// (their alwaysLoad lists still win); with no names it marks every server.
// This is what --defer means.
func DeferAll(servers []MCPServer, names []string) []MCPServer {
	want := map[string]bool{}
	for _, raw := range names {
		for _, n := range strings.Split(raw, ",") {
			want[strings.TrimSpace(n)] = true
		}
	}
	out := slices.Clone(servers)
	for i := range out {
		if len(want) == 0 || want[out[i].Name] {
			out[i].Defer = DeferSetting{Set: true, All: true}
		}
	}
	return out
}

func knownServers(configured, presets map[string]MCPServer) string {
	var cfg []string
	for n := range configured {
		cfg = append(cfg, n)
	}
	sort.Strings(cfg)
	var pre []string
	for n := range presets {
		if _, ok := configured[n]; !ok {
			pre = append(pre, n)
		}
	}
	sort.Strings(pre)
	s := "configured: none"
	if len(cfg) > 0 {
		s = "configured: " + strings.Join(cfg, ", ")
	}
	return s + "; presets: " + strings.Join(pre, ", ")
}

func mcpSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mcpTypeError says which key of a server entry has the wrong kind of value
// in the words of the config file ("command" must be a string (in quotes),
// got a number), not encoding/json's, which names the Go struct it decodes
// into.
func mcpTypeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	field := strings.TrimPrefix(te.Field, "plain.")
	if f, ok := mcpServerField(field); ok && f.Kind() == reflect.Map && te.Type == f.Elem() {
		// encoding/json names the map, not the entry: "env": {"PORT": 8080}.
		return fmt.Errorf("each value of %q must be %s, got %s", field, typeWords(te.Type, Key{}), valueWords(te.Value))
	}
	return fmt.Errorf("%q must be %s, got %s", field, typeWords(te.Type, Key{}), valueWords(te.Value))
}

// mcpServerField is the type of the MCPServer field written as key.
func mcpServerField(key string) (reflect.Type, bool) {
	t := reflect.TypeFor[MCPServer]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == key {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}
