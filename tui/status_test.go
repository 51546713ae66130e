package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/themes"
)

// The model name and the context fill survive at every common width: the
// session id, search mode, last request and savings go first.
func TestStatusBarKeepsModel(t *testing.T) {
	st, _ := themes.Get("dark")
	bar := statusBar{info: Info{
		Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
		SessionID: "0123456789abcdef", SearchMode: "native",
		TokensSaved: 60000, Requests: 3, ContextWindow: 200000, CostKnown: true, Cost: 0.42,
		Totals: agent.Usage{InputTokens: 12000, OutputTokens: 900, CacheReadTokens: 40000},
		Last:   agent.Usage{InputTokens: 4000, OutputTokens: 300},
	}}
	for _, width := range []int{80, 100, 120, 160} {
		line := ansi.Strip(bar.View(st, width))
		if got := ansi.StringWidth(line); got != width {
			t.Errorf("width %d: bar is %d cells", width, got)
		}
		for _, want := range []string{"anthropic/claude-sonnet-4-5-20250929", "ctx ", "$0.42"} {
			if !strings.Contains(line, want) {
				t.Errorf("width %d: %q missing from %q", width, want, line)
			}
		}
	}
	// Wide enough, nothing is dropped.
	if line := ansi.Strip(bar.View(st, 200)); !strings.Contains(line, "sess 01234567") || !strings.Contains(line, "search native") {
		t.Errorf("width 200 dropped items: %q", line)
	}
	// Too narrow for everything: the model is cut, the figures stay.
	if line := ansi.Strip(bar.View(st, 30)); !strings.Contains(line, "ctx ") {
		t.Errorf("width 30 lost the context fill: %q", line)
	}
}
