package openairesponses

// Conformance against the response-only vercel-ai captures (OpenAI and
// Azure): each recorded response is parsed, the conversation continued as the
// agent would (tool results, client search results), and every follow-up
// request is built and sent to the strict fake, which must accept it. The
// tools are taken from the response's echo of the request's tools.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

const fixtures = "../../../shared/fixtures/vercel-ai"

// recordedResponses returns each response of a fixture: the JSON body, or
// the SSE stream rebuilt from the JSON-per-line chunks, one per response.
func recordedResponses(t *testing.T, path string) (jsons []json.RawMessage, streams []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("needs the recording %s from ../shared/fixtures (the shared data beside the repository root, as in CI): put shared/ at ../shared to run this", path)
	}
	if !strings.HasSuffix(path, ".chunks.txt") {
		return []json.RawMessage{b}, nil
	}
	var cur strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var h struct{ Type string }
		_ = json.Unmarshal([]byte(line), &h)
		if h.Type == "response.created" && cur.Len() > 0 {
			streams = append(streams, cur.String())
			cur.Reset()
		}
		cur.WriteString("event: " + h.Type + "\ndata: " + line + "\n\n")
	}
	return nil, append(streams, cur.String())
}

func echoedRequest(t *testing.T, resp json.RawMessage, sse string) *agent.Request {
	if sse != "" {
		first, _, _ := strings.Cut(strings.SplitN(sse, "data: ", 2)[1], "\n")
		var ev struct{ Response json.RawMessage }
		_ = json.Unmarshal([]byte(first), &ev)
		resp = ev.Response
	}
	var r struct {
		Model string                     `json:"model"`
		Tools json.RawMessage            `json:"tools"`
		Extra map[string]json.RawMessage `json:"-"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatal(err)
	}
	req := requestFrom(t, map[string]json.RawMessage{"model": json.RawMessage(`"` + r.Model + `"`), "tools": r.Tools, "stream": json.RawMessage(`true`)})
	req.Messages = []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("What is the weather in San Francisco?")}}}
	return req
}

func TestConformanceVercel(t *testing.T) {
	cases := []struct {
		file string
		// wantSearch / wantClientID are checked on the parsed turns;
		// wantNamespace is the namespace every replayed function_call must
		// carry: the recordings' deferred get_weather has no server, so it
		// is in our "tools" group (the recorded namespace was its own name).
		wantSearch    []string
		wantClientID  string
		wantNamespace string
		// deferred names tools the echo lists as loaded (expanded by the
		// server after a client search) but the client sent deferred.
		deferred []string
	}{
		{file: "openai/openai-tool-search.1.json", wantSearch: []string{"get_weather"}, wantNamespace: "tools"},
		{file: "openai/openai-tool-search.1.chunks.txt", wantSearch: []string{"get_weather"}, wantNamespace: "tools"},
		{file: "openai/openai-client-tool-search.1.json"},
		{file: "openai/openai-client-tool-search.1.chunks.txt", wantClientID: "call_RWTIIVfxsJW9fecsg6fy23Dy"},
		{file: "openai/openai-client-tool-search.2.json", wantNamespace: "tools", deferred: []string{"get_weather"}},
		{file: "openai/openai-client-tool-search.2.chunks.txt", wantNamespace: "tools", deferred: []string{"get_weather"}},
		{file: "azure/azure-tool-search.1.json", wantSearch: []string{"get_weather"}, wantNamespace: "tools"},
		{file: "azure/azure-tool-search.1.chunks.txt", wantSearch: []string{"get_weather"}, wantNamespace: "tools"},
		{file: "azure/azure-client-tool-search.1.json"},
		{file: "azure/azure-client-tool-search.1.chunks.txt"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			jsons, streams := recordedResponses(t, filepath.Join(fixtures, c.file))
			n := len(jsons) + len(streams)
			var req *agent.Request
			var searched []string
			var clientIDs []string
			for i := 0; i < n; i++ {
				var j json.RawMessage
				var s string
				if jsons != nil {
					j = jsons[i]
				} else {
					s = streams[i]
				}
				if req == nil {
					req = echoedRequest(t, j, s)
					for _, name := range c.deferred {
						for k, d := range req.Tools {
							if d.Name == name {
								req.Deferred = append(req.Deferred, d)
								req.Tools = append(req.Tools[:k], req.Tools[k+1:]...)
								break
							}
						}
					}
				}
				msg := parseRecorded(t, j, s)
				if msg.RawFor("openai", "responses") == nil {
					t.Fatalf("response %d: no raw part", i)
				}
				req.Messages = append(req.Messages, msg)
				var answers []agent.Part
				for _, p := range msg.Parts {
					switch {
					case p.SearchResult != nil:
						searched = append(searched, p.SearchResult.Tools...)
					case p.SearchCall != nil && p.SearchCall.Where == agent.WhereClient:
						clientIDs = append(clientIDs, p.SearchCall.ID)
						answers = append(answers, agent.SearchResultPart(agent.SearchResult{CallID: p.SearchCall.ID, Where: agent.WhereClient, Tools: []string{"get_weather"}}))
					case p.ToolCall != nil:
						answers = append(answers, agent.ToolResultPart(agent.ToolResult{CallID: p.ToolCall.ID, Text: "sunny, 70F"}))
					}
				}
				if len(answers) > 0 {
					req.Messages = append(req.Messages, agent.Message{Role: agent.RoleUser, Parts: answers})
				} else {
					req.Messages = append(req.Messages, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("thanks")}})
				}
				body := sendToFake(t, req)
				if c.wantNamespace != "" {
					checkNamespaces(t, body, c.wantNamespace)
				}
			}
			if c.wantSearch != nil && strings.Join(searched, ",") != strings.Join(c.wantSearch, ",") {
				t.Errorf("hosted search found %v, want %v", searched, c.wantSearch)
			}
			if c.wantClientID != "" && (len(clientIDs) == 0 || clientIDs[0] != c.wantClientID) {
				t.Errorf("client search call_id = %v, want %s (from output_item.done)", clientIDs, c.wantClientID)
			}
		})
	}
}

func sendToFake(t *testing.T, req *agent.Request) []byte {
	t.Helper()
	body, _, _, err := New(Options{APIKey: rt.DefaultKey}).build(req)
	if err != nil {
		t.Fatal(err)
	}
	srv := rt.NewServer(t)
	hr, _ := http.NewRequestWithContext(context.Background(), "POST", srv.URL+"/responses", bytes.NewReader(body))
	hr.Header.Set("Authorization", "Bearer "+rt.DefaultKey)
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("fake rejected the follow-up request: %s\n%s", srv.Requests()[0].Error, body)
	}
	return body
}

// checkNamespaces asserts every function_call of body's input carries ns.
func checkNamespaces(t *testing.T, body []byte, ns string) {
	t.Helper()
	var b struct {
		Input []item `json:"input"`
	}
	_ = json.Unmarshal(body, &b)
	for _, it := range b.Input {
		if it.Type == "function_call" && it.Namespace != ns {
			t.Errorf("replayed function_call %s has namespace %q, want %q", it.Name, it.Namespace, ns)
		}
	}
}
