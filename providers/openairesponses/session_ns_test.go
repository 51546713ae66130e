package openairesponses_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

// githubTools are 20 deferred tools of one server: three namespaces
// (github: 7, github_2: 7, github_3: 6). merge_pull_request is the 16th by
// name, so it lives in github_3.
var githubNames = []string{"add_comment", "create_branch", "create_issue", "create_pull_request", "fork_repository",
	"get_commit", "get_file_contents", "get_issue", "get_me", "get_pull_request", "list_branches", "list_commits",
	"list_issues", "list_pull_requests", "list_tags", "merge_pull_request", "push_files", "search_code",
	"search_issues", "update_issue"}

func githubSession(t *testing.T, srv *rt.Server, mode agent.SearchMode) (*agent.Session, *[]string) {
	t.Helper()
	var ran []string
	set := tools.NewSet()
	var ts []tools.Tool
	for _, n := range githubNames {
		name := "github__" + n
		ts = append(ts, tools.Tool{Name: name, Description: strings.ReplaceAll(n, "_", " ") + " on GitHub", Server: "github",
			Schema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"}}}`),
			Exec: func(context.Context, json.RawMessage) (tools.Result, error) {
				ran = append(ran, name)
				return tools.Result{Text: "ok"}, nil
			}})
	}
	if err := set.Add([]tools.Option{tools.Defer(true)}, ts...); err != nil {
		t.Fatal(err)
	}
	p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
	return agent.New(agent.Config{Provider: p, Model: "gpt-5.4", Tools: set, Search: mode, Searcher: fakeSearcher{set},
		Backoff: time.Millisecond}), &ran
}

type inputItem struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Execution string          `json:"execution"`
	Tools     json.RawMessage `json:"tools"`
}

func inputOf(t *testing.T, body map[string]json.RawMessage) []inputItem {
	var in []inputItem
	if err := json.Unmarshal(body["input"], &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// A hosted search loads one member of a namespaced server; the call comes
// back in that namespace, runs, and every later request replays it with the
// namespace, which the fake requires.
func TestSessionHostedSearchNamespaces(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Script(
		rt.Turn{rt.HostedSearch("merge"), rt.Call("github__merge_pull_request", `{"repo":"a/b"}`)},
		rt.Turn{rt.Text("Merged.")},
		rt.Turn{rt.Call("github__merge_pull_request", `{"repo":"c/d"}`)},
		rt.Turn{rt.Text("Merged that too.")},
	)
	s, ran := githubSession(t, srv, agent.SearchNative)
	run(t, s, "merge the PR")
	run(t, s, "and the other one")
	bodies := checkRequests(t, srv, 4)
	if len(*ran) != 2 {
		t.Errorf("tool ran %d times", len(*ran))
	}
	var tls []struct {
		Type, Name string
		Tools      []json.RawMessage
	}
	_ = json.Unmarshal(bodies[0]["tools"], &tls)
	var names []string
	for _, tl := range tls {
		names = append(names, tl.Type+":"+tl.Name)
	}
	if got := strings.Join(names, " "); got != "tool_search: namespace:github" {
		t.Errorf("tools = %s", got)
	}
	// The hosted search loaded the github namespace with the merge tool only.
	var loaded []string
	for _, it := range inputOf(t, bodies[1]) {
		if it.Type == "tool_search_output" {
			loaded = append(loaded, string(it.Tools))
		}
	}
	if len(loaded) != 1 || !strings.Contains(loaded[0], `"name":"github"`) || strings.Count(loaded[0], `"type":"function"`) != 1 {
		t.Errorf("loaded = %v", loaded)
	}
	calls := 0
	for _, it := range inputOf(t, bodies[3]) {
		if it.Type == "function_call" {
			calls++
			if it.Name != "github__merge_pull_request" || it.Namespace != "github" {
				t.Errorf("replayed call %s in namespace %q", it.Name, it.Namespace)
			}
		}
	}
	if calls != 2 {
		t.Errorf("%d calls replayed, want 2", calls)
	}
	if !contains(s.Discovered(), "github__merge_pull_request") {
		t.Errorf("discovered = %v", s.Discovered())
	}
}

// Client-executed search: our tool_search_output loads the found tool inside
// its namespace, and the call the model then makes is replayed in it.
func TestSessionClientSearchNamespaces(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Script(
		rt.Turn{rt.ClientSearch("merge")},
		rt.Turn{rt.Call("github__merge_pull_request", `{"repo":"a/b"}`)},
		rt.Turn{rt.Text("Merged.")},
	)
	s, ran := githubSession(t, srv, agent.SearchClient)
	run(t, s, "merge the PR")
	bodies := checkRequests(t, srv, 3)
	if len(*ran) != 1 {
		t.Errorf("tool ran %d times", len(*ran))
	}
	var out []inputItem
	for _, it := range inputOf(t, bodies[1]) {
		if it.Type == "tool_search_output" {
			out = append(out, it)
		}
	}
	if len(out) != 1 || out[0].Execution != "client" {
		t.Fatalf("search outputs = %+v", out)
	}
	var nss []struct {
		Type, Name, Description string
		Tools                   []struct{ Name string }
	}
	_ = json.Unmarshal(out[0].Tools, &nss)
	if len(nss) != 1 || nss[0].Type != "namespace" || nss[0].Name != "github" || nss[0].Description == "" ||
		len(nss[0].Tools) != 1 || nss[0].Tools[0].Name != "github__merge_pull_request" {
		t.Errorf("tool_search_output tools = %s", out[0].Tools)
	}
	for _, it := range inputOf(t, bodies[2]) {
		if it.Type == "function_call" && it.Namespace != "github" {
			t.Errorf("replayed call %s in namespace %q", it.Name, it.Namespace)
		}
	}
}
