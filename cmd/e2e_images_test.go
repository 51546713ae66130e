package cmd

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// writeImage writes a real 2x2 image, PNG or GIF by the name's extension,
// and returns its path and its base64.
func writeImage(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.White, color.Black})
	img.SetColorIndex(1, 1, 1)
	var b bytes.Buffer
	var err error
	if strings.HasSuffix(name, ".gif") {
		err = gif.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, base64.StdEncoding.EncodeToString(b.Bytes())
}

// The images part's "done when" through -p: --image reaches an
// image-capable model in its API's form on every wire API, and a resumed
// session sends it again (from the store) with the next prompt.
func TestPrintImageReachesEveryAPIAndIsReplayed(t *testing.T) {
	type setup struct {
		args   []string
		env    map[string]string
		bodies func() [][]byte
	}
	cases := []struct {
		name  string
		wire  func(data string) string
		setup func(t *testing.T) setup
	}{
		{"anthropic", func(d string) string {
			return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + d + `"}`
		}, func(t *testing.T) setup {
			f := anthropictest.NewServer(t)
			f.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "A dot."}, anthropictest.Turn{Text: "Still a dot."}))
			return setup{[]string{"--provider", "anthropic", "--base-url", f.URL}, map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey},
				func() [][]byte { return anthropicBodies(f) }}
		}},
		{"openai responses", func(d string) string {
			return `{"image_url":"data:image/png;base64,` + d + `","type":"input_image"}`
		}, func(t *testing.T) setup {
			f := rt.NewServer(t)
			f.Script(rt.Turn{rt.Text("A dot.")}, rt.Turn{rt.Text("Still a dot.")})
			return setup{[]string{"--provider", "openai", "--base-url", f.URL, "--model", "gpt-5.4"}, map[string]string{"OPENAI_API_KEY": f.APIKey},
				func() [][]byte { return responsesBodies(f.Requests()) }}
		}},
		{"openai chat", func(d string) string {
			return `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + d + `"}}`
		}, func(t *testing.T) setup {
			f := chattest.NewServer(t)
			f.Script(chattest.Text("A dot."), chattest.Text("Still a dot."))
			return setup{[]string{"--provider", "openai-chat", "--base-url", f.URL + "/v1", "--model", "gpt-4.1"}, map[string]string{"OPENAI_API_KEY": "k"},
				func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}}
		}},
		{"gemini", func(d string) string {
			return `{"inlineData":{"data":"` + d + `","mimeType":"image/png"}}`
		}, func(t *testing.T) setup {
			f := geminitest.NewServer(t)
			f.Script = geminitest.NewScript(geminitest.Turn{Text: "A dot."}, geminitest.Turn{Text: "Still a dot."})
			return setup{[]string{"--provider", "gemini", "--base-url", f.URL, "--model", "gemini-2.5-flash"}, map[string]string{"GEMINI_API_KEY": geminitest.DefaultKey},
				func() [][]byte {
					var out [][]byte
					for _, r := range f.Requests() {
						out = append(out, r.Body)
					}
					return out
				}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			s := tc.setup(t)
			path, data := writeImage(t, wd, "dot.png")
			db := filepath.Join(t.TempDir(), "agent.db")
			res := runAgent(t, s.env, append([]string{"-p", "What is this?", "--image", path, "--db", db, "--output-format", "json"}, s.args...)...)
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
			}
			out := decodePrint(t, res.stdout)
			if out.Result != "A dot." {
				t.Errorf("result %q", out.Result)
			}
			wire := tc.wire(data)
			bodies := s.bodies()
			if len(bodies) != 1 || !bytes.Contains(bodies[0], []byte(wire)) || !bytes.Contains(bodies[0], []byte("What is this?")) {
				t.Fatalf("first request lacks the image %s:\n%.800s", wire, bodies)
			}
			res = runAgent(t, s.env, append([]string{"-p", "And now?", "--resume", out.SessionID, "--db", db, "--output-format", "json"}, s.args...)...)
			if res.code != 0 {
				t.Fatalf("resume: exit %d\nstderr: %s", res.code, res.stderr)
			}
			bodies = s.bodies()
			if len(bodies) != 2 || !bytes.Contains(bodies[1], []byte(wire)) || !bytes.Contains(bodies[1], []byte("And now?")) {
				t.Errorf("the resumed request does not replay the image:\n%.800s", bodies[len(bodies)-1])
			}
			// The transcript names the image; its bytes stay in the store.
			res = runAgent(t, s.env, "sessions", "show", out.SessionID, "--db", db)
			if res.code != 0 || !strings.Contains(res.stdout, "▣ dot.png (png, ") || strings.Contains(res.stdout, data[:24]) {
				t.Errorf("sessions show: exit %d\n%s", res.code, res.stdout)
			}
		})
	}
}

// What cannot be sent is refused before any request, in one line naming
// the model or the file and what to do, with exit code 2.
func TestPrintImageRefused(t *testing.T) {
	wd := isolate(t)
	pngPath, _ := writeImage(t, wd, "dot.png")
	gifPath, _ := writeImage(t, wd, "anim.gif")
	text := filepath.Join(wd, "notes.png")
	if err := os.WriteFile(text, []byte("just text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chat := chattest.NewServer(t)
	chat.Script(chattest.Text("never"))
	gem := geminitest.NewServer(t)
	gem.Script = geminitest.NewScript(geminitest.Turn{Text: "never"})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--image", pngPath, "--provider", "openai-chat", "--base-url", chat.URL + "/v1", "--model", "o3-mini"},
			"o3-mini takes no images, so the image was not sent: switch to a model that reads images (/model, --model)"},
		{[]string{"--image", pngPath, "--image", pngPath, "--provider", "ollama", "--base-url", chat.URL + "/v1", "--model", "my-local-model"},
			"my-local-model takes no images, so the 2 images were not sent"},
		{[]string{"--image", gifPath, "--provider", "gemini", "--base-url", gem.URL},
			"not sent: anim.gif is image/gif, which gemini does not read (it takes png, jpeg, webp, heic, heif): convert it, or switch provider"},
		{[]string{"--image", text, "--provider", "gemini", "--base-url", gem.URL},
			"--image: image " + text + ": not an image: its content is text/plain, not png, jpeg, gif or webp"},
		{[]string{"--image", filepath.Join(wd, "missing.png"), "--provider", "gemini", "--base-url", gem.URL},
			"--image: image " + filepath.Join(wd, "missing.png") + ": no such file"},
	}
	env := map[string]string{"OPENAI_API_KEY": "k", "GEMINI_API_KEY": geminitest.DefaultKey}
	for _, c := range cases {
		res := runAgent(t, env, append([]string{"-p", "What is this?", "--db", filepath.Join(t.TempDir(), "a.db")}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q\nwant one line with %q", c.args, res.code, res.stderr, c.want)
		}
	}
	if n := len(chat.Requests()) + len(gem.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
