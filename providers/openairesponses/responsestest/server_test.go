package responsestest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// nsTools has two namespaces of deferred functions, as the adapter sends them.
const nsTools = `[{"type":"tool_search"},` +
	`{"type":"namespace","name":"gh","description":"Tools of the gh MCP server: create_issue, list_pulls","tools":[` +
	`{"type":"function","name":"gh__create_issue","description":"Create an issue","parameters":{"type":"object"},"strict":false,"defer_loading":true},` +
	`{"type":"function","name":"gh__list_pulls","description":"List pull requests","parameters":{"type":"object"},"strict":false,"defer_loading":true}]},` +
	`{"type":"namespace","name":"fs","description":"Tools of the fs MCP server: read","tools":[` +
	`{"type":"function","name":"fs__read","description":"Read a file","parameters":{"type":"object"},"strict":false,"defer_loading":true}]}]`

func TestRejects(t *testing.T) {
	enc := seal(DefaultOrg, "rs_1")
	tools := `[{"type":"tool_search"},{"type":"function","name":"get_weather","parameters":{"type":"object"},"strict":false,"defer_loading":true}]`
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
		{"call_id as a call's item id", DefaultKey, `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"id":"call_9","type":"function_call","call_id":"call_9","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_9","output":"x"}]}`,
			"Invalid 'input[1].id': 'call_9'. Expected an ID that begins with 'fc'.", 400},
		{"call_id over 64 characters", DefaultKey, `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"` + strings.Repeat("c", 65) + `","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"` + strings.Repeat("c", 65) + `","output":"x"}]}`,
			"Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.", 400},
		{"empty call_id", DefaultKey, `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"","name":"f","arguments":"{}"}]}`,
			"Invalid 'input[1].call_id': empty string. Expected a string with minimum length 1, but got an empty string instead.", 400},
		{"reasoning last", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"}]}`,
			"Item 'rs_1' of type 'reasoning' was provided without its required following item.", 400},
		{"reasoning before a user message", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},{"role":"user","content":"and?"}]}`,
			"Item 'rs_1' of type 'reasoning' was provided without its required following item.", 400},
		{"reasoning with its call", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"x"}]}`,
			"", 200},
		{"reasoning with its answer", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]},{"role":"user","content":"and?"}]}`,
			"", 200},
		// Encrypted reasoning verifies for the key's organization only (orgs.go).
		{"encrypted for another organization", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + seal("org-other", "rs_1") + `"},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}]}`,
			"The encrypted content for item rs_1 could not be verified. Reason: Encrypted content organization_id did not match the target organization.", 400},
		{"encrypted for the other key's organization", "key-b", `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}]}`,
			"Reason: Encrypted content organization_id did not match the target organization.", 400},
		{"encrypted for another item", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"id":"rs_2","type":"reasoning","summary":[],"encrypted_content":"` + enc + `"},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}]}`,
			"The encrypted content for item rs_2 could not be verified. Reason: Encrypted content item_id did not match the target item id.", 400},
		{"encrypted garbage without id", DefaultKey, `{"model":"gpt-5.4","input":[{"role":"user","content":"hi"},{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB0123456789"},{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}]}`,
			"The encrypted content gAAA...6789 could not be verified. Reason: Encrypted content could not be decrypted or parsed.", 400},
		{"bare reasoning without store", DefaultKey, `{"model":"gpt-5.4","store":false,"input":[{"id":"rs_1","type":"reasoning","summary":[]}]}`, "Items are not persisted", 404},
		{"namespace missing on replay", DefaultKey, `{"model":"gpt-5.4","tools":` + nsTools + `,"input":[{"type":"function_call","call_id":"c1","name":"gh__create_issue","arguments":"{}"}]}`, "Missing namespace for function_call 'gh__create_issue'", 400},
		{"wrong namespace on replay", DefaultKey, `{"model":"gpt-5.4","tools":` + nsTools + `,"input":[{"type":"function_call","call_id":"c1","name":"gh__create_issue","namespace":"gh__create_issue","arguments":"{}"}]}`, "Function 'gh__create_issue' not found in namespace 'gh__create_issue'", 400},
		{"other group's namespace", DefaultKey, `{"model":"gpt-5.4","tools":` + nsTools + `,"input":[{"type":"function_call","call_id":"c1","name":"gh__create_issue","namespace":"fs","arguments":"{}"}]}`, "not found in namespace 'fs'", 400},
		{"namespace accepted", DefaultKey, `{"model":"gpt-5.4","tools":` + nsTools + `,"input":[{"type":"function_call","call_id":"c1","name":"gh__create_issue","namespace":"gh","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "", 200},
		{"namespace loaded by a client search", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[` +
			`{"type":"tool_search_call","execution":"client","call_id":"s1","arguments":{"query":"x"}},` +
			`{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[{"type":"namespace","name":"crm","description":"CRM","tools":[{"type":"function","name":"crm__find","parameters":{"type":"object"},"strict":false}]}]},` +
			`{"type":"function_call","call_id":"c1","name":"crm__find","namespace":"crm","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "", 200},
		{"call without output", DefaultKey, `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"call_9","name":"f","arguments":"{}"},{"role":"user","content":"and?"}]}`,
			"No tool output found for function call call_9.", 400},
		{"call of a namespace no search loaded", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[` +
			`{"type":"function_call","call_id":"c1","name":"crm__find","namespace":"crm","arguments":"{}"}]}`, "Function 'crm__find' not found in namespace 'crm'", 400},
		{"loaded namespace without description", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[` +
			`{"type":"tool_search_call","execution":"client","call_id":"s1","arguments":{"query":"x"}},` +
			`{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[{"type":"namespace","name":"crm","tools":[{"type":"function","name":"crm__find"}]}]}]}`, "'input[1].tools[0].description'", 400},
		{"loaded function with a bad name", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[` +
			`{"type":"tool_search_call","execution":"client","call_id":"s1","arguments":{"query":"x"}},` +
			`{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[{"type":"function","name":"crm find"}]}]}`, "does not match pattern", 400},
		{"bad namespace name", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search"},{"type":"namespace","name":"git hub","description":"d","tools":[{"type":"function","name":"a","defer_loading":true}]}],"input":"hi"}`, "does not match pattern", 400},
		{"duplicate namespace", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search"},{"type":"namespace","name":"gh","description":"d","tools":[{"type":"function","name":"a","defer_loading":true}]},{"type":"namespace","name":"gh","description":"d","tools":[{"type":"function","name":"b","defer_loading":true}]}],"input":"hi"}`, "Duplicate namespace name 'gh'", 400},
		{"namespace without description", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search"},{"type":"namespace","name":"gh","tools":[{"type":"function","name":"a","defer_loading":true}]}],"input":"hi"}`, "'tools[1].description'", 400},
		{"deferred namespace member without tool_search", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"namespace","name":"gh","description":"d","tools":[{"type":"function","name":"a","defer_loading":true}]}],"input":"hi"}`, "require a tool_search tool", 400},
		{"accepted", DefaultKey, `{"model":"gpt-5.4","tools":` + tools + `,"input":[{"type":"function_call","call_id":"c1","name":"get_weather","namespace":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "", 200},
		// Function definitions, wherever they are: the name pattern, an
		// object schema, strict mode unless "strict": false.
		{"defer_loading on a namespace", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search"},{"type":"namespace","name":"gh","description":"d","defer_loading":true,"tools":[{"type":"function","name":"a","strict":false,"defer_loading":true}]}],"input":"hi"}`,
			"Unknown parameter: 'tools[1].defer_loading'.", 400},
		{"function with a bad name", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"fs.read","parameters":{"type":"object"},"strict":false}],"input":"hi"}`,
			"Invalid 'tools[0].name': string does not match pattern", 400},
		{"function schema not an object", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"f","parameters":{"type":"string"},"strict":false}],"input":"hi"}`,
			`Invalid schema for function 'f': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.`, 400},
		{"strict by default", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}],"input":"hi"}`,
			"Invalid schema for function 'f': In context=(), 'additionalProperties' is required to be supplied and to be false.", 400},
		{"strict optional property", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}}],"input":"hi"}`,
			"In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'b'.", 400},
		{"strict nested object", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"f","strict":true,"parameters":{"type":"object","additionalProperties":false,"properties":{"o":{"type":"object","properties":{}}},"required":["o"]}}],"input":"hi"}`,
			"In context=('properties', 'o'), 'additionalProperties' is required to be supplied and to be false.", 400},
		{"strict namespace member", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search"},{"type":"namespace","name":"gh","description":"d","tools":[{"type":"function","name":"a","parameters":{"type":"object"},"defer_loading":true}]}],"input":"hi"}`,
			"Invalid schema for function 'a': In context=(), 'additionalProperties'", 400},
		{"strict loaded function", DefaultKey, `{"model":"gpt-5.4","tools":[{"type":"tool_search","execution":"client"}],"input":[` +
			`{"type":"tool_search_call","execution":"client","call_id":"s1","arguments":{"query":"x"}},` +
			`{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}},"defer_loading":true}]}]}`,
			"Invalid schema for function 'f': In context=(), 'additionalProperties'", 400},
		{"strict schema accepted", DefaultKey, `{"model":"gpt-4.1","tools":[{"type":"function","name":"f","parameters":{"type":"object","additionalProperties":false,"properties":{"a":{"type":["string","null"]},"l":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"k":{"type":"string"}},"required":["k"]}}},"required":["a","l"]}}],"input":"hi"}`, "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(t)
			s.Keys = map[string]string{"key-b": "org-b"}
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

// A hosted search loads a namespace with the members that match, and the
// model's call carries the namespace; the next request must replay it.
func TestHostedSearchLoadsNamespaceMembers(t *testing.T) {
	s := NewServer(t)
	s.Script(Turn{HostedSearch("issue"), Call("gh__create_issue", `{}`)})
	body := `{"model":"gpt-5.4","stream":false,"tools":` + nsTools + `,"input":"open an issue"}`
	req, _ := http.NewRequest("POST", s.URL+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+DefaultKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var r struct {
		Output []struct {
			Type      string `json:"type"`
			Arguments any    `json:"arguments"`
			Namespace string `json:"namespace"`
			Tools     []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"tools"`
		} `json:"output"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Output) != 3 {
		t.Fatalf("output: %s", b)
	}
	paths, _ := json.Marshal(r.Output[0].Arguments)
	if string(paths) != `{"paths":["gh"]}` {
		t.Errorf("search paths = %s", paths)
	}
	loaded := r.Output[1].Tools
	if len(loaded) != 1 || loaded[0].Type != "namespace" || loaded[0].Name != "gh" || len(loaded[0].Tools) != 1 || loaded[0].Tools[0].Name != "gh__create_issue" {
		t.Errorf("loaded = %+v, want namespace gh with gh__create_issue only", loaded)
	}
	if r.Output[2].Type != "function_call" || r.Output[2].Namespace != "gh" {
		t.Errorf("call = %+v, want namespace gh", r.Output[2])
	}
}

// With client search alone, the model calls only what a tool_search_output
// loaded; the call carries the loaded namespace.
func TestClientSearchCallsOnlyLoadedTools(t *testing.T) {
	rec := &scriptErrors{TB: t}
	s := NewServer(rec)
	s.Script(Turn{Call("crm__find", `{}`)}, Turn{Call("crm__find", `{}`)})
	post := func(input string) (int, []byte) {
		body := `{"model":"gpt-5.4","stream":false,"tools":[{"type":"tool_search","execution":"client"}],"input":` + input + `}`
		req, _ := http.NewRequest("POST", s.URL+"/responses", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+DefaultKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if code, b := post(`"find a customer"`); code == 200 || len(rec.errs) != 1 {
		t.Fatalf("the model called a tool nothing loaded (%d): %s", code, b)
	}
	code, b := post(`[{"role":"user","content":"find a customer"},` +
		`{"type":"tool_search_call","execution":"client","call_id":"s1","arguments":{"query":"crm"}},` +
		`{"type":"tool_search_output","execution":"client","call_id":"s1","tools":[{"type":"namespace","name":"crm","description":"CRM","tools":[{"type":"function","name":"crm__find","parameters":{"type":"object"},"strict":false,"defer_loading":true}]}]}]`)
	if code != 200 || !strings.Contains(string(b), `"namespace":"crm"`) {
		t.Fatalf("status %d: %s", code, b)
	}
}

// scriptErrors keeps the script errors a fake reports instead of failing.
type scriptErrors struct {
	testing.TB
	errs []string
}

func (r *scriptErrors) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
