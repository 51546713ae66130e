package registry

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
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
			return imageCase{srv.URL, "claude-sonnet-4-5", map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"bedrock": func(t *testing.T) imageCase {
			srv := bedrocktest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a red dot"})
			return imageCase{srv.URL, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]string{"AWS_REGION": bedrocktest.Region,
				"AWS_ACCESS_KEY_ID": bedrocktest.AccessKey, "AWS_SECRET_ACCESS_KEY": bedrocktest.SecretKey}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"vertex": func(t *testing.T) imageCase {
			srv := vertextest.NewServer(t)
			srv.Inner.Script = anthropictest.NewScript(anthropictest.Turn{Text: "a red dot"})
			return imageCase{srv.BaseURL, "claude-sonnet-4-5@20250929", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t)}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"openai": func(t *testing.T) imageCase {
			srv := rt.NewServer(t)
			srv.Script(rt.Turn{rt.Text("a red dot")})
			return imageCase{srv.URL, "gpt-5.4", map[string]string{"OPENAI_API_KEY": rt.DefaultKey}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"azure": func(t *testing.T) imageCase {
			srv := azuretest.NewServer(t)
			srv.Inner.Script(rt.Turn{rt.Text("a red dot")})
			return imageCase{srv.URL, "gpt-5.4", map[string]string{"AZURE_OPENAI_API_KEY": azuretest.DefaultKey}, func() (out [][]byte) {
				for _, r := range srv.Inner.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"openai-chat": func(t *testing.T) imageCase {
			srv := chattest.NewServer(t)
			srv.Script(chattest.Turn{Text: "a red dot"})
			srv.APIKey = "chat-key"
			return imageCase{srv.BaseURL(), "gpt-4.1", map[string]string{"OPENAI_API_KEY": "chat-key"}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"gemini": func(t *testing.T) imageCase {
			srv := geminitest.NewServer(t)
			srv.Script = geminitest.NewScript(geminitest.Turn{Text: "a red dot"})
			return imageCase{srv.URL, "gemini-2.5-flash", map[string]string{"GOOGLE_API_KEY": geminitest.DefaultKey}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
		},
		"vertex-gemini": func(t *testing.T) imageCase {
			srv := vertextest.NewServer(t)
			srv.Gemini.Script = geminitest.NewScript(geminitest.Turn{Text: "a red dot"})
			return imageCase{srv.BaseURL, "gemini-2.5-flash", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": srv.ServiceAccountJSON(t)}, func() (out [][]byte) {
				for _, r := range srv.Requests() {
					out = append(out, r.Body)
				}
				return out
			}}
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
// API's words, and the adapter reports it as a bad request.
func TestFakesRefuseBadImages(t *testing.T) {
	t.Parallel()
	data := pngData(t)
	big := base64.StdEncoding.EncodeToString(append(append([]byte{}, mustDecode(data)...), make([]byte, 5<<20)...))
	cases := []struct {
		provider string
		image    agent.Image
		want     string
	}{
		{"anthropic", agent.Image{MediaType: "image/bmp", Data: data}, "image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},
		{"anthropic", agent.Image{MediaType: "image/png", Data: big}, "image exceeds 5 MB maximum: "},
		{"anthropic", agent.Image{MediaType: "image/jpeg", Data: data}, "Image does not match the provided media type image/jpeg"},
		{"openai", agent.Image{MediaType: "image/bmp", Data: data}, "You uploaded an unsupported image. Please make sure your image has of one the following formats"},
		{"openai-chat", agent.Image{MediaType: "image/gif", Data: data}, "The image data you provided does not represent a valid image"},
		{"gemini", agent.Image{MediaType: "image/gif", Data: data}, "Unsupported MIME type: image/gif"},
	}
	for _, c := range cases {
		t.Run(c.provider+" "+c.want[:20], func(t *testing.T) {
			t.Parallel()
			s := imageCases(t)[c.provider](t)
			p, _, err := New(t.Context(), c.provider, provider.Config{Model: s.model, BaseURL: s.base, Models: Models(nil), Getenv: env(s.env)})
			if err != nil {
				t.Fatal(err)
			}
			msg := agent.Message{Role: agent.RoleUser, Parts: agent.Input{Text: "what is this?", Images: []agent.Image{c.image}}.Parts()}
			_, err = p.Send(t.Context(), &agent.Request{Model: s.model, MaxTokens: 256, Messages: []agent.Message{msg}}, func(agent.StreamEvent) {})
			if err == nil || !strings.Contains(err.Error(), c.want) || agent.KindOf(err) != agent.ErrBadRequest {
				t.Errorf("err = %v (kind %v), want a bad request with %q", err, agent.KindOf(err), c.want)
			}
		})
	}
}

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
