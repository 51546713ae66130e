package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agent-dev/agent/themes"
)

// sgrColour matches a select-graphic-rendition sequence that sets a
// foreground or background colour (30–37, 38;…, 39, 40–47, 48;…, 90–97,
// 100–107), alone or among other attributes.
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`)

// Under NO_COLOR the Markdown body carries no colour at all (it was grey
// 252, invisible on a light terminal); bold and italics stay.
func TestMarkdownNoColour(t *testing.T) {
	md := newMarkdown(themes.Plain())
	text := "# Title\n\nA **bold** and *italic* body with `code` and a [link](https://example.com).\n\n" +
		"- one\n- two\n\n> quoted\n\n```go\nfunc main() { println(\"hi\") }\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	out := strings.Join(md.render(text, 60), "\n")
	if loc := sgrColour.FindStringIndex(out); loc != nil {
		t.Fatalf("NO_COLOR output has a colour code %q in:\n%q", out[loc[0]:loc[1]], out)
	}
	if !strings.Contains(out, "\x1b[1m") && !strings.Contains(out, ";1m") && !strings.Contains(out, "[1;") {
		t.Errorf("bold was lost under NO_COLOR:\n%q", out)
	}
	// The dark theme keeps its colours (the check above can fail).
	dark, _ := themes.Get("dark")
	if !sgrColour.MatchString(strings.Join(newMarkdown(dark).render(text, 60), "\n")) {
		t.Error("the dark theme rendered no colour: the check is blind")
	}
}
