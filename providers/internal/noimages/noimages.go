// Package noimages leaves images out of a request for a model that reads
// none: the API would refuse the whole request (DeepSeek answers "Model do
// not support image input"). Each tool result keeps its text and says
// instead how many images were left out; an image the user attached (to an
// earlier turn, on a model that took it) becomes a line naming it, and so
// does one the API's image rules refuse (a GIF attached for Claude, then
// sent to Gemini after a switch).
package noimages

import (
	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/provider"
)

// Strip returns req unchanged when the model takes images (each one the
// user attached within the API's rules) or the history holds none, else a
// copy whose tool results carry the note in place of their images and
// whose attached images that cannot go are notes too. The caller's history
// is never written.
func Strip(req *agent.Request, c models.Capabilities, rules provider.ImageRules) *agent.Request {
	if !hasImages(req.Messages) || c.TakesImages && !unfit(req.Messages, rules) {
		return req
	}
	out := *req
	out.Messages = make([]agent.Message, len(req.Messages))
	for i, m := range req.Messages {
		out.Messages[i] = m
		if !hasImages(req.Messages[i : i+1]) {
			continue
		}
		parts := make([]agent.Part, len(m.Parts))
		copy(parts, m.Parts)
		for j, pt := range parts {
			if pt.Type == agent.PartImage && pt.Image != nil {
				name := "an image"
				if pt.Image.Name != "" {
					name = "image " + pt.Image.Name
				}
				switch {
				case !c.TakesImages:
					parts[j] = agent.TextPart("[the user attached " + name + "; omitted because the model takes no images]")
				case rules.Check("", *pt.Image) != nil:
					parts[j] = agent.TextPart("[the user attached " + name + " (" + pt.Image.MediaType + "); omitted because this API does not take it]")
				}
				continue
			}
			if c.TakesImages || pt.ToolResult == nil || len(pt.ToolResult.Images) == 0 {
				continue
			}
			tr := *pt.ToolResult
			note := models.ImagesOmitted(len(tr.Images))
			if tr.Text != "" {
				note = tr.Text + "\n" + note
			}
			tr.Text, tr.Images = note, nil
			parts[j].ToolResult = &tr
		}
		out.Messages[i].Parts = parts
	}
	return &out
}

// unfit reports whether an image the user attached breaks the rules.
func unfit(msgs []agent.Message, rules provider.ImageRules) bool {
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.Type == agent.PartImage && pt.Image != nil && rules.Check("", *pt.Image) != nil {
				return true
			}
		}
	}
	return false
}

func hasImages(msgs []agent.Message) bool {
	for _, m := range msgs {
		for _, pt := range m.Parts {
			if pt.Type == agent.PartImage || pt.ToolResult != nil && len(pt.ToolResult.Images) > 0 {
				return true
			}
		}
	}
	return false
}
