package registry

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/azure/azuretest"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/providers/provider"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// The --provider values users type, unchanged by the registry.
var names = []string{"anthropic", "azure", "bedrock", "deepseek", "gemini", "gemini-openai", "groq", "llamacpp",
	"lmstudio", "mistral", "ollama", "openai", "openai-chat", "openrouter", "vertex", "vertex-gemini", "vllm"}

func TestNames(t *testing.T) {
	t.Parallel()
	if got := Names(); !slices.Equal(got, names) {
		t.Errorf("Names() = %v\nwant %v", got, names)
	}
}

// Each descriptor says what the application needs without it asking the
// provider package: no two share a name, a required key names its
// variable, each family has at most one home, and a family is one the
// capability table knows (so /model's refusal and the table agree).
func TestDescriptors(t *testing.T) {
	t.Parallel()
	homes := map[string]string{}
	for _, d := range All() {
		if d.Name == "" || d.New == nil {
			t.Errorf("%+v: no name or constructor", d)
		}
		if d.KeyRequired && len(d.KeyEnv) == 0 {
			t.Errorf("%s: a required key without its variable", d.Name)
		}
		if d.Home {
			if h, dup := homes[d.Family]; dup || d.Family == "" {
				t.Errorf("%s: home of family %q, which %q is already", d.Name, d.Family, h)
			}
			homes[d.Family] = d.Name
		}
		if d.Hosted != nil && (len(d.Hosted.Aliases) == 0 || d.Hosted.Validate == nil) {
			t.Errorf("%s: hosted tools without aliases or a check", d.Name)
		}
	}
	for fam, want := range map[string]string{"anthropic": "anthropic", "openai": "openai", "google": "gemini", "deepseek": "deepseek", "mistral": "mistral", "meta": ""} {
		if got := Home(fam); got != want {
			t.Errorf("Home(%s) = %q, want %q", fam, got, want)
		}
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The one factory refuses what the old five did, with the same words, and
// names the default model either way.
func TestNewRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, want, defModel string
		env                         map[string]string
	}{
		{"nope", "", `unknown provider "nope": use one of ` + strings.Join(names, ", "), "", nil},
		{"anthropic", "", "ANTHROPIC_API_KEY is not set: export it, pick another --provider, or try agent --demo", "claude-sonnet-4-5", nil},
		{"openai", "", "OPENAI_API_KEY is not set: export it, pick another --provider, or try agent --demo", "gpt-5.4", nil},
		{"gemini", "", "GEMINI_API_KEY (or GOOGLE_API_KEY) is not set: export it, pick another --provider, or try agent --demo", "gemini-2.5-flash", nil},
		{"openai-chat", "", "OPENAI_API_KEY is not set: export it, pick another --provider, or try agent --demo", "gpt-4.1", nil},
		{"gemini-openai", "", "GEMINI_API_KEY is not set: export it, pick another --provider, or try agent --demo", "gemini-2.5-flash", nil},
		{"groq", "", "GROQ_API_KEY is not set: export it, pick another --provider, or try agent --demo", "llama-3.3-70b-versatile", nil},
		{"vllm", "", "vllm serves whatever model it loaded: name it with --model", "", nil},
		{"lmstudio", "", "lmstudio serves whatever model it loaded: name it with --model", "", nil},
		{"azure", "", "azure: AZURE_OPENAI_ENDPOINT is not set: export it (https://RESOURCE.openai.azure.com) or use --base-url", "", nil},
		{"azure", "", "azure: name the deployment with --model (its capabilities come from the config's models table, or from the name when it names the model)", "",
			map[string]string{"AZURE_OPENAI_ENDPOINT": "http://127.0.0.1:1", "AZURE_OPENAI_API_KEY": "k"}},
		{"vertex", "", "vertex: GOOGLE_APPLICATION_CREDENTIALS: open /nonexistent/sa.json", "claude-sonnet-4-5@20250929",
			map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/sa.json"}},
	}
	for _, c := range cases {
		p, def, err := New(t.Context(), c.name, provider.Config{Model: c.model, Getenv: env(c.env)})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || p != nil {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if c.defModel != "" && def != c.defModel {
			t.Errorf("%s: default model %q, want %q", c.name, def, c.defModel)
		}
	}
}

// The hosted-tool check: the provider's own, or a refusal naming what the
// vendors' own APIs offer.
func TestValidateHosted(t *testing.T) {
	t.Parallel()
	ws := []agent.ProviderTool{{Alias: "web_search"}}
	for _, name := range []string{"anthropic", "vertex", "openai", "azure"} {
		if err := ValidateHosted(name, nil, ws); err != nil {
			t.Errorf("%s: web_search refused: %v", name, err)
		}
	}
	if err := ValidateHosted("anthropic", nil, []agent.ProviderTool{{Alias: "image_generation"}}); err == nil {
		t.Error("anthropic took image_generation")
	}
	want := fmt.Sprintf(`provider tool "web_search" is not supported by openai-chat: it has no hosted tools (anthropic offers %s; openai offers %s)`,
		strings.Join(anthropic.SupportedAliases(), ", "), strings.Join(openairesponses.SupportedAliases(), ", "))
	p, _, err := New(t.Context(), "ollama", provider.Config{Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateHosted("ollama", p, ws); err == nil || err.Error() != want {
		t.Errorf("ollama: %v\nwant %s", err, want)
	}
	if err := ValidateHosted("bedrock", p, nil); err != nil {
		t.Errorf("no tools asked: %v", err)
	}
}

// Every provider, built by the one factory with --base-url pointing at its
// strict fake (the environment's base URL pointing nowhere), answers a
// request: the constructor, the key and the base-URL plumbing all work.
func TestEveryProviderAnswers(t *testing.T) {
	t.Parallel()
	const dead = "http://127.0.0.1:1"
	type setup struct {
		base, model string
		env         map[string]string
	}
	chat := func(key string) func(t *testing.T) setup {
		return func(t *testing.T) setup {
			srv := chattest.NewServer(t)
			srv.Script(chattest.Turn{Text: "pong"})
			e := map[string]string{"OPENAI_BASE_URL": dead}
			if key != "" {
				srv.APIKey = "chat-key"
				e[key] = "chat-key"
			}
			return setup{srv.BaseURL(), "some-model", e}
		}
	}
	cases := map[string]func(t *testing.T) setup{
		"anthropic": func(t *testing.T) setup {
			srv := anthropictest.NewServer(t)
			srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "pong"})
			return setup{srv.URL, "claude-sonnet-4-5", map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "ANTHROPIC_BASE_URL": dead}}
		},
		"openai": func(t *testing.T) setup {
			srv := rt.NewServer(t)
			srv.Script(rt.Turn{rt.Text("pong")})
			return setup{srv.URL, "gpt-5.4", map[string]string{"OPENAI_API_KEY": rt.DefaultKey, "OPENAI_BASE_URL": dead}}
		},
		"gemini": func(t *testing.T) setup {
			srv := geminitest.NewServer(t)
			srv.Script = geminitest.NewScript(geminitest.Turn{Text: "pong"})
			return setup{srv.URL, "gemini-2.5-flash", map[string]string{"GOOGLE_API_KEY": geminitest.DefaultKey, "GOOGLE_GEMINI_BASE_URL": dead}}
		},
		"vertex": func(t *testing.T) setup {
			srv := vertextest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "pong"})
			return setup{srv.BaseURL, "claude-sonnet-4-5@20250929", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t), "ANTHROPIC_VERTEX_BASE_URL": dead}}
		},
		"vertex-gemini": func(t *testing.T) setup {
			srv := vertextest.NewServer(t)
			srv.Gemini.Script = geminitest.NewScript(geminitest.Turn{Text: "pong"})
			return setup{srv.BaseURL, "gemini-2.5-flash", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t), "GOOGLE_VERTEX_BASE_URL": dead}}
		},
		"bedrock": func(t *testing.T) setup {
			srv := bedrocktest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "pong"})
			return setup{srv.URL, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]string{"AWS_REGION": bedrocktest.Region,
				"AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey,
				"ANTHROPIC_BEDROCK_BASE_URL": dead}}
		},
		"azure": func(t *testing.T) setup {
			srv := azuretest.NewServer(t)
			srv.Inner.Script(rt.Turn{rt.Text("pong")})
			return setup{srv.URL, "gpt-5.4", map[string]string{"AZURE_OPENAI_API_KEY": azuretest.DefaultKey, "AZURE_OPENAI_ENDPOINT": dead}}
		},
		"openai-chat":   chat("OPENAI_API_KEY"),
		"gemini-openai": chat("GEMINI_API_KEY"),
		"openrouter":    chat("OPENROUTER_API_KEY"),
		"groq":          chat("GROQ_API_KEY"),
		"deepseek":      chat("DEEPSEEK_API_KEY"),
		"mistral":       chat("MISTRAL_API_KEY"),
		"ollama":        chat(""),
		"llamacpp":      chat(""),
		"vllm":          chat(""),
		"lmstudio":      chat(""),
	}
	if len(cases) != len(names) {
		t.Fatalf("%d cases for %d providers", len(cases), len(names))
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(t)
			p, _, err := New(t.Context(), name, provider.Config{Model: s.model, BaseURL: s.base, Models: Models(nil), Getenv: env(s.env)})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Send(t.Context(), &agent.Request{Model: s.model, MaxTokens: 256,
				Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("ping")}}}}, func(agent.StreamEvent) {})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Text(); got != "pong" {
				t.Errorf("answer %q, want pong", got)
			}
		})
	}
}
