package openairesponses_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// A history whose turns reuse a call id (stored from Vertex AI's Gemini,
// which numbers each answer's calls from call_1, or from a Chat server's
// call_0) is sent with one call_id per call: the later uses get fresh ids,
// each output pairs with its own call, and the strict fake, which refuses
// a second output for one call_id, accepts it.
func TestRepeatedCallIDsGoOutUnique(t *testing.T) {
	call := func(id, path string) agent.Part {
		return agent.ToolCallPart(agent.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"` + path + `"}`)})
	}
	res := func(id, path string) agent.Part {
		return agent.ToolResultPart(agent.ToolResult{CallID: id, Name: "read_file", Text: "content of " + path})
	}
	user := func(s string) agent.Message {
		return agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(s)}}
	}
	cases := []struct {
		name string
		msgs []agent.Message
		want string // call_id=path pairs of the input, in order
	}{
		{"across turns", []agent.Message{
			user("read a"),
			{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_1", "a")}},
			{Role: agent.RoleUser, Parts: []agent.Part{res("call_1", "a")}},
			{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Read a.")}},
			user("read b"),
			{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_1", "b")}},
			{Role: agent.RoleUser, Parts: []agent.Part{res("call_1", "b")}},
			{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_1_2", "c")}},
			{Role: agent.RoleUser, Parts: []agent.Part{res("call_1_2", "c")}},
		}, "call_1=a call_1=a call_1_3=b call_1_3=b call_1_2=c call_1_2=c"},
		{"in one answer", []agent.Message{
			user("read a and b"),
			{Role: agent.RoleAssistant, Parts: []agent.Part{call("call_0", "a"), call("call_0", "b")}},
			{Role: agent.RoleUser, Parts: []agent.Part{res("call_0", "a"), res("call_0", "b")}},
		}, "call_0=a call_0_2=b call_0=a call_0_2=b"},
	}
	for _, model := range []string{"gpt-5.4", "gpt-4.1"} {
		for _, c := range cases {
			srv := rt.NewServer(t)
			p := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
			req := &agent.Request{Model: model, Messages: append(c.msgs, user("go on")), NoStream: true,
				Tools: []agent.ToolDef{{Name: "read_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
			if _, err := p.Send(t.Context(), req, nil); err != nil {
				t.Fatalf("%s %s: %v", model, c.name, err)
			}
			var body struct {
				Input []struct {
					Type      string `json:"type"`
					CallID    string `json:"call_id"`
					Arguments string `json:"arguments"`
					Output    string `json:"output"`
				} `json:"input"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range body.Input {
				switch it.Type {
				case "function_call":
					var a struct{ Path string }
					_ = json.Unmarshal([]byte(it.Arguments), &a)
					got = append(got, it.CallID+"="+a.Path)
				case "function_call_output":
					got = append(got, it.CallID+"="+strings.TrimPrefix(it.Output, "content of "))
				}
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("%s %s: input pairs %q, want %q", model, c.name, strings.Join(got, " "), c.want)
			}
		}
	}
}
