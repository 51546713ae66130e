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

// On a terminal too narrow for the model beside the figures the model
// stays (it was dropped for the figures at 20 columns, while the README
// says the bar keeps it): its provider prefix goes first, then the cost,
// then the context fill, until the model has 12 cells (or all of a shorter
// name); a permission mode other than the default stays.
func TestNarrowStatusBarKeepsModel(t *testing.T) {
	st, _ := themes.Get("dark")
	info := Info{
		Provider: "anthropic", Model: "claude-sonnet-4-5-20250929",
		ContextWindow: 200000, CostKnown: true, Cost: 0.42,
		Totals: agent.Usage{InputTokens: 12000, OutputTokens: 900},
		Last:   agent.Usage{InputTokens: 4000, OutputTokens: 300},
	}
	gpt := info
	gpt.Provider, gpt.Model = "openai", "gpt-4.1"
	bypass := info
	bypass.Mode = "bypass"
	for _, tc := range []struct {
		name     string
		info     Info
		width    int
		want     []string
		wantNone []string
	}{
		{"long model at 20", info, 20, []string{" claude-sonnet-4-5…"}, []string{"ctx", "$", "anthropic"}},
		{"long model at 24", info, 24, []string{" claude-sonnet… · ctx 0%"}, []string{"$", "anthropic"}},
		{"long model at 30", info, 30, []string{" claude-sonn… · ctx 0% · $0.42"}, []string{"anthropic"}},
		{"long model at 60", info, 60, []string{" anthropic/claude-sonnet-4-5-20250929 · ctx 0% · $0.42"}, nil},
		{"short model at 20", gpt, 20, []string{" gpt-4.1 · ctx 0%"}, []string{"$", "openai"}},
		{"short model at 26", gpt, 26, []string{" gpt-4.1 · ctx 0% · $0.42"}, []string{"openai"}},
		{"mode stays at 20", bypass, 20, []string{"mode bypass", " clau…"}, []string{"ctx", "$"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bar := statusBar{info: tc.info}
			line := ansi.Strip(bar.View(st, tc.width))
			if got := ansi.StringWidth(line); got != tc.width {
				t.Errorf("bar is %d cells, want %d: %q", got, tc.width, line)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q missing from %q", w, line)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(line, w) {
					t.Errorf("%q in %q", w, line)
				}
			}
		})
	}
}

// A search mode that resolves to off because no tool is deferred says so:
// "search native→off" did not say why. In no more cells, and the bar
// still fits 80 columns.
func TestStatusBarSaysNothingIsDeferred(t *testing.T) {
	st, _ := themes.Get("dark")
	for _, tt := range []struct {
		mode     string
		deferred int
		want     string
	}{
		{"native→off", 0, "nothing deferred"},
		{"client→off", 0, "nothing deferred"},
		{"off", 0, "search off"},
		{"native", 12, "search native"},
		{"native→client", 12, "search native→client"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			bar := statusBar{info: Info{Provider: "anthropic", Model: "claude-sonnet-4-5", SearchMode: tt.mode, Deferred: tt.deferred, Active: 3}}
			if got := searchItem(bar.info); got != tt.want || ansi.StringWidth(got) > ansi.StringWidth("search "+tt.mode) && tt.want != "search "+tt.mode {
				t.Errorf("search item %q, want %q (no wider than %q)", got, tt.want, "search "+tt.mode)
			}
			if line := ansi.Strip(bar.View(st, 80)); ansi.StringWidth(line) != 80 || !strings.Contains(line, tt.want) {
				t.Errorf("80 columns: %q (%d cells), want %q in it", line, ansi.StringWidth(line), tt.want)
			}
		})
	}
}

// A note too long for the room left drops its last parts whole: a resumed
// session's bar ended "resum…", which said nothing. A note of one part is
// still cut with an ellipsis.
func TestStatusNoteDropsWholeParts(t *testing.T) {
	st, _ := themes.Get("dark")
	info := Info{Provider: "anthropic", Model: "claude-sonnet-4-5", SessionID: "0123456789abcdef",
		ContextWindow: 200000, CostKnown: true, Cost: 0.03, Totals: agent.Usage{InputTokens: 13400, OutputTokens: 14}}
	for _, tt := range []struct {
		note, want, not string
		width           int
	}{
		{"resumed · replaying 4 messages", "resumed · replaying 4 messages", "", 140},
		{"resumed · replaying 4 messages", " resumed ", "repl", 120},
		{"resumed · replaying 4 messages", "", "resum", 96},
		{"demo: scripted local model", "demo: scri", "", 120},
	} {
		bar := statusBar{info: info, note: tt.note}
		line := ansi.Strip(bar.View(st, tt.width))
		if !strings.Contains(line, tt.want) || (tt.not != "" && strings.Contains(line, tt.not)) || ansi.StringWidth(line) != tt.width {
			t.Errorf("width %d, note %q: bar %q, want %q without %q", tt.width, tt.note, line, tt.want, tt.not)
		}
	}
}
