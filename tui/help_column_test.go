package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every command's description in /help starts in the same column, the
// longest usage's ("/mcp [ACTION NAME]" ran into its description when the
// column was a fixed 16).
func TestHelpCommandColumn(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 120, 40, Options{})
	text := m.helpText()
	_, cmds, ok := strings.Cut(text, "Commands\n")
	if !ok {
		t.Fatalf("no Commands section:\n%s", text)
	}
	for _, c := range commandHelp {
		line := ""
		for l := range strings.SplitSeq(cmds, "\n") {
			if strings.HasPrefix(l, "  "+c[0]+" ") {
				line = l
				break
			}
		}
		if line == "" {
			t.Errorf("%s: not listed:\n%s", c[0], cmds)
			continue
		}
		i := strings.Index(line[2+len(c[0]):], c[1])
		if i < 0 {
			t.Errorf("%s: no description in %q", c[0], line)
			continue
		}
		if at := utf8.RuneCountInString(line[:2+len(c[0])+i]); at != 2+helpColumn()+1 {
			t.Errorf("%s: description at column %d, want %d: %q", c[0], at, 2+helpColumn()+1, line)
		}
	}
}

// /mcp lines its servers' states up under each other and counts in words
// ("1 resource", not "1 resources"); a server's protocol revision comes
// last, once known.
func TestMCPTextColumns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		servers []MCPServerInfo
		want    []string
	}{
		{[]MCPServerInfo{{Name: "everything", State: "idle", Tools: 19, Prompts: 4, Resource: 9}, {Name: "memory", State: "running", Tools: 1, Prompts: 1, Resource: 1}},
			[]string{"  everything  idle · 19 tools · 4 prompts · 9 resources", "  memory      running · 1 tool · 1 prompt · 1 resource"}},
		{[]MCPServerInfo{{Name: "tt", State: "running", Tools: 6, Prompts: 1}},
			[]string{"  tt  running · 6 tools · 1 prompt · 0 resources"}},
		{[]MCPServerInfo{{Name: "bad\x1b[31m", State: "failed", Error: "exit 3"}, {Name: "a", State: "idle"}},
			[]string{"  bad  failed · 0 tools", "  a    idle · 0 tools"}},
		{[]MCPServerInfo{{Name: "shop", State: "running", Tools: 2, Protocol: "2025-11-25 (set)"}, {Name: "fs", State: "running", Tools: 1, Protocol: "2026-07-28"}},
			[]string{"  shop  running · 2 tools · 0 prompts · 0 resources · protocol 2025-11-25 (set)", "  fs    running · 1 tool · 0 prompts · 0 resources · protocol 2026-07-28"}},
	} {
		got := strings.Split(mcpText(tc.servers, false), "\n")
		for _, w := range tc.want {
			found := false
			for _, l := range got {
				found = found || strings.HasPrefix(l, w)
			}
			if !found {
				t.Errorf("no line %q in:\n%s", w, strings.Join(got, "\n"))
			}
		}
	}
}
