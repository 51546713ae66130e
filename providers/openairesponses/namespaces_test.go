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
		{"exactly 8", serverTools("github", 8), nil, "github:8"},
		{"9 split evenly", serverTools("github", 9), nil, "github:5 github_2:4"},
		{"20 tools", serverTools("github", 20), nil, "github:7 github_2:7 github_3:6"},
		{"servers sorted", append(serverTools("zeta", 1), serverTools("alpha", 2)...), nil, "alpha:2 zeta:1"},
		{"no server", []agent.ToolDef{noServer}, nil, "tools:1"},
		{"no server next to servers", append(serverTools("github", 2), noServer), nil, "tools:1 github:2"},
		{"invalid characters", serverTools("my server.v2", 1), nil, "my_server_v2:1"},
		{"empty after cleaning", serverTools("...", 1), nil, "tools:1"},
		{"long name cut", serverTools(long, 9), nil, long[:56] + ":5 " + long[:56] + "_2:4"},
		{"collision with a chunk name", append(serverTools("github", 9), serverTools("github_2", 1)...), nil, "github:5 github_2:4 github_2_2:1"},
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
				if len(g.Tools) > maxPerNamespace || len(g.Tools) == 0 {
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
	gs := groupDeferred([]agent.ToolDef{
		{Name: "github__create_issue", Server: "github"},
		{Name: "github__list_pull_requests", Server: "github"},
		{Name: "plain", Server: "github"},
	}, nil)
	if want := "Tools of the github MCP server: create_issue, list_pull_requests, plain"; gs[0].Description != want {
		t.Errorf("description = %q, want %q", gs[0].Description, want)
	}
	gs = groupDeferred(serverTools("github", 9), nil)
	if !strings.HasPrefix(gs[1].Description, "Tools of the github MCP server (part 2 of 2): tool_05, tool_06") {
		t.Errorf("chunk description = %q", gs[1].Description)
	}
	var long []agent.ToolDef
	for i := 0; i < 8; i++ {
		long = append(long, agent.ToolDef{Name: fmt.Sprintf("srv__%s_%d", strings.Repeat("x", 40), i), Server: "srv"})
	}
	d := groupDeferred(long, nil)[0].Description
	if len(d) > maxNamespaceDesc || !strings.HasSuffix(d, " more") {
		t.Errorf("capped description (%d bytes) = %q", len(d), d)
	}
	if d := groupDeferred([]agent.ToolDef{{Name: "notes"}}, nil)[0].Description; d != "Additional tools: notes" {
		t.Errorf("no-server description = %q", d)
	}
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
		// github's 20 tools: github (00-06), github_2 (07-13), github_3 (14-19).
		wantLoaded := "namespace github_3: github__tool_15,github__tool_16|namespace weather: get_weather|namespace github: github__tool_02"
		if got := strings.Join(loaded, "|"); got != wantLoaded {
			t.Errorf("%s: loaded %s\nwant %s", mode, got, wantLoaded)
		}
		if got := strings.Join(calls, " "); got != "github__tool_15@github_3 read_file@" {
			t.Errorf("%s: calls %s", mode, got)
		}
	}
}
