package registry

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/azure/azuretest"
	"github.com/agent-dev/agent/providers/bedrock/bedrocktest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
	"github.com/agent-dev/agent/providers/provider"
	"github.com/agent-dev/agent/providers/vertex/vertextest"
)

// pngData is a real 2x2 PNG, base64.
func pngData(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// imageCase is one provider built against its fake, with what the fake
// received.
type imageCase struct {
	base, model string
	env         map[string]string
	bodies      func() [][]byte
}

func imageCases(t *testing.T) map[string]func(t *testing.T) imageCase {
	return map[string]func(t *testing.T) imageCase{
		"anthropic": func(t *testing.T) imageCase {
			srv := anthropictest.NewServer(t)
			srv.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a red dot"})
			return imageCase{srv.URL, "claude-sonnet-4-5", map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"bedrock": func(t *testing.T) imageCase {
			srv := bedrocktest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a red dot"})
			return imageCase{srv.URL, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]string{"AWS_REGION": bedrocktest.Region,
				"AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"vertex": func(t *testing.T) imageCase {
			srv := vertextest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a red dot"})
			return imageCase{srv.BaseURL, "claude-sonnet-4-5@20250929", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t)}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"openai": func(t *testing.T) imageCase {
			srv := rt.NewServer(t)
			srv.Script(rt.Turn{rt.Text("a red dot")})
			return imageCase{srv.URL, "gpt-5.4", map[string]string{"OPENAI_API_KEY": rt.DefaultKey}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"azure": func(t *testing.T) imageCase {
			srv := azuretest.NewServer(t)
			srv.Inner.Script(rt.Turn{rt.Text("a red dot")})
			return imageCase{srv.URL, "gpt-5.4", map[string]string{"AZURE_OPENAI_API_KEY": azuretest.DefaultKey}, func() [][]byte { return bodies(srv.Inner.Requests()) }}
		},
		"openai-chat": func(t *testing.T) imageCase {
			srv := chattest.NewServer(t)
			srv.Script(chattest.Turn{Text: "a red dot"})
			srv.APIKey = "chat-key"
			return imageCase{srv.BaseURL(), "gpt-4.1", map[string]string{"OPENAI_API_KEY": "chat-key"}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"gemini": func(t *testing.T) imageCase {
			srv := geminitest.NewServer(t)
			srv.Script = geminitest.NewScript(geminitest.Turn{Text: "a red dot"})
			return imageCase{srv.URL, "gemini-2.5-flash", map[string]string{"GOOGLE_API_KEY": geminitest.DefaultKey}, func() [][]byte { return bodies(srv.Requests()) }}
		},
		"vertex-gemini": func(t *testing.T) imageCase {
			srv := vertextest.NewServer(t)
			srv.Gemini.Script = geminitest.NewScript(geminitest.Turn{Text: "a red dot"})
			return imageCase{srv.BaseURL, "gemini-2.5-flash", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t)}, func() [][]byte { return bodies(srv.Requests()) }}
		},
	}
}

// An image the user attached reaches each API in that API's own form for
// user content, after the prompt's text, and the strict fake takes it.
func TestUserImageOnTheWire(t *testing.T) {
	t.Parallel()
	data := pngData(t)
	// (the last block of the request carries the cache breakpoint)
	anthropicBlock := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}`
	geminiPart := `{"inlineData":{"data":"` + data + `","mimeType":"image/png"}}`
	want := map[string][]string{
		"anthropic":     {`{"type":"text","text":"what is this?"},` + anthropicBlock},
		"bedrock":       {`{"type":"text","text":"what is this?"},` + anthropicBlock},
		"vertex":        {`{"type":"text","text":"what is this?"},` + anthropicBlock},
		"openai":        {`{"role":"user","content":[{"text":"what is this?","type":"input_text"},{"image_url":"data:image/png;base64,` + data + `","type":"input_image"}]}`},
		"azure":         {`{"role":"user","content":[{"text":"what is this?","type":"input_text"},{"image_url":"data:image/png;base64,` + data + `","type":"input_image"}]}`},
		"openai-chat":   {`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + data + `"}}]}`},
		"gemini":        {`{"text":"what is this?"},` + geminiPart},
		"vertex-gemini": {`{"text":"what is this?"},` + geminiPart},
	}
	for name, mk := range imageCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := mk(t)
			p, _, err := New(t.Context(), name, provider.Config{Model: c.model, BaseURL: c.base, Models: Models(nil), Getenv: env(c.env)})
			if err != nil {
				t.Fatal(err)
			}
			msg := agent.Message{Role: agent.RoleUser, Parts: agent.Input{Text: "what is this?",
				Images: []agent.Image{{MediaType: "image/png", Data: data, Name: "dot.png"}}}.Parts()}
			resp, err := p.Send(t.Context(), &agent.Request{Model: c.model, MaxTokens: 256, Messages: []agent.Message{msg}}, func(agent.StreamEvent) {})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Text(); got != "a red dot" {
				t.Errorf("answer %q", got)
			}
			bodies := c.bodies()
			if len(bodies) != 1 {
				t.Fatalf("%d requests", len(bodies))
			}
			for _, w := range want[name] {
				if !bytes.Contains(bodies[0], []byte(w)) {
					t.Errorf("body lacks %s\nbody: %.600s", w, bodies[0])
				}
			}
			if bytes.Contains(bodies[0], []byte("dot.png")) {
				t.Error("the file name went to the provider")
			}
		})
	}
}

// Each strict fake refuses what its API refuses of an image, with the
// API's words: the bodies are posted as a client that checks nothing
// would send them.
func TestFakesRefuseBadImages(t *testing.T) {
	t.Parallel()
	data := pngData(t)
	big := base64.StdEncoding.EncodeToString(append(mustDecode(data), make([]byte, 5<<20)...))
	anthropicBody := func(mt, d string) string {
		return `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"what?"},` +
			`{"type":"image","source":{"type":"base64","media_type":"` + mt + `","data":"` + d + `"}}]}]}`
	}
	ant := anthropictest.NewServer(t)
	resp := rt.NewServer(t)
	chat := chattest.NewServer(t)
	gem := geminitest.NewServer(t)
	cases := []struct {
		name, url, body string
		header          map[string]string
		status          int
		want            string
	}{
		{"anthropic type", ant.URL + "/v1/messages", anthropicBody("image/bmp", data), map[string]string{"x-api-key": anthropictest.DefaultAPIKey, "anthropic-version": "2023-06-01"},
			400, "messages.0.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},
		{"anthropic size", ant.URL + "/v1/messages", anthropicBody("image/png", big), map[string]string{"x-api-key": anthropictest.DefaultAPIKey, "anthropic-version": "2023-06-01"},
			400, "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: "},
		{"anthropic bytes", ant.URL + "/v1/messages", anthropicBody("image/jpeg", data), map[string]string{"x-api-key": anthropictest.DefaultAPIKey, "anthropic-version": "2023-06-01"},
			400, "messages.0.content.1.image.source.base64: Image does not match the provided media type image/jpeg"},
		{"responses type", resp.URL + "/v1/responses", `{"model":"gpt-5.4","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/bmp;base64,` + data + `"}]}]}`,
			map[string]string{"Authorization": "Bearer " + rt.DefaultKey}, 400, `"code":"invalid_image_format"`},
		{"chat bytes", chat.URL + "/v1/chat/completions", `{"model":"gpt-4.1","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/gif;base64,` + data + `"}}]}]}`,
			nil, 400, "The image data you provided does not represent a valid image"},
		{"gemini gif", gem.URL + "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/gif","data":"` + data + `"}}]}]}`,
			map[string]string{"x-goog-api-key": geminitest.DefaultKey}, 400, `"message":"Unsupported MIME type: image/gif"`},
	}
	for _, c := range cases {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.url, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s\nwant %d with %s", c.name, res.StatusCode, b, c.status, c.want)
		}
	}
}

// An image that reached the history on another provider and that this
// API refuses (a GIF, for Gemini) goes as a line naming it, so the
// conversation goes on instead of failing on every turn.
func TestAdapterNamesAnImageItsAPIRefuses(t *testing.T) {
	t.Parallel()
	c := imageCases(t)["gemini"](t)
	p, _, err := New(t.Context(), "gemini", provider.Config{Model: c.model, BaseURL: c.base, Models: Models(nil), Getenv: env(c.env)})
	if err != nil {
		t.Fatal(err)
	}
	msg := agent.Message{Role: agent.RoleUser, Parts: agent.Input{Text: "what?", Images: []agent.Image{{MediaType: "image/gif", Data: "R0lGODlh", Name: "a.gif"}}}.Parts()}
	if _, err := p.Send(t.Context(), &agent.Request{Model: c.model, MaxTokens: 64, Messages: []agent.Message{msg}}, func(agent.StreamEvent) {}); err != nil {
		t.Fatal(err)
	}
	if b := c.bodies()[0]; !bytes.Contains(b, []byte("[the user attached image a.gif (image/gif); omitted because this API does not take it]")) || bytes.Contains(b, []byte("R0lGODlh")) {
		t.Errorf("body: %s", b)
	}
}

// bodies is the Body field of each request a fake logged (every fake's
// Request type has one).
func bodies(reqs any) [][]byte {
	v := reflect.ValueOf(reqs)
	out := make([][]byte, v.Len())
	for i := range out {
		out[i] = reflect.Indirect(v.Index(i)).FieldByName("Body").Bytes()
	}
	return out
}

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
