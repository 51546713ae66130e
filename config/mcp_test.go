package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadMCPConfig(t *testing.T) {
	t.Setenv("AGENT_TEST_TOKEN", "s3cret")
	t.Setenv("AGENT_TEST_EMPTY", "")
	dir := t.TempDir()
	user := writeFile(t, dir, "user.json", `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "server-filesystem", "${AGENT_TEST_DIR:-/tmp}"], "env": {"TOKEN": "${AGENT_TEST_TOKEN}"}},
		"gh": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${AGENT_TEST_TOKEN}"}, "defer": true, "alwaysLoad": ["get_me"], "timeout": 10, "protocol": "2026-07-28"},
		"old": {"url": "http://127.0.0.1:9/sse", "toolTimeout": "2m", "defer": ["a", "b"], "autoApprove": ["x"], "protocol": "auto"}
	}}`)
	project := writeFile(t, dir, ".mcp.json", `{"mcpServers": {
		"fs": {"command": "mcp-server-filesystem", "args": ["${AGENT_TEST_EMPTY:-.}"], "disabled": true, "defer": "auto", "timeout": "1.5s", "maxResultBytes": 5000, "protocol": "2025-11-25"}
	}}`)
	got, err := LoadMCPConfig(user, filepath.Join(dir, "missing.json"), project)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"fs": {Name: "fs", Type: MCPStdio, Command: "mcp-server-filesystem", Args: []string{"."}, Disabled: true,
			Defer: DeferSetting{Set: true, Auto: true}, Timeout: 1500 * time.Millisecond, MaxResultBytes: 5000, Protocol: ProtocolLegacy, Source: project},
		"gh": {Name: "gh", Type: MCPHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"},
			Defer: DeferSetting{Set: true, All: true}, AlwaysLoad: []string{"get_me"}, Timeout: 10 * time.Second, Protocol: ProtocolModern, Source: user},
		"old": {Name: "old", Type: MCPSSE, URL: "http://127.0.0.1:9/sse", ToolTimeout: 2 * time.Minute,
			Defer: DeferSetting{Set: true, Tools: []string{"a", "b"}}, Protocol: ProtocolAuto, Source: user},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// The protocol that applies to a server: "auto" unless it says.
func TestProtocolSetting(t *testing.T) {
	for _, tt := range []struct{ set, want string }{
		{"", ProtocolAuto}, {ProtocolAuto, ProtocolAuto}, {ProtocolLegacy, ProtocolLegacy}, {ProtocolModern, ProtocolModern},
	} {
		if got := (MCPServer{Protocol: tt.set}).ProtocolSetting(); got != tt.want {
			t.Errorf("protocol %q applies as %q, want %q", tt.set, got, tt.want)
		}
	}
}

func TestLoadMCPConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"syntax", "{\n  \"mcpServers\": {,}\n}", "syntax.json:2:18: not valid JSON: invalid character ','"},
		{"trailing comma", "{\"mcpServers\": {\"x\": {\"command\": \"a\", \"args\": [\"-v\",]}}}", `trailing_comma.json:1:53: not valid JSON: a comma before this ]: JSON allows none after the last entry; remove it`},
		{"cut short", "{\"mcpServers\": {\"x\": {", "cut_short.json:1:22: not valid JSON: the file ends before its JSON does (a missing } or ]?)"},
		{"no servers", `{"servers": {}}`, `no "mcpServers" object`},
		{"not object", `{"mcpServers": []}`, `"mcpServers" must be an object of servers ({"name": {"command": …}}), got a list`},
		{"command a number", `{"mcpServers": {"x": {"command": 5}}}`, `server "x": "command" must be a string (in quotes), got a number`},
		{"args a string", `{"mcpServers": {"x": {"command": "a", "args": "-v"}}}`, `server "x": "args" must be a list of strings (["…"]), got a string`},
		{"env value a number", `{"mcpServers": {"x": {"command": "a", "env": {"PORT": 8080}}}}`, `server "x": each value of "env" must be a string (in quotes), got a number`},
		{"disabled a string", `{"mcpServers": {"x": {"command": "a", "disabled": "yes"}}}`, `server "x": "disabled" must be true or false, got a string`},
		{"bad type", `{"mcpServers": {"x": {"type": "ws", "url": "http://a"}}}`, `server "x": unknown type "ws"`},
		{"no command", `{"mcpServers": {"x": {"args": ["a"]}}}`, `server "x": needs a "command"`},
		{"http no url", `{"mcpServers": {"x": {"type": "http"}}}`, `server "x": http server needs a "url"`},
		// A key a letter off is named with the one meant: unknown keys are
		// otherwise ignored, as other clients' settings.
		{"command misspelt", `{"mcpServers": {"x": {"comand": "npx", "autoApprove": []}}}`, `server "x": needs a "command" (stdio) or a "url" (http, sse); "comand" is no key of a server: did you mean "command"?`},
		{"url misspelt", `{"mcpServers": {"x": {"type": "http", "ulr": "https://a/mcp"}}}`, `server "x": http server needs a "url"; "ulr" is no key of a server: did you mean "url"?`},
		{"bad url", `{"mcpServers": {"x": {"type": "sse", "url": "ftp://a"}}}`, "must start with http"},
		{"bad protocol", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "protocol": "2025-06-18"}}}`, `server "x": protocol must be "auto", "2025-11-25" or "2026-07-28", got "2025-06-18"`},
		{"protocol a number", `{"mcpServers": {"x": {"command": "a", "protocol": 2026}}}`, `server "x": "protocol" must be a string (in quotes), got a number`},
		{"sse of 2026-07-28", `{"mcpServers": {"x": {"type": "sse", "url": "http://a/sse", "protocol": "2026-07-28"}}}`, `server "x": protocol "2026-07-28" is for http and stdio servers: an sse server speaks "2025-11-25" or earlier`},
		{"bad defer", `{"mcpServers": {"x": {"command": "a", "defer": "sometimes"}}}`, `defer must be true, false, "auto"`},
		{"bad timeout", `{"mcpServers": {"x": {"command": "a", "timeout": "soon"}}}`, "timeout must be seconds"},
		{"negative timeout", `{"mcpServers": {"x": {"command": "a", "timeout": -1}}}`, "timeout must not be negative"},
		{"cross_app without idp", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"grant": "cross_app", "client_id": "c"}}}}`, `needs "idp": {"issuer", "client_id"}`},
		{"cross_app without client", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"grant": "cross_app", "idp": {"issuer": "https://idp", "client_id": "i"}}}}}`, `needs the "client_id"`},
		{"idp without cross_app", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"idp": {"issuer": "https://idp", "client_id": "i"}}}}}`, `oauth.idp is used by "grant": "cross_app" only`},
		{"unknown grant", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"grant": "password"}}}}`, `oauth.grant must be "authorization_code", "client_credentials", "cross_app" or "workload_identity"`},
		{"workload_identity without token", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"grant": "workload_identity"}}}}`, `needs "workload_token"`},
		{"workload_token without its grant", `{"mcpServers": {"x": {"type": "http", "url": "https://a/mcp", "oauth": {"workload_token": "@/var/run/token"}}}}`, `oauth.workload_token is used by "grant": "workload_identity" only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".json", tt.body)
			_, err := LoadMCPConfig(p)
			if err == nil {
				t.Fatal("no error")
			}
			// encoding/json's own words name Go types, not the file's keys.
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "\n") ||
				strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "json: cannot") {
				t.Errorf("error %q: want one line naming %s and containing %q, in the file's words", err, p, tt.want)
			}
		})
	}
	if _, err := ReadMCPConfigFile(filepath.Join(dir, "nope.json")); err == nil || !strings.Contains(err.Error(), "nope.json does not exist: check the path given to --mcp-config") {
		t.Errorf("missing named file: %v", err)
	}
}

// A cross_app entry: the IdP's values take ${VAR} like the rest.
func TestCrossAppEntry(t *testing.T) {
	t.Setenv("AGENT_TEST_ID_TOKEN", "eyJ.id.token")
	p := writeFile(t, t.TempDir(), "mcp.json", `{"mcpServers": {"corp": {"type": "http", "url": "https://mcp.corp.example/mcp",
		"oauth": {"grant": "cross_app", "client_id": "agent", "client_secret": "s",
			"idp": {"issuer": "https://idp.corp.example", "client_id": "agent-sso", "id_token": "${AGENT_TEST_ID_TOKEN}"}}}}}`)
	got, err := LoadMCPConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	want := &MCPOAuthIdP{Issuer: "https://idp.corp.example", ClientID: "agent-sso", IDToken: "eyJ.id.token"}
	if o := got["corp"].OAuth; o == nil || o.Grant != GrantCrossApp || !reflect.DeepEqual(o.IdP, want) {
		t.Fatalf("oauth = %+v", got["corp"].OAuth)
	}
}

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "alpha", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want string }{
		{"${A}", "alpha"},
		{"x-${A}-y", "x-alpha-y"},
		{"${MISSING}", ""},
		{"${MISSING:-def}", "def"},
		{"${EMPTY:-def}", "def"},
		{"${A:-def}", "alpha"},
		{"${MISSING:-${A}}", "alpha"},
		{"${MISSING:-${NOPE:-deep}}", "deep"},
		{"$A stays", "$A stays"},
		{"unterminated ${A", "unterminated ${A"},
		{"${A}${A}", "alphaalpha"},
	}
	for _, tt := range tests {
		if got := ExpandEnv(tt.in, lookup); got != tt.want {
			t.Errorf("ExpandEnv(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPresets(t *testing.T) {
	noBin := func(string) (string, error) { return "", os.ErrNotExist }
	hasBin := func(string) (string, error) { return "/usr/bin/github-mcp-server", nil }
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	p := presets("/work", env(map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "pat"}), noBin)
	gh := p["github"]
	if gh.Type != MCPHTTP || gh.URL != "https://api.githubcopilot.com/mcp/" || gh.Headers["Authorization"] != "Bearer pat" || gh.Unavailable != "" {
		t.Errorf("remote github preset: %+v", gh)
	}
	p = presets("/work", env(map[string]string{"GITHUB_TOKEN": "tok", "GITHUB_PERSONAL_ACCESS_TOKEN": "pat"}), noBin)
	if got := p["github"].Headers["Authorization"]; got != "Bearer tok" {
		t.Errorf("GITHUB_TOKEN should win: %q", got)
	}
	p = presets("/work", env(nil), noBin)
	if p["github"].Unavailable == "" || p["github"].Headers != nil {
		t.Errorf("github without token must be unavailable: %+v", p["github"])
	}
	p = presets("/work", env(map[string]string{"GITHUB_TOKEN": "tok"}), hasBin)
	if gh := p["github"]; gh.Type != MCPStdio || gh.Command != "github-mcp-server" || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "tok" {
		t.Errorf("local github preset: %+v", gh)
	}
	if fs := p["filesystem"]; fs.Args[len(fs.Args)-1] != "/work" {
		t.Errorf("filesystem preset root: %v", fs.Args)
	}
	for _, n := range []string{"github", "filesystem", "memory", "fetch", "playwright", "everything"} {
		s, ok := p[n]
		if !ok {
			t.Errorf("missing preset %s", n)
			continue
		}
		if err := s.normalize(); err != nil {
			t.Errorf("preset %s: %v", n, err)
		}
	}
}

func TestResolveMCP(t *testing.T) {
	configured := map[string]MCPServer{
		"memory": {Name: "memory", Type: MCPStdio, Command: "my-memory"},
		"local":  {Name: "local", Type: MCPStdio, Command: "x"},
		"off":    {Name: "off", Type: MCPStdio, Command: "y", Disabled: true},
	}
	pre := presets("/w", func(string) (string, bool) { return "", false }, func(string) (string, error) { return "", os.ErrNotExist })
	got, err := ResolveMCPIn(configured, pre, []string{"memory,everything", "local", "memory"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name+":"+s.Command)
	}
	if want := []string{"memory:my-memory", "everything:npx", "local:x"}; !reflect.DeepEqual(names, want) {
		t.Errorf("got %v, want %v (configured overrides preset)", names, want)
	}
	_, err = ResolveMCPIn(configured, pre, []string{"nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown MCP server "nope": configured: local, memory, off; presets: everything, fetch, filesystem, github, playwright`) {
		t.Errorf("unknown name error: %v", err)
	}
	selNames := func(ss []MCPServer) (out []string) {
		for _, s := range ss {
			d, _ := s.Defer.Defers("x")
			out = append(out, s.Name+":"+strconv.FormatBool(d))
		}
		return out
	}
	sel, _ := SelectMCP(configured, pre, nil)
	if got, want := selNames(sel), []string{"local:false", "memory:false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SelectMCP without names: %v, want %v", got, want)
	}
	sel, _ = SelectMCP(configured, pre, []string{"everything", "memory"})
	if got, want := selNames(DeferAll(sel, []string{"everything", "memory"})), []string{"local:false", "everything:true", "memory:true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SelectMCP + DeferAll with names: %v, want %v", got, want)
	}
	if got, want := selNames(DeferAll(sel, nil)), []string{"local:true", "everything:true", "memory:true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("DeferAll without names: %v, want %v", got, want)
	}
}

func TestDeferSetting(t *testing.T) {
	tests := []struct {
		d              DeferSetting
		tool           string
		deferred, said bool
	}{
		{DeferSetting{}, "a", false, false},
		{DeferSetting{Set: true, All: true}, "a", true, true},
		{DeferSetting{Set: true}, "a", false, true},
		{DeferSetting{Set: true, Tools: []string{"a"}}, "a", true, true},
		{DeferSetting{Set: true, Tools: []string{"a"}}, "b", false, true},
		{DeferSetting{Set: true, Auto: true}, "a", false, false},
	}
	for _, tt := range tests {
		d, said := tt.d.Defers(tt.tool)
		if d != tt.deferred || said != tt.said {
			t.Errorf("%+v.Defers(%s) = %v,%v want %v,%v", tt.d, tt.tool, d, said, tt.deferred, tt.said)
		}
	}
}
