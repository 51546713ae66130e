package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/config"
)

func TestParseFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		text    string
		want    Profile
		wantErr string // the whole one-line error
	}{
		{
			name: "every field",
			file: "reviewer.md",
			text: `---
description: Reviews diffs
provider: anthropic
model: claude-sonnet-4-5
fallback_model: claude-haiku-4-5
effort: high
max_tokens: 8000
mcp: [github, filesystem]
defer: [github__*, write_file]
tools:
  - github__*
  - read_*
  - server:files
provider_tools: [web_search, 'web_fetch:{"max_uses": 2}', {type: tool_search_tool_regex_20251119, name: tool_search_tool_regex}]
require_approval: ["*__delete_*"]
search: client
theme: dracula
---
You review code.

Be brief.
`,
			want: Profile{
				Name: "reviewer", Description: "Reviews diffs", Config: config.Config{Provider: "anthropic", Model: "claude-sonnet-4-5",
					FallbackModel: "claude-haiku-4-5", Effort: "high", MaxTokens: 8000,
					ProviderTools:   []string{"web_search", `web_fetch:{"max_uses": 2}`, `{"name":"tool_search_tool_regex","type":"tool_search_tool_regex_20251119"}`},
					RequireApproval: []string{"*__delete_*"}, Search: "client", Theme: "dracula",
					System: "You review code.\n\nBe brief."},
				MCP:   []string{"github", "filesystem"},
				Defer: "true", DeferTools: []string{"github__*", "write_file"},
				Tools: []string{"github__*", "read_*", "server:files"},
			},
		},
		{
			name: "a subagent in Claude Code's field names",
			file: "gh.md",
			text: "---\nname: gh\ndescription: GitHub work\nsubagent: true\nmodel: inherit\nmcpServers: [github]\ntools: github__*\ndisallowedTools: github__delete_*\nmaxTurns: 7\n---\nYou do GitHub work.\n",
			want: Profile{Name: "gh", Description: "GitHub work", Subagent: true, Config: config.Config{MaxSteps: 7, System: "You do GitHub work."},
				MCP: []string{"github"}, Tools: []string{"github__*"}, Deny: []string{"github__delete_*"}},
		},
		{
			name:    "subagent must be a boolean",
			file:    "x.md",
			text:    "---\nsubagent: maybe\n---\n",
			wantErr: "x.md:2: agent profile x: field subagent: must be true or false",
		},
		{
			name: "claude code style comma list and name",
			file: "helper.md",
			text: "---\nname: helper\ntools: Read, Grep,  Glob\ndefer: auto\n---\nHelp.\n",
			want: Profile{Name: "helper", Tools: []string{"Read", "Grep", "Glob"}, Defer: "auto", Config: config.Config{System: "Help."}},
		},
		{
			name: "no front matter is all prompt",
			file: "plain.md",
			text: "Just a prompt.\n",
			want: Profile{Name: "plain", Config: config.Config{System: "Just a prompt."}},
		},
		{
			name: "defer false, crlf",
			file: "x.md",
			text: "---\r\ndefer: false\r\n---\r\nBody\r\n",
			want: Profile{Name: "x", Defer: "false", Config: config.Config{System: "Body"}},
		},
		{
			name:    "unknown field",
			file:    "bad.md",
			text:    "---\ndescription: ok\nmodle: gpt-5\n---\n",
			wantErr: "bad.md:3: agent profile bad: field modle: unknown field: use description, subagent, mcp, defer, tools, disallowedTools, provider, model, fallback_model, search, theme, max_steps, max_tokens, effort, provider_tools or require_approval",
		},
		{
			name:    "bad max_tokens",
			file:    "bad.md",
			text:    "---\nmodel: m\n\nmax_tokens: lots\n---\n",
			wantErr: "bad.md:4: agent profile bad: field max_tokens: must be a positive whole number",
		},
		{
			name:    "bad defer",
			file:    "bad.md",
			text:    "---\ndefer: sometimes\n---\n",
			wantErr: `bad.md:2: agent profile bad: field defer: unknown value "sometimes": use true, false, auto or a list of tool names`,
		},
		{
			name:    "bad search",
			file:    "bad.md",
			text:    "---\nsearch: bing\n---\n",
			wantErr: `bad.md:2: agent profile bad: field search: unknown search mode "bing": use native, client or off`,
		},
		{
			name:    "list item not a name",
			file:    "bad.md",
			text:    "---\nmcp:\n  - github\n  - {a: b}\n---\n",
			wantErr: "bad.md:4: agent profile bad: field mcp: must be a list of names",
		},
		{
			name:    "bad pattern",
			file:    "bad.md",
			text:    "---\ntools: [\"[a-\"]\n---\n",
			wantErr: `bad.md:2: agent profile bad: field tools: bad pattern "[a-": syntax error in pattern`,
		},
		{
			name:    "name differs from file",
			file:    "a.md",
			text:    "---\nname: b\n---\n",
			wantErr: `a.md:2: agent profile a: field name: is "b" but the profile is named "a" (by its file or key): make them the same`,
		},
		{
			name:    "unclosed",
			file:    "bad.md",
			text:    "---\nmodel: x\n",
			wantErr: "bad.md:1: agent profile bad: the front matter opened with --- is never closed by a --- line",
		},
		{
			name:    "invalid yaml",
			file:    "bad.md",
			text:    "---\nmodel: x\n  y: [\n---\n",
			wantErr: "bad.md:3: agent profile bad: front matter is not valid YAML: mapping values are not allowed in this context",
		},
		{
			name:    "prompt as a field",
			file:    "bad.md",
			text:    "---\nprompt: hi\n---\n",
			wantErr: "bad.md:2: agent profile bad: field prompt: the system prompt is the Markdown after the front matter, not a field",
		},
		{
			name:    "bad file name",
			file:    "-x y.md",
			text:    "hi",
			wantErr: "-x y.md: agent profile -x y: the file name must be letters, digits, '.', '_' or '-' (it names the agent)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFile(tt.file, []byte(tt.text))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("error\n got %q\nwant %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is more than one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Source, tt.want.Path = SourceProject, tt.file
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	conf := `{
  "model": "claude-sonnet-4-5",
  "agents": {
    "triage": {"description": "Sorts issues", "mcp": ["github"], "defer": true, "prompt": "You triage."},
    "broken": {"max_tokens": -1}
  }
}`
	ps, errs := ParseConfig("config.json", []byte(conf))
	want := []Profile{{Name: "triage", Description: "Sorts issues", MCP: []string{"github"}, Defer: "true", Config: config.Config{System: "You triage."}, Source: SourceConfig, Path: "config.json"}}
	if !reflect.DeepEqual(ps, want) {
		t.Errorf("profiles %+v, want %+v", ps, want)
	}
	if len(errs) != 1 || errs[0].Error() != "config.json:5: agent profile broken: field max_tokens: must be a positive whole number" {
		t.Errorf("errors %v", errs)
	}
}

func TestLoadPrecedenceAndFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dirs := Dirs{Project: filepath.Join(dir, "proj"), User: filepath.Join(dir, "user")}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(dir, "config.json")
	write(conf, `{"agents": {"reviewer": {"model": "from-config"}, "cfgonly": {"model": "c"}}}`)
	write(filepath.Join(dirs.User, "reviewer.md"), "---\nmodel: from-user\n---\nuser prompt\n")
	write(filepath.Join(dirs.User, "useronly.md"), "---\nmodel: u\n---\n")
	write(filepath.Join(dirs.Project, "reviewer.md"), "---\nmodel: from-project\n---\nproject prompt\n")
	write(filepath.Join(dirs.Project, "broken.md"), "---\nmodel: [\n---\n")
	write(filepath.Join(dirs.Project, "notes.txt"), "not a profile")

	s := Load(dirs, conf)
	var got []string
	for _, p := range s.List() {
		got = append(got, p.Name+"="+p.Model+"@"+p.Source)
	}
	want := []string{"cfgonly=c@config", "reviewer=from-project@project", "useronly=u@user"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("profiles %v, want %v", got, want)
	}
	p, err := s.Find("reviewer")
	if err != nil || p.System != "project prompt" || p.Path != filepath.Join(dirs.Project, "reviewer.md") {
		t.Errorf("Find(reviewer) = %+v, %v", p, err)
	}
	if _, err := s.Find("broken"); err == nil || !strings.Contains(err.Error(), "broken.md:2") {
		t.Errorf("Find(broken) error %v, want the file's own error", err)
	}
	if _, err := s.Find("nope"); err == nil || !strings.Contains(err.Error(), "cfgonly, reviewer, useronly") {
		t.Errorf("Find(nope) error %v, want the list of profiles", err)
	}
	if len(s.Errors) != 1 {
		t.Errorf("errors %v, want the broken file's only", s.Errors)
	}
}

func TestAllowsAndDefers(t *testing.T) {
	t.Parallel()
	p := Profile{Tools: []string{"github__*", "server:files"}, Defer: "true", DeferTools: []string{"github__create_*"}}
	tests := []struct {
		name, server   string
		allows, defers bool
	}{
		{"github__create_issue", "github", true, true},
		{"github__list_issues", "github", true, false},
		{"files__read", "files", true, false},
		{"memory__store", "memory", false, false},
	}
	for _, tt := range tests {
		if got := p.Allows(tt.name, tt.server); got != tt.allows {
			t.Errorf("Allows(%s) = %v, want %v", tt.name, got, tt.allows)
		}
		if got := p.Defers(tt.name, tt.server); got != tt.defers {
			t.Errorf("Defers(%s) = %v, want %v", tt.name, got, tt.defers)
		}
	}
	if !(Profile{}).Allows("anything", "") {
		t.Error("a profile without a tools list must allow every tool")
	}
	if !(Profile{Defer: "true"}).Defers("x", "s") {
		t.Error("defer: true without a list defers every tool")
	}
}

// JSON that YAML cannot read still gives its agents, without line numbers.
func TestParseConfigJSONOnly(t *testing.T) {
	t.Parallel()
	good := "{\"agents\": {\"b\": {\"model\": \"m\", \"mcp\": [\"gh\"]}, \"a\": {\"max_tokens\": \"x\"}}}\t\n\t"
	ps, errs := parseConfigJSON("c.json", []byte(good))
	if len(ps) != 1 || ps[0].Name != "b" || ps[0].Model != "m" || len(ps[0].MCP) != 1 {
		t.Errorf("profiles %+v", ps)
	}
	if len(errs) != 1 || errs[0].Error() != "c.json: agent profile a: field max_tokens: must be a positive whole number" {
		t.Errorf("errors %v", errs)
	}
}
