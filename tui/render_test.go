package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "  three", "  four"}},
		{"  a list item that wraps", 12, []string{"  a list", "    item", "    that", "    wraps"}},
		{"héllo wörld ünïcode", 11, []string{"héllo wörld", "  ünïcode"}},
		// A URL longer than the line is broken, never changed: the
		// continuation used to be joined with spaces, putting a space after
		// each hyphen a break fell on ("yy- D2").
		{"open: https://a.example/authorize?client_id=client-927dd65d&state=yy-D2 now", 24,
			[]string{"open:", "  https://a.example/auth", "  orize?client_id=client", "  -927dd65d&state=yy-D2", "  now"}},
		// A flag is not broken at its hyphens ("run agent -" then "-mcp
		// NAME" named no flag); a word's own hyphen still breaks.
		{"to connect one run agent --mcp NAME now", 26, []string{"to connect one run agent", "  --mcp NAME now"}},
		{"see the --mcp-config flag", 17, []string{"see the", "  --mcp-config", "  flag"}},
		{"a well-known thing", 8, []string{"a well-", "  known", "  thing"}},
	}
	for _, tt := range tests {
		got := wrapLines(tt.in, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrapLines(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tt.width {
				t.Errorf("line %q wider than %d", l, tt.width)
			}
		}
	}
}

func TestSummariesAndFormats(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{summarizeArgs(json.RawMessage(`{"b":2,"a":"x"}`)), `a="x", b=2`},
		{summarizeArgs(json.RawMessage(`{}`)), `{}`},
		{preview("{\n  \"a\": 1\n}"), `{"a":1}`},
		{preview("\n\nfirst line\nsecond"), "first line"},
		{fmtDuration(0), ""},
		{fmtDuration(500 * time.Microsecond), "<1ms"},
		{fmtDuration(120 * time.Millisecond), "120ms"},
		{fmtDuration(2500 * time.Millisecond), "2.5s"},
		{fmtTokens(950), "950"},
		{fmtTokens(12345), "12.3k"},
		{fmtTokens(2_500_000), "2.5M"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestJoinWrapped(t *testing.T) {
	t.Parallel()
	parts := []string{"active 3", "deferred 254", "discovered 10"}
	tests := []struct {
		width int
		want  []string
	}{
		{80, []string{"active 3 · deferred 254 · discovered 10"}},
		// The pane's narrowest width: the discovered count moves to a
		// line of its own instead of being cut.
		{38, []string{"active 3 · deferred 254", "discovered 10"}},
		{5, []string{"active 3", "deferred 254", "discovered 10"}},
	}
	for _, tt := range tests {
		got := joinWrapped(parts, " · ", tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("joinWrapped(width %d) = %q, want %q", tt.width, got, tt.want)
		}
	}
}
