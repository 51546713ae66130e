package azure_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/azure"
	"github.com/agent-dev/agent/providers/azure/azuretest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/tools"
)

func weatherTools(t *testing.T) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	exec := func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "sunny " + string(args)}, nil
	}
	if err := s.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "get_weather", Description: "Get the current weather forecast for a city",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), Exec: exec},
		tools.Tool{Name: "stock_price", Description: "Looks up the current price of a stock ticker",
			Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`), Exec: exec},
	); err != nil {
		t.Fatal(err)
	}
	return s
}

type searcher struct{}

func (searcher) Search(context.Context, agent.SearchCall) ([]string, error) {
	return []string{"get_weather"}, nil
}

func session(t *testing.T, o azure.Options, model string) *agent.Session {
	t.Helper()
	p, err := azure.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{Provider: p, Model: model, Tools: weatherTools(t), Searcher: searcher{}, Backoff: time.Millisecond})
}

// Hosted tool search through the api-key route, with the deployment's
// capability read from its name (gpt-5.4), from the config's models table
// (a name that says nothing), or absent (client search).
func TestDeployments(t *testing.T) {
	table, err := (*models.Table)(nil).With(map[string]models.Override{"prod-assistant": {Like: "gpt-5.4"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		deployment string
		table      *models.Table
		hosted     bool
	}{
		{"gpt-5.4", nil, true},
		{"prod-assistant", table, true},
		{"prod-assistant", nil, false},
	}
	for _, tc := range cases {
		f := azuretest.NewServer(t)
		f.Inner.SupportsToolSearch = func(m string) bool { return m == "prod-assistant" || rt.DefaultSupports(m) }
		f.Inner.Models = tc.table // the deployment is what the table says it is
		if tc.hosted {
			f.Inner.Script(rt.Turn{rt.HostedSearch("weather"), rt.Call("get_weather", `{"city":"Oslo"}`)}, rt.Turn{rt.Text("Sunny.")})
		} else {
			// Nothing says the deployment has tool_search: the two functions.
			f.Inner.Script(rt.Turn{rt.Call("tool_search", `{"query":"weather"}`)},
				rt.Turn{rt.Call("tool_call", `{"name":"get_weather","arguments":{"city":"Oslo"}}`)}, rt.Turn{rt.Text("Sunny.")})
		}
		s := session(t, azure.Options{Endpoint: f.URL, APIKey: azuretest.DefaultKey, Models: tc.table}, tc.deployment)
		if err := s.Run(t.Context(), "Weather in Oslo?", func(agent.Event) {}); err != nil {
			t.Fatalf("%s: %v", tc.deployment, err)
		}
		if got := s.Messages()[len(s.Messages())-1].Text(); got != "Sunny." {
			t.Errorf("%s: answer %q", tc.deployment, got)
		}
		if n := f.Rejected(); n != 0 {
			t.Errorf("%s: %d rejected: %+v", tc.deployment, n, f.Inner.Rejected())
		}
		body := string(f.Inner.Requests()[0].Body)
		if hosted := strings.Contains(body, `{"type":"tool_search"}`); hosted != tc.hosted {
			t.Errorf("%s: hosted search = %v, want %v: %s", tc.deployment, hosted, tc.hosted, body)
		}
		for _, r := range f.Requests() {
			if r.Path != "/openai/v1/responses" || r.Header.Get("api-key") != azuretest.DefaultKey || r.Header.Get("Authorization") != "" {
				t.Errorf("request %s, headers %v", r.Path, r.Header)
			}
		}
		if s.Messages()[1].RawFor("azure", "responses") == nil {
			t.Errorf("%s: no azure raw part", tc.deployment)
		}
	}
}

type fakeCred struct {
	calls int
	err   error
}

func (c *fakeCred) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.calls++
	if c.err != nil {
		return azcore.AccessToken{}, c.err
	}
	if len(o.Scopes) != 1 || o.Scopes[0] != azure.Scope {
		return azcore.AccessToken{}, errors.New("wrong scope")
	}
	return azcore.AccessToken{Token: "entra-token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// Without a key, an Entra ID token from the credential, fetched once.
func TestEntraID(t *testing.T) {
	f := azuretest.NewServer(t)
	f.BearerToken = "entra-token"
	f.Inner.Script(rt.Turn{rt.Text("one")}, rt.Turn{rt.Text("two")})
	cred := &fakeCred{}
	s := session(t, azure.Options{Endpoint: f.URL + "/openai/v1/", Credential: cred}, "gpt-5.4")
	for _, p := range []string{"a", "b"} {
		if err := s.Run(t.Context(), p, func(agent.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	if cred.calls != 1 || f.Rejected() != 0 {
		t.Errorf("token calls %d, rejected %d", cred.calls, f.Rejected())
	}

	refused := &fakeCred{err: errors.New("AzureCLICredential: please run 'az login' to set up an account")}
	s = session(t, azure.Options{Endpoint: f.URL, Credential: refused}, "gpt-5.4")
	err := s.Run(t.Context(), "c", func(agent.Event) {})
	if err == nil || !strings.Contains(err.Error(), "az login") || strings.Contains(err.Error(), "http://") {
		t.Errorf("err = %v", err)
	}
}

func TestBadKeySaysWhatToSet(t *testing.T) {
	f := azuretest.NewServer(t)
	s := session(t, azure.Options{Endpoint: f.URL, APIKey: "k-NOT-THE-KEY-42"}, "gpt-5.4")
	err := s.Run(t.Context(), "hi", func(agent.Event) {})
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Provider != "azure" || ae.Status != 401 || !strings.Contains(err.Error(), "AZURE_OPENAI_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "NOT-THE-KEY") {
		t.Errorf("key in error: %v", err)
	}
	if _, err := azure.FromEnv(t.Context(), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "AZURE_OPENAI_ENDPOINT") {
		t.Errorf("FromEnv: %v", err)
	}
}

const fixtures = "../../../shared/fixtures/vercel-ai/azure/"

// recorded splits a recorded chunks file into SSE streams, one per response.
func recorded(t *testing.T, name string) []string {
	b, err := os.ReadFile(fixtures + name)
	if err != nil {
		t.Skipf("the Azure recordings are not beside the repository (%v): put shared/ at ../shared to run this", err)
	}
	var out []string
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
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString("event: " + h.Type + "\ndata: " + line + "\n\n")
	}
	return append(out, cur.String())
}

// Conformance with Azure's recordings (hosted and client-executed search):
// the recorded stream, served at the Azure route, parses into a search that
// found get_weather; the continuation (the call's result, or the client
// search's output) is accepted by the strict fake.
func TestConformanceAzureRecordings(t *testing.T) {
	for _, tc := range []struct {
		file  string
		where string
		mode  agent.SearchMode
	}{
		{"azure-tool-search.1.chunks.txt", agent.WhereProvider, agent.SearchNative},
		{"azure-client-tool-search.1.chunks.txt", agent.WhereClient, agent.SearchClient},
	} {
		streams := recorded(t, tc.file)
		strict := azuretest.NewServer(t)
		strict.Inner.Script(rt.Turn{rt.Text("It is sunny.")})
		served := 0
		rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if served >= 1 {
				// Continue against the strict fake.
				req, _ := http.NewRequest(r.Method, strict.URL+r.URL.Path, r.Body)
				req.Header = r.Header.Clone()
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					w.WriteHeader(502)
					return
				}
				defer resp.Body.Close()
				w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
				w.WriteHeader(resp.StatusCode)
				_, _ = io.Copy(w, resp.Body)
				return
			}
			served++
			if r.URL.Path != "/openai/v1/responses" || r.Header.Get("api-key") != azuretest.DefaultKey {
				w.WriteHeader(401)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, streams[0])
		}))
		s := session(t, azure.Options{Endpoint: rec.URL, APIKey: azuretest.DefaultKey}, "gpt-5.4")
		_ = s.Override(func(turn *agent.TurnContext) { turn.Search = tc.mode })
		var found []string
		var where string
		err := s.Run(t.Context(), "What is the weather in San Francisco?", func(e agent.Event) {
			if e.Type == agent.EventSearchFinished && e.Search != nil {
				found, where = append(found, e.Search.Tools...), e.Search.Where
			}
		})
		rec.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(found) == 0 || found[0] != "get_weather" || where != tc.where {
			t.Errorf("%s: search found %v (%s)", tc.file, found, where)
		}
		if n := strict.Rejected(); n != 0 {
			t.Errorf("%s: continuation rejected: %+v", tc.file, strict.Inner.Rejected())
		}
		if got := s.Messages()[len(s.Messages())-1].Text(); got != "It is sunny." {
			t.Errorf("%s: answer %q", tc.file, got)
		}
	}
}
