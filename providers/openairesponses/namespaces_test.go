package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func serverTools(server string, n int) []agent.ToolDef {
	var out []agent.ToolDef
	for i := 0; i < n; i++ {
		out = append(out, agent.ToolDef{Name: fmt.Sprintf("%s__tool_%02d", server, i), Description: "does " + server + " thing", Schema: json.RawMessage(`{"type":"object"}`), Server: server})
	}
	return out
}

func groupNames(gs []namespaceGroup) []string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s:%d", g.Name, len(g.Tools)))
	}
	return out
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestGroupDeferred(t *testing.T) {
	noServer := agent.ToolDef{Name: "scratchpad", Description: "Notes", Schema: json.RawMessage(`{"type":"object"}`)}
	long := strings.Repeat("very-long-server-name", 5)
	cases := []struct {
		name     string
		tools    []agent.ToolDef
		reserved []string
		want     string
	}{
		{"one server", serverTools("github", 3), nil, "github:3"},
		{"a large server is never split", serverTools("github", 90), nil, "github:90"},
		{"servers sorted", append(serverTools("zeta", 1), serverTools("alpha", 2)...), nil, "alpha:2 zeta:1"},
		{"no server", []agent.ToolDef{noServer}, nil, "tools:1"},
		{"no server next to servers", append(serverTools("github", 2), noServer), nil, "tools:1 github:2"},
		{"invalid characters", serverTools("my server.v2", 1), nil, "my_server_v2:1"},
		{"empty after cleaning", serverTools("...", 1), nil, "tools:1"},
		{"long name cut", serverTools(long, 9), nil, long[:56] + ":9"},
		{"collision after a suffix", append(serverTools("a.b", 1), append(serverTools("a_b", 1), serverTools("a_b_2", 1)...)...), nil, "a_b:1 a_b_2:1 a_b_2_2:1"},
		{"collision after cleaning", append(serverTools("a.b", 1), serverTools("a_b", 1)...), nil, "a_b:1 a_b_2:1"},
		{"reserved top-level name", serverTools("github", 1), []string{"github"}, "github_2:1"},
		{"nothing deferred", nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reserved := map[string]bool{}
			for _, r := range c.reserved {
				reserved[r] = true
			}
			gs := groupDeferred(c.tools, reserved)
			if got := strings.Join(groupNames(gs), " "); got != c.want {
				t.Errorf("groups = %s, want %s", got, c.want)
			}
			total := 0
			seen := map[string]bool{}
			for _, g := range gs {
				total += len(g.Tools)
				if !validName.MatchString(g.Name) || seen[g.Name] || reserved[g.Name] {
					t.Errorf("bad or duplicate name %q", g.Name)
				}
				seen[g.Name] = true
				if len(g.Tools) == 0 {
					t.Errorf("%s has %d tools", g.Name, len(g.Tools))
				}
				if len(g.Description) > maxNamespaceDesc || g.Description == "" {
					t.Errorf("%s description %d bytes: %q", g.Name, len(g.Description), g.Description)
				}
				for i := 1; i < len(g.Tools); i++ {
					if g.Tools[i-1].Name >= g.Tools[i].Name {
						t.Errorf("%s members not sorted", g.Name)
					}
				}
			}
			if total != len(c.tools) {
				t.Errorf("%d tools grouped, want %d", total, len(c.tools))
			}
		})
	}
}

// The grouping, and so the tools array, does not depend on the order the
// deferred tools come in.
func TestGroupDeferredDeterministic(t *testing.T) {
	var all []agent.ToolDef
	for _, s := range []string{"github", "notion", "fs", ""} {
		all = append(all, serverTools(s, 13)...)
	}
	req := func(ds []agent.ToolDef) *agent.Request {
		return &agent.Request{Model: "gpt-5.4", Search: agent.SearchNative, Tools: []agent.ToolDef{readFile}, Deferred: ds,
			Messages: []agent.Message{user(agent.TextPart("hi"))}}
	}
	_, want, _, err := New(Options{}).build(req(all))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		shuffled := append([]agent.ToolDef(nil), all...)
		r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		_, got, _, _ := New(Options{}).build(req(shuffled))
		if !bytes.Equal(got, want) {
			t.Fatalf("tools array depends on the order of the deferred tools")
		}
	}
}

func TestNamespaceDescription(t *testing.T) {
	// The server's own words, when it has them.
	gs := groupDeferred([]agent.ToolDef{
		{Name: "github__create_issue", Description: "Create a new issue.", Server: "github", ServerDescription: "GitHub's official MCP server: repositories, issues, pull requests.\nMore lines."},
		{Name: "github__list_pull_requests", Description: "List pull requests.", Server: "github", ServerDescription: "GitHub's official MCP server: repositories, issues, pull requests.\nMore lines."},
	}, nil)
	if want := "The github MCP server: GitHub's official MCP server: repositories, issues, pull requests."; gs[0].Description != want {
		t.Errorf("description = %q, want %q", gs[0].Description, want)
	}
	// Else what its tools are for, not their names.
	gs = groupDeferred([]agent.ToolDef{
		{Name: "fs__read_file", Description: "Read the complete contents of a file. Handles text.", Server: "fs"},
		{Name: "fs__write_file", Description: "Create a new file or overwrite an existing one (careful)", Server: "fs"},
		{Name: "fs__read_text", Description: "Read the complete contents of a file.", Server: "fs"},
	}, nil)
	if want := "The fs MCP server, to: read the complete contents of a file; create a new file or overwrite an existing one"; gs[0].Description != want {
		t.Errorf("description = %q, want %q", gs[0].Description, want)
	}
	if strings.Contains(gs[0].Description, "read_file") {
		t.Errorf("description lists names: %q", gs[0].Description)
	}
	var long []agent.ToolDef
	for i := 0; i < 30; i++ {
		long = append(long, agent.ToolDef{Name: fmt.Sprintf("srv__t%02d", i), Description: fmt.Sprintf("Do thing number %d with some care", i), Server: "srv"})
	}
	d := groupDeferred(long, nil)[0].Description
	if len(d) > maxNamespaceDesc || !strings.HasSuffix(d, "; and more") {
		t.Errorf("capped description (%d bytes) = %q", len(d), d)
	}
}

// A group whose tools say nothing is described by its count, in words
// that agree with it: "(1 tool)", "(2 tools)".
func TestNamespaceDescCount(t *testing.T) {
	for _, c := range []struct {
		tools []agent.ToolDef
		want  string
	}{
		{[]agent.ToolDef{{Name: "notes"}}, "Additional tools (1 tool)"},
		{[]agent.ToolDef{{Name: "notes"}, {Name: "todo"}}, "Additional tools (2 tools)"},
		{[]agent.ToolDef{{Name: "kv__get", Server: "kv"}}, "The kv MCP server (1 tool)"},
		{[]agent.ToolDef{{Name: "kv__get", Server: "kv"}, {Name: "kv__set", Server: "kv"}, {Name: "kv__del", Server: "kv"}}, "The kv MCP server (3 tools)"},
	} {
		if d := groupDeferred(c.tools, nil)[0].Description; d != c.want {
			t.Errorf("%d tools: description = %q, want %q", len(c.tools), d, c.want)
		}
	}
}

// A server's namespace keeps its name and its other members when the
// server's tool list changes.
func TestNamespaceStableWhenToolsChange(t *testing.T) {
	before := groupDeferred(append(serverTools("github", 12), serverTools("notion", 3)...), nil)
	after := groupDeferred(append(append(serverTools("github", 12), agent.ToolDef{Name: "github__aaa_new", Server: "github"}), serverTools("notion", 3)...), nil)
	if strings.Join(groupNames(before), " ") != "github:12 notion:3" || strings.Join(groupNames(after), " ") != "github:13 notion:3" {
		t.Errorf("before %v after %v", groupNames(before), groupNames(after))
	}
	if before[1].Description != after[1].Description || !equalDefs(before[1].Tools, after[1].Tools) {
		t.Error("another server's namespace changed")
	}
}

func equalDefs(a, b []agent.ToolDef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// A call rendered from neutral parts (another provider's history) gets the
// namespace of its group, and a client search result loads its tools inside
// their namespaces, only the found members.
func TestNeutralCallsGetGroupNamespace(t *testing.T) {
	deferred := append(serverTools("github", 20), weather, stock)
	hist := []agent.Message{
		user(agent.TextPart("go")),
		asst(agent.SearchCallPart(agent.SearchCall{ID: "s1", Where: agent.WhereClient, Query: "tool"})),
		user(agent.SearchResultPart(agent.SearchResult{CallID: "s1", Where: agent.WhereClient, Tools: []string{"github__tool_15", "get_weather", "github__tool_02", "github__tool_16"}})),
		asst(agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "github__tool_15", Input: json.RawMessage(`{}`)}),
			agent.ToolCallPart(agent.ToolCall{ID: "c2", Name: "read_file", Input: json.RawMessage(`{}`)})),
		user(agent.ToolResultPart(agent.ToolResult{CallID: "c1", Text: "ok"}), agent.ToolResultPart(agent.ToolResult{CallID: "c2", Text: "ok"})),
	}
	for _, mode := range []agent.SearchMode{agent.SearchNative, agent.SearchClient} {
		req := &agent.Request{Model: "gpt-5.4", Search: mode, Tools: []agent.ToolDef{readFile}, Deferred: deferred, Messages: hist}
		body, _, _, err := New(Options{}).build(req)
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Input []struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
				Tools     []struct {
					Type  string `json:"type"`
					Name  string `json:"name"`
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				} `json:"tools"`
			} `json:"input"`
		}
		_ = json.Unmarshal(body, &b)
		var loaded, calls []string
		for _, it := range b.Input {
			switch it.Type {
			case "tool_search_output":
				for _, ns := range it.Tools {
					var names []string
					for _, m := range ns.Tools {
						names = append(names, m.Name)
					}
					loaded = append(loaded, ns.Type+" "+ns.Name+": "+strings.Join(names, ","))
				}
			case "function_call":
				calls = append(calls, it.Name+"@"+it.Namespace)
			}
		}
		// One namespace per server, whatever its size.
		wantLoaded := "namespace github: github__tool_15,github__tool_02,github__tool_16|namespace weather: get_weather"
		if got := strings.Join(loaded, "|"); got != wantLoaded {
			t.Errorf("%s: loaded %s\nwant %s", mode, got, wantLoaded)
		}
		if got := strings.Join(calls, " "); got != "github__tool_15@github read_file@" {
			t.Errorf("%s: calls %s", mode, got)
		}
	}
}
