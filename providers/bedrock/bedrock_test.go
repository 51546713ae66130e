package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/tools"
)

const model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

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

func newSession(t *testing.T, o bedrock.Options, noStream bool) *agent.Session {
	t.Helper()
	p, err := bedrock.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{Provider: p, Model: model, Tools: weatherTools(t), NoStream: noStream, Backoff: time.Millisecond})
}

func run(t *testing.T, s *agent.Session, prompt string) error {
	t.Helper()
	return s.Run(t.Context(), prompt, func(agent.Event) {})
}

// A signed, streamed conversation: native search finds the deferred tool on
// the first request, the call is answered on the second, and every request
// passes the signature check and the body rules.
func TestNativeSearchSignedStream(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		f := bedrocktest.NewServer(t)
		f.Inner.Script = anthropictest.NewScript(
			anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}},
			anthropictest.Turn{Text: "Sunny in Oslo."})
		s := newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: f.URL, Credentials: f.Credentials()}, noStream)
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
		wantPath := "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
		if noStream {
			wantPath = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"
		}
		if reqs[0].Path != wantPath {
			t.Errorf("path = %s, want %s", reqs[0].Path, wantPath)
		}
		if !strings.HasPrefix(string(reqs[0].Body), `{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["tool-search-tool-2025-10-19"],"max_tokens":`) {
			t.Errorf("body starts %.80s", reqs[0].Body)
		}
		if !strings.Contains(string(reqs[0].Body), "tool_search_tool_bm25") {
			t.Errorf("native search tool missing: %s", reqs[0].Body)
		}
		// Raw blocks are tagged bedrock and replayed verbatim on the second request.
		if raw := s.Messages()[1].RawFor("bedrock", "messages"); raw == nil {
			t.Errorf("assistant message has no bedrock raw part: %+v", s.Messages()[1])
		}
	}
}

func TestBearerToken(t *testing.T) {
	f := bedrocktest.NewServer(t)
	f.BearerToken = "bedrock-api-key-fake"
	f.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "hi"})
	s := newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: f.URL, BearerToken: f.BearerToken}, false)
	if err := run(t, s, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := f.Requests()[0].Header.Get("Authorization"); got != "Bearer bedrock-api-key-fake" {
		t.Errorf("authorization = %q", got)
	}
}

// A wrong secret is refused as AWS refuses it, and the error says what to run.
func TestRefusedSignatureSaysWhatToRun(t *testing.T) {
	f := bedrocktest.NewServer(t)
	bad := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: bedrocktest.AccessKey, SecretAccessKey: "wrong"}, nil
	})
	s := newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: f.URL, Credentials: bad}, false)
	err := run(t, s, "hello")
	var ae *agent.APIError
	if !errors.As(err, &ae) || ae.Provider != "bedrock" || ae.Status != 403 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "signature we calculated does not match") || !strings.Contains(err.Error(), "aws sso login") {
		t.Errorf("err = %v", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the secret leaked into the error: %v", err)
	}
}

// Credentials the chain cannot produce (an expired SSO session) give the
// library's message and what to run, before any request.
func TestNoCredentialsSaysWhatToRun(t *testing.T) {
	f := bedrocktest.NewServer(t)
	none := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{}, errors.New("the SSO session has expired or is otherwise invalid")
	})
	s := newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: f.URL, Credentials: none}, false)
	err := run(t, s, "hello")
	if err == nil || !strings.Contains(err.Error(), "SSO session has expired") || !strings.Contains(err.Error(), "aws sso login") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "http://") {
		t.Errorf("error carries transport noise: %v", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("requests = %d", n)
	}
}

// Overload answers (503 ServiceUnavailableException) are retried; a
// throttling exception inside the stream ends the turn with the provider's words.
func TestOverloadRetriedAndStreamException(t *testing.T) {
	f := bedrocktest.NewServer(t)
	f.Inner.Enqueue(anthropictest.Overloaded("0"))
	f.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "ok"})
	s := newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: f.URL, Credentials: f.Credentials()}, false)
	_ = s.Override(func(turn *agent.TurnContext) { turn.Retries = 2 })
	if err := run(t, s, "hello"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Requests()); n != 2 {
		t.Errorf("requests = %d", n)
	}

	g := bedrocktest.NewServer(t)
	g.Inner.Enqueue(anthropictest.Reply{Content: []json.RawMessage{anthropictest.Text("partial answer")}, CutAfter: 3, StreamError: "rate_limit_error"})
	s = newSession(t, bedrock.Options{Region: bedrocktest.Region, BaseURL: g.URL, Credentials: g.Credentials()}, false)
	err := run(t, s, "hello")
	if err == nil || !strings.Contains(err.Error(), "throttlingException") {
		t.Fatalf("err = %v", err)
	}
}

func TestPathEscapesARN(t *testing.T) {
	got := bedrock.Path("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0", true)
	want := "/model/arn:aws:bedrock:us-east-1:123456789012:inference-profile%2Fus.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
	if got != want {
		t.Errorf("path = %s", got)
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	if _, err := bedrock.FromEnv(t.Context(), getenv); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("no region: err = %v", err)
	}
	env["AWS_REGION"] = "eu-west-1"
	env["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] = "http://127.0.0.1:1"
	env["AWS_BEARER_TOKEN_BEDROCK"] = "k"
	o, err := bedrock.FromEnv(t.Context(), getenv)
	if err != nil || o.Region != "eu-west-1" || o.BaseURL != "http://127.0.0.1:1" || o.BearerToken != "k" {
		t.Errorf("o = %+v, err = %v", o, err)
	}
	env["ANTHROPIC_BEDROCK_BASE_URL"] = "http://127.0.0.1:2"
	if o, _ := bedrock.FromEnv(t.Context(), getenv); o.BaseURL != "http://127.0.0.1:2" {
		t.Errorf("ANTHROPIC_BEDROCK_BASE_URL should win: %s", o.BaseURL)
	}
}

// Bedrock's model ids resolve on the capability table like the Anthropic
// ids they name; an application inference profile (an opaque ARN) is
// declared in the config's models table.
func TestModelIDsOnTheTable(t *testing.T) {
	const profile = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"
	table, err := (*models.Table)(nil).With(map[string]models.Override{profile: {Like: "claude-sonnet-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bedrock.New(bedrock.Options{Region: "us-east-1", BearerToken: "k", Models: table})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                                                            true,
		"anthropic.claude-haiku-4-5-20251001-v1:0":                                                                true,
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-opus-4-5-20251101-v1:0": true,
		profile: true,
		"anthropic.claude-3-5-sonnet-20241022-v2:0": false,
		"anthropic.claude-opus-4-1-20250805-v1:0":   false,
	} {
		if got := p.NativeSearch(id); got != want {
			t.Errorf("%s: native search %v, want %v", id, got, want)
		}
	}
}
