package vertex_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/vertex"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
	"github.com/agent-dev/agent/tools"
)

const model = "claude-sonnet-4-5@20250929"

func weatherTools(t *testing.T) *tools.Set {
	t.Helper()
	s := tools.NewSet()
	exec := func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Text: "sunny " + string(args)}, nil
	}
	if err := s.Add([]tools.Option{tools.Defer(true)},
		tools.Tool{Name: "weather_lookup", Description: "Looks up the current weather for a city",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), Exec: exec},
		tools.Tool{Name: "stock_price", Description: "Looks up the current price of a stock ticker",
			Schema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`), Exec: exec},
	); err != nil {
		t.Fatal(err)
	}
	return s
}

// env is a getenv over a map only: the test does not see the machine's ADC.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func newSession(t *testing.T, f *vertextest.Server, noStream bool) *agent.Session {
	t.Helper()
	o, err := vertex.FromEnv(t.Context(), env(map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t),
		"ANTHROPIC_VERTEX_BASE_URL":      f.BaseURL,
	}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := vertex.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{Provider: p, Model: model, Tools: weatherTools(t), NoStream: noStream, Backoff: time.Millisecond})
}

func run(t *testing.T, s *agent.Session, prompt string) error {
	t.Helper()
	return s.Run(t.Context(), prompt, func(agent.Event) {})
}

// The service account's token_uri is honoured, the token is fetched once and
// reused, the project comes from the key file, and native search finds and
// calls the deferred tool through :streamRawPredict (and :rawPredict).
func TestNativeSearchWithServiceAccount(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		f := vertextest.NewServer(t)
		f.Inner.Script = anthropictest.NewScript(
			anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}},
			anthropictest.Turn{Text: "Sunny in Oslo."})
		s := newSession(t, f, noStream)
		if err := run(t, s, "Weather in Oslo?"); err != nil {
			t.Fatalf("noStream=%v: %v", noStream, err)
		}
		if got := s.Messages()[len(s.Messages())-1].Text(); got != "Sunny in Oslo." {
			t.Errorf("answer = %q", got)
		}
		reqs := f.Requests()
		if len(reqs) != 2 || len(f.Rejected()) != 0 {
			t.Fatalf("requests %d, rejected %+v", len(reqs), f.Rejected())
		}
		verb := "streamRawPredict"
		if noStream {
			verb = "rawPredict"
		}
		want := "/v1/projects/agent-test-project/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:" + verb
		if reqs[0].Path != want {
			t.Errorf("path = %s", reqs[0].Path)
		}
		if !strings.HasPrefix(string(reqs[0].Body), `{"anthropic_version":"vertex-2023-10-16","max_tokens":`) {
			t.Errorf("body starts %.80s", reqs[0].Body)
		}
		if got := reqs[0].Header.Get("anthropic-beta"); got != vertex.SearchBeta {
			t.Errorf("anthropic-beta = %q, want the tool search beta", got)
		}
		if n := f.TokenGrants(); n != 1 {
			t.Errorf("token grants = %d, want 1 (cached)", n)
		}
		if s.Messages()[1].RawFor("vertex", "messages") == nil {
			t.Errorf("no vertex raw part")
		}
	}
}

// A refused token grant: the endpoint's words and what to run, no request sent.
func TestRefusedTokenSaysWhatToRun(t *testing.T) {
	f := vertextest.NewServer(t)
	f.RefuseTokens = true
	s := newSession(t, f, false)
	err := run(t, s, "hello")
	if err == nil || !strings.Contains(err.Error(), "Invalid JWT Signature") || !strings.Contains(err.Error(), "gcloud auth application-default login") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "http://") {
		t.Errorf("error carries the key or transport noise: %v", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("model requests = %d", n)
	}
}

// A token the API no longer accepts is a 401 with what to run.
func TestExpiredTokenSaysWhatToRun(t *testing.T) {
	f := vertextest.NewServer(t)
	f.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hi"}, anthropictest.Turn{Text: "again"})
	s := newSession(t, f, false)
	if err := run(t, s, "hello"); err != nil {
		t.Fatal(err)
	}
	f.Expire()
	err := run(t, s, "again")
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Provider != "vertex" || !strings.Contains(err.Error(), "gcloud auth application-default login") {
		t.Fatalf("err = %v", err)
	}
}

func TestFromEnvNamesWhatToSet(t *testing.T) {
	f := vertextest.NewServer(t)
	_, err := vertex.FromEnv(t.Context(), env(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/sa.json"}))
	if err == nil || !strings.Contains(err.Error(), "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("err = %v", err)
	}
	o, err := vertex.FromEnv(t.Context(), env(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t),
		"GOOGLE_CLOUD_PROJECT": "other", "CLOUD_ML_REGION": "us-east5"}))
	if err != nil || o.ProjectID != "other" || o.Region != "us-east5" {
		t.Errorf("o = %+v, err = %v", o, err)
	}
	o, _ = vertex.FromEnv(t.Context(), env(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t),
		"GOOGLE_CLOUD_PROJECT": "other", "ANTHROPIC_VERTEX_PROJECT_ID": "mine"}))
	if o.ProjectID != "mine" {
		t.Errorf("ANTHROPIC_VERTEX_PROJECT_ID should win: %q", o.ProjectID)
	}
	if got := vertex.DefaultBaseURL("us-east5"); got != "https://us-east5-aiplatform.googleapis.com/v1" {
		t.Errorf("regional base = %s", got)
	}
	if got := vertex.DefaultBaseURL("global"); got != "https://aiplatform.googleapis.com/v1" {
		t.Errorf("global base = %s", got)
	}
	if _, err := vertex.New(vertex.Options{}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_VERTEX_PROJECT_ID") {
		t.Errorf("err = %v", err)
	}
}

// Gemini on Vertex AI: the Gemini adapter on the publishers/google route
// with the ADC token; the Gemini fake's rules (signatures on Gemini 3) apply.
func TestGeminiOnVertex(t *testing.T) {
	f := vertextest.NewServer(t)
	f.Gemini.Script = geminitest.NewScript(
		geminitest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}},
		geminitest.Turn{Text: "Sunny in Oslo."})
	o, err := vertex.GeminiFromEnv(t.Context(), env(map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": f.ServiceAccountJSON(t), "GOOGLE_VERTEX_BASE_URL": f.BaseURL,
	}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := vertex.NewGemini(o, gemini.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := agent.New(agent.Config{Provider: p, Model: "gemini-3-pro-preview", Tools: weatherTools(t), Backoff: time.Millisecond,
		Searcher: searcher{}})
	if err := run(t, s, "Weather in Oslo?"); err != nil {
		t.Fatal(err)
	}
	if got := s.Messages()[len(s.Messages())-1].Text(); got != "Sunny in Oslo." {
		t.Errorf("answer %q", got)
	}
	if n := len(f.Rejected()) + len(f.Gemini.Rejected()); n != 0 {
		t.Errorf("rejected %d", n)
	}
	if want := "/v1/projects/agent-test-project/locations/global/publishers/google/models/gemini-3-pro-preview:streamGenerateContent"; f.Requests()[0].Path != want {
		t.Errorf("path %s", f.Requests()[0].Path)
	}
	if s.Messages()[1].RawFor("vertex-gemini", "generateContent") == nil {
		t.Errorf("no vertex-gemini raw part")
	}
}

type searcher struct{}

func (searcher) Search(context.Context, agent.SearchCall) ([]string, error) {
	return []string{"weather_lookup"}, nil
}

func TestVertexModelIDsOnTheTable(t *testing.T) {
	p, err := vertex.New(vertex.Options{ProjectID: "p", TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"})})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{
		"claude-sonnet-4-5@20250929": true, "claude-haiku-4-5@20251001": true, "claude-opus-4-5@20251101": true,
		"claude-opus-4-1@20250805": false, "claude-3-7-sonnet@20250219": false,
	} {
		if got := p.NativeSearch(id); got != want {
			t.Errorf("%s: native search %v, want %v", id, got, want)
		}
	}
}

// gcloud's user credentials: the refresh token is exchanged at the file's
// token_uri; a revoked one gives Google's words and what to run.
func TestUserCredentials(t *testing.T) {
	f := vertextest.NewServer(t)
	f.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hi"})
	o, err := vertex.FromEnv(t.Context(), env(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.UserCredentialsJSON(t, false),
		"ANTHROPIC_VERTEX_PROJECT_ID": vertextest.Project, "ANTHROPIC_VERTEX_BASE_URL": f.BaseURL}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := vertex.New(o)
	if err != nil {
		t.Fatal(err)
	}
	s := agent.New(agent.Config{Provider: p, Model: model, Backoff: time.Millisecond})
	if err := run(t, s, "hello"); err != nil {
		t.Fatal(err)
	}
	o, _ = vertex.FromEnv(t.Context(), env(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": f.UserCredentialsJSON(t, true),
		"ANTHROPIC_VERTEX_PROJECT_ID": vertextest.Project, "ANTHROPIC_VERTEX_BASE_URL": f.BaseURL}))
	p, _ = vertex.New(o)
	s = agent.New(agent.Config{Provider: p, Model: model, Backoff: time.Millisecond})
	err = run(t, s, "hello")
	if err == nil || !strings.Contains(err.Error(), "Token has been expired or revoked") || !strings.Contains(err.Error(), "gcloud auth application-default login") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "fake-secret") || strings.Contains(err.Error(), "1//") {
		t.Errorf("a secret leaked into the error: %v", err)
	}
}
