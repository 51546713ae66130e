package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/themes"
)

// BenchmarkMarkdownAnswer renders a long answer (paragraphs, a list, code
// and a table) as one streaming re-render does.
func BenchmarkMarkdownAnswer(b *testing.B) {
	st, _ := themes.Get("dark")
	md := newMarkdown(st)
	var sb strings.Builder
	for i := range 20 {
		sb.WriteString("## Part " + itoa(i+1) + "\n\nSome prose that runs long enough to wrap at eighty columns, with `code` and **bold** words in it.\n\n1. first step of the list\n2. second step\n\n```go\nfunc f() int { return 42 }\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
	}
	text := sb.String()
	md.render(text, 100)
	b.ResetTimer()
	for range b.N {
		md.render(text, 100)
	}
}

// BenchmarkMarkdownStreamStep is one throttled re-render while an answer
// streams: everything but the last block is unchanged.
func BenchmarkMarkdownStreamStep(b *testing.B) {
	st, _ := themes.Get("dark")
	md := newMarkdown(st)
	var sb strings.Builder
	for i := range 20 {
		sb.WriteString("## Part " + itoa(i+1) + "\n\nSome prose that runs long enough to wrap at eighty columns, with `code` and **bold** words in it.\n\n1. first step of the list\n2. second step\n\n```go\nfunc f() int { return 42 }\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
	}
	text := sb.String()
	md.renderStream(text, 100, true)
	b.ResetTimer()
	for i := range b.N {
		md.renderStream(text+"And a last paragraph growing "+strings.Repeat("word ", i%50), 100, true)
	}
}

// BenchmarkInlineResume10k is the first print of a resumed 10,000-message
// session inline: the newest items are rendered for the scrollback.
func BenchmarkInlineResume10k(b *testing.B) {
	h := bigHistory(10_000)
	for range b.N {
		m, err := New(newFakeBackend(), Options{Width: 120, Height: 40, Theme: "dark", History: h})
		if err != nil {
			b.Fatal(err)
		}
		m.ready = true
		m.print = func(string) tea.Cmd { return nil }
		m.Update(readyMsg{})
	}
}
