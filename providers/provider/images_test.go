package provider

import (
	"encoding/base64"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func TestImageRulesCheck(t *testing.T) {
	t.Parallel()
	img := func(mt string, n int) agent.Image {
		return agent.Image{MediaType: mt, Data: base64.StdEncoding.EncodeToString(make([]byte, n)), Name: "x"}
	}
	claude := ImageRules{MediaTypes: []string{"image/jpeg", "image/png", "image/gif", "image/webp"}, MaxBytes: 5 << 20 / 4 * 3}
	gemini := ImageRules{MediaTypes: []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}, MaxBytes: 20 << 20}
	cases := []struct {
		rules    ImageRules
		provider string
		image    agent.Image
		want     string
	}{
		{claude, "anthropic", img("image/png", 3<<20), ""},
		{claude, "anthropic", img("image/png", 4<<20), "x is 4 MB, over the 3.75 MB anthropic takes per image: make it smaller and attach it again"},
		{gemini, "gemini", img("image/gif", 10), "x is image/gif, which gemini does not read (it takes png, jpeg, webp, heic, heif): convert it, or switch provider"},
		{ImageRules{}, "openai", img("image/gif", 10), ""},
		{ImageRules{}, "openai", img("image/bmp", 10), "x is image/bmp, which openai does not read (it takes png, jpeg, gif, webp): convert it, or switch provider"},
		{ImageRules{}, "openai", img("image/png", 21<<20), "x is 21 MB, over the 20 MB openai takes per image: make it smaller and attach it again"},
	}
	for _, c := range cases {
		err := c.rules.Check(c.provider, c.image)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%s %s: %q\nwant %q", c.provider, c.image.MediaType, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%s %s: taken, want %q", c.provider, c.image.MediaType, c.want)
		}
	}
	// Size decodes base64 padding exactly.
	for n := range 5 {
		if got := img("image/png", n).Size(); got != n {
			t.Errorf("Size of %d bytes = %d", n, got)
		}
	}
}
