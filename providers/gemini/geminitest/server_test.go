package geminitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The fake answers what the API refuses with its status and words.
func TestRejectsNonObjectStructs(t *testing.T) {
	call := func(args string) string {
		return `{"role":"model","parts":[{"functionCall":{"name":"f","args":` + args + `}}]}`
	}
	reply := func(response string) string {
		return `{"role":"user","parts":[{"functionResponse":{"name":"f","response":` + response + `}}]}`
	}
	user := `{"role":"user","parts":[{"text":"hi"}]}`
	cases := []struct{ name, contents, want string }{
		{"objects", user + "," + call(`{"a":1}`) + "," + reply(`{"result":[1,2]}`), ""},
		{"list response", user + "," + call(`{}`) + "," + reply(`[1,2]`),
			`Invalid JSON payload received. Unknown name "response" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.`},
		{"list args", user + "," + call(`["x"]`) + "," + reply(`{}`),
			`Invalid JSON payload received. Unknown name "args" at 'contents[1].parts[0].function_call': Proto field is not repeating, cannot start list.`},
		{"string response", user + "," + call(`{}`) + "," + reply(`"done"`),
			`Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "done"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			s.Script = NewScript(Turn{Text: "ok"})
			body := `{"contents":[` + c.contents + `],"tools":[{"functionDeclarations":[{"name":"f"}]}]}`
			req, _ := http.NewRequest("POST", s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
			req.Header.Set("x-goog-api-key", DefaultKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Code    int
					Message string
					Status  string
				}
			}
			_ = json.NewDecoder(resp.Body).Decode(&e)
			if c.want == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, e.Error.Message)
				}
				return
			}
			if resp.StatusCode != 400 || e.Error.Status != "INVALID_ARGUMENT" || e.Error.Message != c.want {
				t.Errorf("got %d %s %q, want 400 INVALID_ARGUMENT %q", resp.StatusCode, e.Error.Status, e.Error.Message, c.want)
			}
		})
	}
}
