package responsestest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestRejects(t *testing.T) {
	tools := `[{"type":"tool_search"},{"type":"function","name":"get_weather","parameters":{"type":"object"},"defer_loading":true}]`
	cases := []struct {
		name, key, body, want string
		status                int
	}{
		{"no key", "", `{"model":"gpt-5.4","input":"hi"}`, "didn't provide an API key", 401},
		{"missing namespace", DefaultKey, `{"model":"gpt-5.4","tools":` + tools + `,"input":[{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{}"}]}`, "Missing namespace for function_call 'get_weather'", 400},
		{"duplicate id", DefaultKey, `{"model":"gpt-5.4","input":[{"id":"msg_1","role":"assistant","content":"a"},{"id":"msg_1","role":"assistant","content":"a"}]}`, "Duplicate item found with id msg_1", 400},
		{"orphan output", DefaultKey, `{"model":"gpt-5.4","input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`, "No tool call found for function call output with call_id c9", 400},
		{"orphan search output", DefaultKey, `{"model":"gpt-5.4","tools":` + tools + `,"input":[{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[]}]}`, "No tool search call found", 400},
		{"unsupported model", DefaultKey, `{"model":"gpt-4.1","tools":` + tools + `,"input":"hi"}`, "Tool 'tool_search' is not supported with model 'gpt-4.1'", 400},
		{"bare reasoning without store", DefaultKey, `{"model":"gpt-5.4","store":false,"input":[{"id":"rs_1","type":"reasoning","summary":[]}]}`, "Items are not persisted", 404},
		{"accepted", DefaultKey, `{"model":"gpt-5.4","tools":` + tools + `,"input":[{"type":"function_call","call_id":"c1","name":"get_weather","namespace":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			req, _ := http.NewRequest("POST", s.URL+"/responses", bytes.NewReader([]byte(c.body)))
			if c.key != "" {
				req.Header.Set("Authorization", "Bearer "+c.key)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			got := s.Requests()[0]
			if res.StatusCode != c.status || !strings.Contains(got.Error, c.want) {
				t.Errorf("status %d error %q, want %d %q", res.StatusCode, got.Error, c.status, c.want)
			}
		})
	}
}
