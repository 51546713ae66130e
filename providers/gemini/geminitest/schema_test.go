package geminitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestSchemaRules: the fake answers a declaration Gemini rejects with the
// API's 400 INVALID_ARGUMENT and its message, and takes the fixed form.
func TestSchemaRules(t *testing.T) {
	const at = "* GenerateContentRequest.tools[0].function_declarations[0].parameters"
	cases := []struct {
		name, params, want string
	}{
		{"object without properties at the top", `{"type":"object","properties":{}}`, at + ".properties: should be non-empty for OBJECT type"},
		{"free-form object property", `{"type":"object","properties":{"variables":{"type":"object"}}}`, at + ".properties[variables].properties: should be non-empty for OBJECT type"},
		{"properties on a string", `{"type":"object","properties":{"data":{"type":"string","properties":{"a":{"type":"string"}}}}}`, at + ".properties[data].properties: only allowed for OBJECT type"},
		{"required on a string", `{"type":"object","properties":{"data":{"type":"string","required":["a"]}}}`, at + ".properties[data].required: only allowed for OBJECT type"},
		{"enum on an integer", `{"type":"object","properties":{"n":{"type":"integer","enum":["1","2"]}}}`, at + ".properties[n].enum: only allowed for STRING type"},
		{"format on an object", `{"type":"object","properties":{"rgb":{"type":"array","format":"rgb","items":{"type":"integer"}}}}`, at + ".properties[rgb].format: format is only supported for NUMBER, INTEGER and STRING type"},
		{"array without items", `{"type":"object","properties":{"tags":{"type":"array"}}}`, at + ".properties[tags].items: missing field."},
		{"array of untyped items", `{"type":"object","properties":{"values":{"type":"array","items":{"type":"array","items":{}}}}}`, at + ".properties[values].items.items: missing field."},
		{"untyped property", `{"type":"object","properties":{"entity_id":{"description":"x"}}}`, at + ".properties[entity_id].type: must be specified"},
		{"required name not a property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, at + ".required[1]: property is not defined"},
		{"accepted", `{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"tags":{"type":"array","items":{"type":"string"}},"o":{"type":"object","properties":{"k":{"type":"integer","format":"int32"}},"required":["k"]},"u":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["a"]}`, ""},
	}
	s := NewServer(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","description":"d","parameters":` + c.params + `}]}]}`
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
			req.Header.Set("x-goog-api-key", DefaultKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Status  string `json:"status"`
				} `json:"error"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&e)
			if c.want == "" {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d (%s), want 200", resp.StatusCode, e.Error.Message)
				}
				return
			}
			if resp.StatusCode != 400 || e.Error.Code != 400 || e.Error.Status != "INVALID_ARGUMENT" {
				t.Fatalf("got %d %s, want 400 INVALID_ARGUMENT", resp.StatusCode, e.Error.Status)
			}
			if e.Error.Message != c.want {
				t.Errorf("message\n got %s\nwant %s", e.Error.Message, c.want)
			}
		})
	}
}

// More than 512 function declarations are the API's 400 (gemini-cli#19083).
func TestDeclarationLimit(t *testing.T) {
	s := NewServer(t)
	for _, n := range []int{MaxDeclarations, MaxDeclarations + 1} {
		decls := make([]string, n)
		for i := range decls {
			decls[i] = fmt.Sprintf(`{"name":"f%d"}`, i)
		}
		body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[` + strings.Join(decls, ",") + `]}]}`
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(body))
		req.Header.Set("x-goog-api-key", DefaultKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 200
		if n > MaxDeclarations {
			want = 400
		}
		if resp.StatusCode != want {
			t.Errorf("%d declarations: status %d, want %d", n, resp.StatusCode, want)
		}
	}
	if r := s.Rejected(); len(r) != 1 || !strings.Contains(r[0].Rejection, "At most 512 function declarations can be specified.") {
		t.Errorf("rejections %+v", r)
	}
}
