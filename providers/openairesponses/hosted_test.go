package openairesponses_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

func TestWebSearchSources(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := rt.NewServer(t)
		src := []rt.Source{{URL: "https://go.dev/doc", Title: "Go docs"}, {URL: "https://go.dev/blog"}}
		srv.Script(rt.Turn{rt.WebSearch("go 1.26 release", src...), rt.Text("Go 1.26 is out.", src[0], src[0])})
		p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
		s := agent.New(agent.Config{Provider: p, Model: "gpt-5.4", NoStream: noStream, Tools: tools.NewSet(),
			ProviderTools: []agent.ProviderTool{{Alias: "web_search"}}})
		var uses int
		var shown []*agent.ServerTool
		if err := s.Run(context.Background(), "news?", func(e agent.Event) {
			if e.Type == agent.EventUsage {
				uses += e.Usage.ServerToolUses["web_search_requests"]
			}
			if e.Type == agent.EventServerTool {
				shown = append(shown, e.ServerTool)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if uses != 1 || len(shown) != 1 {
			t.Errorf("web search uses = %d, events = %d", uses, len(shown))
		}
		var st *agent.ServerTool
		for _, p := range s.Messages()[1].Parts {
			if p.ServerTool != nil {
				st = p.ServerTool
			}
		}
		if st == nil || st.Name != "web_search" || len(st.Sources) != 2 || st.Sources[0].Title != "Go docs" {
			t.Fatalf("sources = %+v", st)
		}
		// A resumed session replays the web search items; the fake accepts them.
		srv.Script(rt.Turn{rt.Text("More later.")})
		run(t, s, "more?")
		last := srv.Requests()[1]
		if last.Status != 200 || !strings.Contains(string(last.Body), `"type":"web_search_call"`) {
			t.Errorf("replay: %d %s", last.Status, last.Error)
		}
	}
}

func TestMCPApproval(t *testing.T) {
	for _, allow := range []bool{false, true} {
		srv := rt.NewServer(t)
		srv.Script(rt.Turn{rt.MCPApproval("deepwiki", "ask_question", `{"q":"x"}`)},
			rt.Turn{rt.MCPCall("deepwiki", "ask_question", `{"q":"x"}`, "42"), rt.Text("answered")})
		p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
		s := agent.New(agent.Config{Provider: p, Model: "gpt-5.4", Tools: tools.NewSet(),
			ProviderTools: []agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"name":"deepwiki","url":"https://mcp.deepwiki.com/mcp"}`)}}})
		asked := 0
		if err := s.Run(context.Background(), "ask", func(e agent.Event) {
			if e.Type == agent.EventApproval {
				asked++
				s.Answer(e.Tool.ID, allow)
			}
		}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if asked != 1 || len(reqs) != 2 || reqs[1].Status != 200 {
			t.Fatalf("allow=%v asked=%d requests=%d", allow, asked, len(reqs))
		}
		if !strings.Contains(string(reqs[1].Body), `"type":"mcp_approval_response"`) ||
			!strings.Contains(string(reqs[1].Body), `"approve":`+map[bool]string{true: "true", false: "false"}[allow]) {
			t.Errorf("approval not sent: %s", reqs[1].Body)
		}
		ran := false
		for _, p := range s.Messages()[len(s.Messages())-1].Parts {
			ran = ran || (p.ServerTool != nil && p.ServerTool.Name == "deepwiki.ask_question" && !p.ServerTool.Pending)
		}
		if ran != allow {
			t.Errorf("allow=%v but the call ran=%v", allow, ran)
		}
	}
}
