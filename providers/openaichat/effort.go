package openaichat

import (
	"bytes"
	"fmt"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
)

// routerEfforts are the values of OpenRouter's reasoning.effort, least to
// most (openrouter.ai/docs/use-cases/reasoning-tokens): --effort max is
// its "xhigh".
var routerEfforts = models.Capabilities{Efforts: []string{"none", "minimal", "low", "medium", "high", "xhigh"}}

// writeEffort writes the request's --effort in the form the server and
// model take, and returns the one-time notice to give ("" for none):
//   - OpenRouter: "reasoning": {"effort"} for every reasoning model;
//   - DeepSeek V4: "thinking": {"type": "enabled"} with reasoning_effort
//     (high or max), or "disabled" for --effort none;
//   - elsewhere reasoning_effort (OpenAI's reasoning models, Gemini's
//     compatibility layer, gpt-oss).
func (p *Provider) writeEffort(b *bytes.Buffer, req *agent.Request, caps models.Capabilities) string {
	switch {
	case p.opts.ReasoningObject && caps.Reasoning != models.ReasoningNone:
		e, _ := routerEfforts.WireEffort(req.Effort)
		b.WriteString(`,"reasoning":{"effort":`)
		writeJSON(b, e)
		b.WriteString(`}`)
		return ""
	case caps.Thinking == models.ThinkingSwitch:
		if req.Effort == models.EffortNone {
			b.WriteString(`,"thinking":{"type":"disabled"}`)
			return ""
		}
		e, _ := caps.WireEffort(req.Effort)
		b.WriteString(`,"thinking":{"type":"enabled"},"reasoning_effort":`)
		writeJSON(b, e)
		return caps.EffortNote(req.Model, req.Effort)
	}
	e, ok := caps.WireEffort(req.Effort)
	if !ok || caps.Thinking == models.ThinkingAlways || caps.Thinking == models.ThinkingNone {
		return fmt.Sprintf("--effort %s ignored: %s has no reasoning effort on this API", req.Effort, req.Model)
	}
	b.WriteString(`,"reasoning_effort":`)
	writeJSON(b, e)
	return caps.EffortNote(req.Model, req.Effort)
}
