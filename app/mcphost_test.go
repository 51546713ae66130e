package app

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

// sampleProvider answers every request with its model and the last user
// text, and records the requests.
type sampleProvider struct{ reqs []*agent.Request }

func (p *sampleProvider) Name() string             { return "anthropic" }
func (p *sampleProvider) API() string              { return "messages" }
func (p *sampleProvider) NativeSearch(string) bool { return false }
func (p *sampleProvider) Send(_ context.Context, r *agent.Request, _ func(agent.StreamEvent)) (*agent.Response, error) {
	p.reqs = append(p.reqs, r)
	last := r.Messages[len(r.Messages)-1]
	return &agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(r.Model + ": " + last.Text())}},
		Usage: agent.Usage{InputTokens: 11, OutputTokens: 7}, StopReason: agent.StopEnd}, nil
}

func TestSamplingAndElicitationPolicies(t *testing.T) {
	req := mcptools.SamplingRequest{Server: "ev", System: "be brief", MaxTokens: 50, Hints: []string{"haiku"},
		Messages: []mcptools.SamplingMessage{{Role: "user", Text: "ping"}}}
	form := mcptools.Elicitation{Server: "ev", Mode: "form", Fields: []mcptools.Field{
		{Name: "name", Type: "string", Default: "John", HasDefault: true}, {Name: "age", Type: "integer"}}}
	required := mcptools.Elicitation{Server: "ev", Mode: "form", Fields: []mcptools.Field{{Name: "token", Type: "string", Required: true}}}
	for _, tt := range []struct {
		name        string
		yes         bool
		elicitation string
		sampled     bool
		form, req   string // actions for the two forms
	}{
		{"default", false, "", false, "decline", "decline"},
		{"accept-defaults", false, "accept-defaults", false, "accept", "decline"},
		{"yes", true, "", true, "accept", "decline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &sampleProvider{}
			a := &App{session: agent.New(agent.Config{Provider: p, Model: "claude-sonnet-4-5"}), label: "anthropic", opts: Options{Yes: tt.yes}}
			a.settings.Elicitation = tt.elicitation
			h := mcpHost{a}
			ans, err := h.Sample(t.Context(), req)
			if tt.sampled {
				if err != nil || len(p.reqs) != 1 {
					t.Fatalf("sample: %v, %d requests", err, len(p.reqs))
				}
				r := p.reqs[0]
				if r.System != "be brief" || r.MaxTokens != 50 || ans.Text != ans.Model+": ping" || ans.StopReason != "endTurn" {
					t.Errorf("request %+v answer %+v", r, ans)
				}
				if a.Spend().Requests != 1 || a.Spend().Usage.OutputTokens != 7 {
					t.Errorf("sampling not counted in usage: %+v", a.Spend())
				}
			} else if err == nil || len(p.reqs) != 0 {
				t.Fatalf("sampling ran without --yes: %v", err)
			}
			for _, c := range []struct {
				e    mcptools.Elicitation
				want string
			}{{form, tt.form}, {required, tt.req}} {
				got, err := h.Elicit(t.Context(), c.e)
				if err != nil || got.Action != c.want {
					t.Errorf("elicit %v: %+v %v, want %s", c.e.Fields[0].Name, got, err, c.want)
				}
				if got.Action == "accept" && got.Content["name"] != "John" {
					t.Errorf("accept-defaults content: %v", got.Content)
				}
			}
		})
	}
}

func TestSamplingModelHints(t *testing.T) {
	a := &App{session: agent.New(agent.Config{Provider: &sampleProvider{}, Model: "claude-sonnet-4-5"}), label: "anthropic"}
	if m := a.samplingModel(nil, "claude-sonnet-4-5"); m != "claude-sonnet-4-5" {
		t.Errorf("no hint: %s", m)
	}
	if m := a.samplingModel([]string{"sonnet"}, "claude-sonnet-4-5"); m != "claude-sonnet-4-5" {
		t.Errorf("the current model fits: %s", m)
	}
	if m := a.samplingModel([]string{"gpt-9", "haiku"}, "claude-sonnet-4-5"); m == "claude-sonnet-4-5" || !strings.Contains(m, "haiku") {
		t.Errorf("hint haiku: %s", m)
	}
	if m := a.samplingModel([]string{"no-such-model"}, "claude-sonnet-4-5"); m != "claude-sonnet-4-5" {
		t.Errorf("unknown hint: %s", m)
	}
}
