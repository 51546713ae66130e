package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/tools"
)

// screenshot is a tool that returns an image.
var screenshot = agent.ToolDef{Name: "screenshot", Description: "Take a screenshot.", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}

func warnings(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == agent.EventWarning {
			out = append(out, e.Text)
		}
	}
	return out
}

// An image a tool returns never reaches a model that reads none: the fake
// refuses image_url parts to it with the server's own words, and the tool
// result says the image was left out.
func TestToolImagesLeftOutForTextOnlyModels(t *testing.T) {
	for _, tc := range []struct{ name, model, refusal string }{
		{"deepseek", "deepseek-flash", "Model do not support image input"},
		{"deepseek", "deepseek-v4-pro", "Model do not support image input"},
		{"groq", "llama-3.3-70b-versatile", "Invalid content type. image_url is only supported by certain models."},
	} {
		t.Run(tc.model, func(t *testing.T) {
			body := []byte(`{"model":"` + tc.model + `","messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`)
			if err := chattest.Check(body, true); err == nil || !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("fake should refuse an image to %s with %q, got %v", tc.model, tc.refusal, err)
			}
			fake := chattest.NewServer(t)
			fake.AcceptReasoning = true
			fake.Script(chattest.Calls(chattest.DirectCall("call_1", "screenshot", map[string]any{})), chattest.Text("done"))
			s := testSession(t, fake)
			shot := func(context.Context, json.RawMessage) (tools.Result, error) {
				return tools.Result{Text: "captured", Images: []tools.Image{{MediaType: "image/png", Data: "iVBORw0KGgo="}}}, nil
			}
			if err := s.Tools().Add(nil, toolOf(screenshot, shot)); err != nil {
				t.Fatal(err)
			}
			_ = s.Override(func(turn *agent.TurnContext) {
				turn.Provider, turn.Model, turn.Search = New(Options{Name: tc.name, BaseURL: fake.BaseURL()}), tc.model, agent.SearchOff
			})
			run(t, s, "take a screenshot")
			reqs := noRejection(t, fake)
			last := reqs[len(reqs)-1].Body
			if bytes.Contains(last, []byte("image_url")) {
				t.Errorf("an image reached %s: %s", tc.model, last)
			}
			if !bytes.Contains(last, []byte(`captured\n[an image was omitted because the model takes no images]`)) {
				t.Errorf("the tool result does not say the image was left out: %s", last)
			}
		})
	}
}

// DeepSeek V4 takes reasoning_effort (high, max) with the thinking switch
// on; --effort none turns thinking off; the reasoning_content of a
// tool-call turn goes back as for deepseek-reasoner.
func TestDeepSeekV4Effort(t *testing.T) {
	for _, tc := range []struct{ effort, want, warn string }{
		{"high", `"thinking":{"type":"enabled"},"reasoning_effort":"high"`, ""},
		{"max", `"thinking":{"type":"enabled"},"reasoning_effort":"max"`, ""},
		{"low", `"thinking":{"type":"enabled"},"reasoning_effort":"high"`, "--effort low: deepseek-flash takes high, max; sending high"},
		{"none", `"thinking":{"type":"disabled"}`, ""},
	} {
		t.Run(tc.effort, func(t *testing.T) {
			fake := chattest.NewServer(t)
			fake.AcceptReasoning = true
			fake.Script(chattest.Turn{Reasoning: "read it first", Calls: []chattest.Call{chattest.DirectCall("call_1", "read_file", map[string]any{"path": "a"})}},
				chattest.Text("done"))
			s := testSession(t, fake)
			_ = s.Override(func(turn *agent.TurnContext) {
				turn.Provider, turn.Model, turn.Effort, turn.Search = New(Options{Name: "deepseek", BaseURL: fake.BaseURL()}), "deepseek-flash", tc.effort, agent.SearchOff
			})
			evs := run(t, s, "read a")
			reqs := noRejection(t, fake)
			if !bytes.Contains(reqs[0].Body, []byte(tc.want)) {
				t.Errorf("--effort %s: %s", tc.effort, reqs[0].Body)
			}
			if tc.effort == "none" && bytes.Contains(reqs[0].Body, []byte("reasoning_effort")) {
				t.Errorf("--effort none sent an effort: %s", reqs[0].Body)
			}
			if !bytes.Contains(reqs[1].Body, []byte(`"reasoning_content":"read it first"`)) {
				t.Errorf("reasoning_content not replayed: %s", reqs[1].Body)
			}
			if w := warnings(evs); tc.warn != "" && (len(w) != 1 || w[0] != tc.warn) || tc.warn == "" && len(w) != 0 {
				t.Errorf("warnings %q, want %q", w, tc.warn)
			}
		})
	}
	body := []byte(`{"model":"deepseek-flash","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"on"}}`)
	if err := chattest.Check(body, true); err == nil {
		t.Error("the fake took a thinking type DeepSeek does not have")
	}
	body = []byte(`{"model":"deepseek-flash","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"medium"}`)
	if err := chattest.Check(body, true); err == nil {
		t.Error("the fake took a reasoning_effort DeepSeek V4 does not have")
	}
}

// OpenRouter maps effort for every reasoning model, whatever its maker:
// --effort goes as its "reasoning" object.
func TestOpenRouterEffortForEveryReasoningModel(t *testing.T) {
	for _, tc := range []struct{ model, effort, want string }{
		{"anthropic/claude-sonnet-4.5", "high", `"reasoning":{"effort":"high"}`},
		{"anthropic/claude-opus-4.6", "max", `"reasoning":{"effort":"xhigh"}`},
		{"google/gemini-2.5-pro", "low", `"reasoning":{"effort":"low"}`},
		{"deepseek/deepseek-r1", "medium", `"reasoning":{"effort":"medium"}`},
		{"deepseek/deepseek-v4-flash", "none", `"reasoning":{"effort":"none"}`},
		{"openai/gpt-5", "minimal", `"reasoning":{"effort":"minimal"}`},
	} {
		t.Run(tc.model, func(t *testing.T) {
			fake := chattest.NewServer(t)
			fake.Router, fake.AcceptReasoning = true, true
			fake.Script(chattest.Text("ok"))
			p, err := FromPreset("openrouter", Options{BaseURL: fake.BaseURL(), APIKey: "k"}, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			s := testSession(t, fake)
			_ = s.Override(func(turn *agent.TurnContext) {
				turn.Provider, turn.Model, turn.Effort, turn.Search = p, tc.model, tc.effort, agent.SearchOff
			})
			evs := run(t, s, "hi")
			r := noRejection(t, fake)[0]
			if !bytes.Contains(r.Body, []byte(tc.want)) || bytes.Contains(r.Body, []byte("reasoning_effort")) {
				t.Errorf("%s --effort %s: %s", tc.model, tc.effort, r.Body)
			}
			if w := warnings(evs); len(w) != 0 {
				t.Errorf("warnings %q", w)
			}
		})
	}
	body := []byte(`{"model":"openai/gpt-5","messages":[{"role":"user","content":"hi"}],"reasoning":{"effort":"high"}}`)
	if err := chattest.Check(body, false); err == nil || !strings.Contains(err.Error(), "Unrecognized request argument supplied: reasoning") {
		t.Errorf("OpenAI itself refuses the reasoning object: %v", err)
	}
}
