package noimages

import (
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/provider"
)

func TestStrip(t *testing.T) {
	t.Parallel()
	img := agent.Image{MediaType: "image/png", Data: "iVBORw0KGgo="}
	req := &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartText, Text: "look"}}},
		{Role: agent.RoleUser, Parts: []agent.Part{
			{Type: agent.PartToolResult, ToolResult: &agent.ToolResult{CallID: "a", Text: "shot taken", Images: []agent.Image{img}}},
			{Type: agent.PartToolResult, ToolResult: &agent.ToolResult{CallID: "b", Images: []agent.Image{img, img}}},
		}},
	}}
	if got := Strip(req, models.Capabilities{TakesImages: true}, provider.ImageRules{}); got != req {
		t.Fatal("a model that reads images gets the request as it is")
	}
	got := Strip(req, models.Capabilities{}, provider.ImageRules{})
	a, b := got.Messages[1].Parts[0].ToolResult, got.Messages[1].Parts[1].ToolResult
	if a.Text != "shot taken\n[an image was omitted because the model takes no images]" || len(a.Images) != 0 {
		t.Errorf("a = %+v", a)
	}
	if b.Text != "[2 images were omitted because the model takes no images]" || len(b.Images) != 0 {
		t.Errorf("b = %+v", b)
	}
	if len(req.Messages[1].Parts[0].ToolResult.Images) != 1 || req.Messages[1].Parts[0].ToolResult.Text != "shot taken" {
		t.Error("the caller's history was written")
	}
	if got.Messages[0].Parts[0].Text != "look" {
		t.Error("other messages lost")
	}
}

// The images the user attached: kept for a model that takes them within
// the API's rules, a line naming each otherwise (no images at all, or a
// type the API refuses); text and tool results are untouched.
func TestStripUserImages(t *testing.T) {
	t.Parallel()
	png := agent.Image{MediaType: "image/png", Data: "iVBORw0KGgo=", Name: "a.png"}
	gif := agent.Image{MediaType: "image/gif", Data: "R0lGODlh", Name: "b.gif"}
	geminiRules := provider.ImageRules{MediaTypes: []string{"image/png", "image/jpeg", "image/webp"}}
	cases := []struct {
		name  string
		caps  models.Capabilities
		rules provider.ImageRules
		want  []string // each part: its text, or "image NAME"
	}{
		{"takes them", models.Capabilities{TakesImages: true}, provider.ImageRules{}, []string{"see", "image a.png", "image b.gif"}},
		{"takes none", models.Capabilities{}, provider.ImageRules{},
			[]string{"see", "[the user attached image a.png; omitted because the model takes no images]", "[the user attached image b.gif; omitted because the model takes no images]"}},
		{"no GIF", models.Capabilities{TakesImages: true}, geminiRules,
			[]string{"see", "image a.png", "[the user attached image b.gif (image/gif); omitted because this API does not take it]"}},
	}
	for _, c := range cases {
		req := &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Parts: agent.Input{Text: "see", Images: []agent.Image{png, gif}}.Parts()}}}
		got := Strip(req, c.caps, c.rules)
		var parts []string
		for _, p := range got.Messages[0].Parts {
			if p.Image != nil {
				parts = append(parts, "image "+p.Image.Name)
				continue
			}
			parts = append(parts, p.Text)
		}
		if strings.Join(parts, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q\nwant %q", c.name, parts, c.want)
		}
		if req.Messages[0].Parts[2].Image == nil {
			t.Errorf("%s: the caller's history was written", c.name)
		}
	}
}
