package noimages

import (
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
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
	if got := Strip(req, models.Capabilities{TakesImages: true}); got != req {
		t.Fatal("a model that reads images gets the request as it is")
	}
	got := Strip(req, models.Capabilities{})
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
