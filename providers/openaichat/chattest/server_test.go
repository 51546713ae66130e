package chattest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.BaseURL()+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const callMsg = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]}`

// The fake rejects what the real API rejects, with its messages.
func TestRejects(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"tool without call", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"tool after user", `{"model":"m","messages":[` + callMsg + `,{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"tool","tool_call_id":"c2","content":"r"},{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c2","content":"r"}]}`,
			"must be a response to a preceeding message"},
		{"unanswered call", `{"model":"m","messages":[` + callMsg + `,{"role":"tool","tool_call_id":"c1","content":"r"},{"role":"user","content":"x"}]}`,
			"The following tool_call_ids did not have response messages: c2"},
		{"unanswered at end", `{"model":"m","messages":[` + callMsg + `]}`, "did not have response messages: c1, c2"},
		{"unknown tool_call_id", `{"model":"m","messages":[` + callMsg + `,{"role":"tool","tool_call_id":"zz","content":"r"}]}`, "'tool_call_id' of 'zz' not found"},
		{"arguments object", `{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
			"expected a string, but got an object instead"},
		{"call id over 40 characters", `{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"` + strings.Repeat("c", 41) + `","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"` + strings.Repeat("c", 41) + `","content":"r"}]}`,
			"Invalid 'messages[0].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 41 instead."},
		{"image in a tool message", `{"model":"gpt-4.1","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
			"Invalid 'messages[1]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."},
		{"null assistant", `{"model":"m","messages":[{"role":"assistant","content":null}]}`, "expected a string, got null"},
		{"bad tool name", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a.b","parameters":{"type":"object"}}}]}`,
			"string does not match pattern"},
		{"long tool name", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"` + strings.Repeat("a", 65) + `"}}]}`,
			"string too long"},
		{"non-object schema", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"string"}}}]}`,
			"schema must be a JSON Schema of 'type:"},
		{"stream_options without stream", `{"model":"m","messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}}`,
			"only allowed when 'stream' is enabled"},
		{"unknown field", `{"model":"m","messages":[{"role":"user","content":"x"}],"think":true}`, "Unrecognized request argument supplied: think"},
		{"reasoning_content", `{"model":"m","messages":[{"role":"assistant","content":"a","reasoning_content":"r"}]}`, "('reasoning_content' was unexpected)"},
		{"no model", `{"messages":[{"role":"user","content":"x"}]}`, "you must provide a model parameter"},
		{"513 tools on Gemini", `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"x"}],"tools":[` + strings.TrimSuffix(strings.Repeat(`{"type":"function","function":{"name":"f"}},`, 513), ",") + `]}`,
			"At most 512 function declarations can be specified."},
		{"max_tokens on a reasoning model", `{"model":"gpt-5.4","messages":[{"role":"user","content":"x"}],"max_tokens":100}`,
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."},
		{"129 tools", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[` + strings.TrimSuffix(strings.Repeat(`{"type":"function","function":{"name":"f"}},`, 129), ",") + `]}`,
			"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead."},
		// Gemini's OpenAI-compatible endpoint declares the functions to
		// Gemini, whose schema rules apply (geminitest.SchemaRules).
		{"gemini empty object", `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]}`,
			"* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type"},
		{"gemini free-form object", `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}},{"type":"function","function":{"name":"g","parameters":{"type":"object","properties":{"arguments":{"type":"object"}}}}}]}`,
			"function_declarations[1].parameters.properties[arguments].properties: should be non-empty for OBJECT type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(t)
			code, body := post(t, s, "", tc.body)
			if code != 400 || !strings.Contains(body, tc.want) {
				t.Errorf("got %d %s, want 400 with %q", code, body, tc.want)
			}
			var e struct {
				Error struct{ Message, Type string }
			}
			if json.Unmarshal([]byte(body), &e) != nil || e.Error.Type != "invalid_request_error" {
				t.Errorf("not an OpenAI error body: %s", body)
			}
			if len(s.Rejected()) != 1 {
				t.Errorf("rejection not logged")
			}
		})
	}
}

func TestAuth(t *testing.T) {
	s := NewServer(t)
	s.APIKey = "sk-1"
	s.Script(Text("ok"))
	if code, body := post(t, s, "", `{"model":"m","messages":[{"role":"user","content":"x"}]}`); code != 401 || !strings.Contains(body, "didn't provide an API key") {
		t.Errorf("no key: %d %s", code, body)
	}
	if code, body := post(t, s, "sk-2", `{"model":"m","messages":[{"role":"user","content":"x"}]}`); code != 401 || !strings.Contains(body, "invalid_api_key") {
		t.Errorf("wrong key: %d %s", code, body)
	}
	if code, body := post(t, s, "sk-1", `{"model":"m","messages":[{"role":"user","content":"x"}]}`); code != 200 || !strings.Contains(body, `"object":"chat.completion"`) {
		t.Errorf("right key: %d %s", code, body)
	}
}

// The stream has the real shape: chunk objects, a usage chunk with empty
// choices, [DONE].
func TestStreamShape(t *testing.T) {
	s := NewServer(t)
	s.Split = 3
	s.Script(Turn{Text: "hello world", Calls: []Call{DirectCall("c1", "f", map[string]any{"a": "bcdefgh"})}})
	code, body := post(t, s, "", `{"model":"m","messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":{"include_usage":true}}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			lines = append(lines, l)
		}
	}
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
	var usage, argPieces int
	for _, l := range lines[:len(lines)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("bad chunk %q: %v", l, err)
		}
		if c.Usage != nil {
			usage++
			if len(c.Choices) != 0 {
				t.Error("usage chunk with choices")
			}
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID == "" && tc.Function.Arguments != "" {
					argPieces++
				}
			}
		}
	}
	if usage != 1 || argPieces < 3 {
		t.Errorf("usage chunks %d, argument pieces %d", usage, argPieces)
	}
}
