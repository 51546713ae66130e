package crossprovider

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/azure"
	"github.com/agent-dev/agent/providers/azure/azuretest"
	"github.com/agent-dev/agent/providers/bedrock"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/gemini"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/providers/vertex"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// One conversation through the cloud platforms: Anthropic → Vertex →
// Bedrock → Gemini → Azure → Anthropic. Each step searches (natively or
// client-side), or calls a tool found earlier, and answers; no fake rejects
// a request, each platform's raw blocks go only to that platform, and the
// tools found earlier stay callable after every move.
func TestCloudContinuation(t *testing.T) {
	set := catalog(t)
	ant := anthropictest.NewServer(t)
	ant.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "weather", Call: "$found", Input: map[string]any{"city": "Oslo"}}, anthropictest.Turn{Text: "anthropic: sunny"},
		anthropictest.Turn{Call: "stock_price", Input: map[string]any{"ticker": "ACME"}}, anthropictest.Turn{Text: "anthropic again"})
	vx := vertextest.NewServer(t)
	vx.Inner.Script = anthropictest.NewScript(
		anthropictest.Turn{Call: "weather_lookup", Input: map[string]any{"city": "Bergen"}}, anthropictest.Turn{Text: "vertex: rainy"})
	br := bedrocktest.NewServer(t)
	br.Inner.Script = anthropictest.NewScript(
		anthropictest.Turn{Search: "stock", Call: "$found", Input: map[string]any{"ticker": "ACME"}}, anthropictest.Turn{Text: "bedrock: 42"})
	gm := geminitest.NewServer(t)
	gm.Script = geminitest.NewScript(
		geminitest.Turn{Search: "calendar", Call: "$found", Input: map[string]any{"title": "standup"}}, geminitest.Turn{Text: "gemini: booked"})
	az := azuretest.NewServer(t)
	az.Inner.Script(rt.Turn{rt.HostedSearch("email"), rt.Call("email_send", `{"to":"a@b.c"}`)}, rt.Turn{rt.Text("azure: sent")})

	vo, err := vertex.FromEnv(t.Context(), func(k string) string {
		return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": vx.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": vx.BaseURL}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	vp, err := vertex.New(vo)
	if err != nil {
		t.Fatal(err)
	}
	bp, err := bedrock.New(bedrock.Options{Region: bedrocktest.Region, BaseURL: br.URL, Credentials: br.Credentials()})
	if err != nil {
		t.Fatal(err)
	}
	azp, err := azure.New(azure.Options{Endpoint: az.URL, APIKey: azuretest.DefaultKey})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		p           agent.Provider
		model, want string
	}{
		{anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: ant.URL}), sonnet, "anthropic: sunny"},
		{vp, "claude-sonnet-4-5@20250929", "vertex: rainy"},
		{bp, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock: 42"},
		{gemini.New(gemini.Options{APIKey: geminitest.DefaultKey, BaseURL: gm.URL}), "gemini-3-pro-preview", "gemini: booked"},
		{azp, gpt54, "azure: sent"},
		{anthropic.New(anthropic.Options{APIKey: anthropictest.DefaultAPIKey, BaseURL: ant.URL}), sonnet, "anthropic again"},
	}
	s := agent.New(agent.Config{Tools: set, Searcher: wordSearcher{set}, Backoff: time.Millisecond})
	for i, st := range steps {
		_ = s.Override(func(turn *agent.TurnContext) { turn.Provider, turn.Model = st.p, st.model })
		var errs []string
		err := s.Run(t.Context(), "step", func(e agent.Event) {
			if e.Type == agent.EventToolFinished && e.Tool.IsError {
				errs = append(errs, e.Tool.Name+": "+e.Tool.Result)
			}
		})
		if err != nil {
			t.Fatalf("step %d (%s %s): %v", i, st.p.Name(), st.model, err)
		}
		if len(errs) > 0 {
			t.Errorf("step %d (%s): tool errors %v", i, st.p.Name(), errs)
		}
		msgs := s.Messages()
		if got := msgs[len(msgs)-1].Text(); got != st.want {
			t.Errorf("step %d (%s): answer %q, want %q", i, st.p.Name(), got, st.want)
		}
	}
	rejected := map[string][]string{}
	for _, r := range ant.Requests() {
		if r.Rejection != "" {
			rejected["anthropic"] = append(rejected["anthropic"], r.Rejection)
		}
	}
	for name, inner := range map[string]*anthropictest.Server{"vertex": vx.Inner, "bedrock": br.Inner} {
		for _, r := range inner.Requests() {
			if r.Rejection != "" {
				rejected[name] = append(rejected[name], r.Rejection)
			}
		}
	}
	for _, r := range append(vx.Rejected(), br.Rejected()...) {
		rejected["platform"] = append(rejected["platform"], r.Rejection)
	}
	for _, r := range gm.Rejected() {
		rejected["gemini"] = append(rejected["gemini"], r.Rejection)
	}
	for _, r := range az.Inner.Rejected() {
		rejected["azure"] = append(rejected["azure"], r.Error)
	}
	if len(rejected) > 0 || az.Rejected() != 0 {
		t.Errorf("rejected: %v", rejected)
	}
	// Vertex's and Bedrock's own raw blocks never reach the other: every
	// assistant message carries the raw part of the one that made it only.
	for _, m := range s.Messages() {
		tags := map[string]bool{}
		for _, p := range m.Parts {
			if p.Raw != nil {
				tags[p.Raw.Provider] = true
			}
		}
		if len(tags) > 1 {
			t.Errorf("a message carries raw parts of %v", tags)
		}
	}
	// Gemini's signatures went back to Gemini only.
	for _, sig := range gm.Signatures() {
		for _, r := range append(vx.Requests(), br.Requests()...) {
			if strings.Contains(string(r.Body), sig) {
				t.Errorf("a Gemini signature reached %s", r.Path)
			}
		}
	}
}
