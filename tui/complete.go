package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
)

// Completion: Tab completes a slash command while its name is typed and an
// @path anywhere in the prompt (the file's text is attached when the prompt
// is sent). Candidates show on the line above the input as soon as "/" or
// "@" starts the word.

// commandNames are the completable commands, in /help order.
func commandNames() []string {
	var out []string
	for _, c := range commandHelp {
		out = append(out, strings.Fields(c[0])[0])
	}
	return append(out, "/exit")
}

// completion is the candidates for the word being typed.
type completion struct {
	word  string // the word as typed ("/mo", "@src/ma")
	items []string
	// next is the candidate Tab puts in when the word is already their
	// common prefix (Tab again cycles).
	next int
}

// fileListMsg carries the entries of a directory for @path completion.
type fileListMsg struct {
	word  string
	items []string
}

// currentWord is the last word of a one-line prompt: what completion works on.
func (in *input) currentWord() string {
	v := in.ta.Value()
	if strings.Contains(v, "\n") && !strings.HasPrefix(lastField(v), "@") {
		return ""
	}
	if strings.HasSuffix(v, " ") || v == "" {
		return ""
	}
	return lastField(v)
}

func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// replaceWord puts s in place of the last word.
func (in *input) replaceWord(s string) {
	v := in.ta.Value()
	w := lastField(v)
	in.ta.SetValue(v[:len(v)-len(w)] + s)
	in.ta.CursorEnd()
}

// suggest updates the candidates after a keystroke: commands for "/x" as
// the whole prompt (no IO); @paths are listed only on Tab.
func (m *Model) suggest() {
	w := m.input.currentWord()
	v := m.input.Value()
	switch {
	case strings.HasPrefix(w, "/") && w == strings.TrimSpace(v):
		if m.comp.word == w {
			return
		}
		var items []string
		for _, n := range append(append(commandNames(), m.mcpCommandNames()...), m.customNames()...) {
			if strings.HasPrefix(n, w) && n != "/exit" {
				items = append(items, n)
			}
		}
		m.comp = completion{word: w, items: items}
	case strings.HasPrefix(w, "@") && m.comp.word == w:
	default:
		m.comp = completion{}
	}
}

// complete is Tab: extend the word to the candidates' common prefix, or
// cycle through them when it is that already.
func (m *Model) complete() tea.Cmd {
	w := m.input.currentWord()
	if m.comp.word != w {
		if cmd, ok := m.mcpComplete(w); ok {
			return cmd
		}
	}
	if strings.HasPrefix(w, "@") && m.comp.word != w {
		return listFilesCmd(w)
	}
	if m.comp.word != w || len(m.comp.items) == 0 {
		return nil
	}
	items := m.comp.items
	if len(items) == 1 {
		s := items[0]
		if strings.HasPrefix(s, "/") || !strings.HasSuffix(s, "/") {
			s += " "
		}
		m.input.replaceWord(s)
		m.comp = completion{}
		if strings.HasSuffix(s, "/") {
			return listFilesCmd(s)
		}
		return nil
	}
	if p := commonPrefix(items); len(p) > len(w) {
		m.input.replaceWord(p)
		m.comp.word = p
		return nil
	}
	pick := items[m.comp.next%len(items)]
	m.comp.next++
	m.input.replaceWord(pick)
	m.comp.word = pick
	return nil
}

func commonPrefix(items []string) string {
	p := items[0]
	for _, s := range items[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// listFilesCmd lists the directory of an @path being typed (IO, so a
// tea.Cmd). Hidden entries show only when the name typed starts with a dot.
func listFilesCmd(word string) tea.Cmd {
	return func() tea.Msg {
		p := strings.TrimPrefix(word, "@")
		dir, base := filepath.Split(p)
		entries, err := os.ReadDir(orText(dir, "."))
		if err != nil {
			return fileListMsg{word: word}
		}
		var items []string
		for _, e := range entries {
			n := e.Name()
			if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
				continue
			}
			if e.IsDir() {
				n += "/"
			}
			if strings.ContainsAny(dir+n, " \t") {
				// Quoted, so the path stays one word when sent.
				items = append(items, "@\""+dir+n+"\"")
				continue
			}
			items = append(items, "@"+dir+n)
		}
		sort.Strings(items)
		return fileListMsg{word: word, items: items}
	}
}

// applyFileList takes a directory listing for the word still being typed.
func (m *Model) applyFileList(msg fileListMsg) tea.Cmd {
	if m.input.currentWord() != msg.word {
		return nil
	}
	m.comp = completion{word: msg.word, items: msg.items}
	if len(msg.items) == 0 {
		return nil
	}
	return m.complete()
}

// completionLine shows the candidates above the input.
func (m *Model) completionLine() string {
	if len(m.comp.items) == 0 {
		return m.argumentsLine()
	}
	st := m.st
	if len(m.comp.items) == 1 && strings.HasPrefix(m.comp.items[0], "/") {
		if line := m.usageLine(m.comp.items[0], " · tab completes"); line != "" {
			return line
		}
	}
	parts := make([]string, 0, len(m.comp.items))
	for _, it := range m.comp.items {
		parts = append(parts, filepath.Base(strings.TrimSuffix(it, "/"))+map[bool]string{true: "/"}[strings.HasSuffix(it, "/")])
		if strings.HasPrefix(it, "/") {
			parts[len(parts)-1] = it
		}
		// Candidates come from servers too (prompt names, resource URIs,
		// argument completions) and from file names.
		parts[len(parts)-1] = sanitize.Line(parts[len(parts)-1])
	}
	shown, more := fitWords(parts, m.width-len("tab: "))
	line := st.Muted.Render("tab: ") + st.Text.Render(strings.Join(shown, "  "))
	if more > 0 {
		line += st.Muted.Render(fmt.Sprintf("  … +%d more", more))
	}
	return line
}

// usageLine is the line above the input for the command name: its use,
// description and source, then tail; "" when name is no command.
func (m *Model) usageLine(name, tail string) string {
	for _, c := range commandHelp {
		if strings.Fields(c[0])[0] == name {
			return m.commandHint(c[0], c[1], tail)
		}
	}
	if c, ok := m.customCommand(name); ok {
		use := strings.TrimSpace("/" + c.Name + " " + c.ArgumentHint)
		return m.commandHint(sanitize.Line(use), sanitize.Line(c.Description), " ("+sanitize.Line(c.Source)+")"+tail)
	}
	// An MCP server's prompt says its arguments as a custom command does:
	// "/everything:args-prompt " showed nothing, and its arguments were
	// learnt from the error of running it without them.
	if p, ok := m.mcpPrompt(name); ok {
		use := strings.TrimSpace(name + " " + strings.Join(p.Args, " "))
		return m.commandHint(sanitize.Line(use), sanitize.Line(p.Description), " (MCP server "+sanitize.Line(p.Server)+")"+tail)
	}
	return ""
}

// argumentsLine keeps a command's use above the input while its arguments
// are typed: completing "/review" put "/review " in the input and took the
// line away with its argument hint ("[pr] [priority]"), which is what the
// arguments are typed from. Only for commands that take arguments.
func (m *Model) argumentsLine() string {
	v := m.input.Value()
	name, _, ok := strings.Cut(v, " ")
	if !ok || !strings.HasPrefix(name, "/") || strings.Contains(v, "\n") {
		return ""
	}
	for _, c := range commandHelp {
		if f := strings.Fields(c[0]); f[0] == name && len(f) == 1 {
			return ""
		}
	}
	if c, ok := m.customCommand(name); ok && c.ArgumentHint == "" {
		return ""
	}
	if p, ok := m.mcpPrompt(name); ok && len(p.Args) == 0 {
		return ""
	}
	return m.usageLine(name, "")
}

// commandHint is the line above the input for the one command typed: its
// use, its description, and tail: where it comes from (a custom command's
// source) and, while completing, the tab key. The description is cut to the room left, with "…", so
// the source and the key stay in view; the line was cut at the width
// without a mark, and a custom command whose description is its long
// first line lost both ("/wr  Write it CALL files__write_file {\"path\":…"
// at 80 columns, "/help  show keys and commands · tab comp" at 40).
func (m *Model) commandHint(use, desc, tail string) string {
	room := m.width - ansi.StringWidth(use) - 2 - ansi.StringWidth(tail)
	if ansi.StringWidth(desc) > room {
		desc = ansi.Truncate(desc, max(room, 1), "…")
	}
	return ansi.Truncate(m.st.Accent.Render(use)+m.st.Muted.Render("  "+desc+tail), max(m.width, 1), "…")
}

// fitWords keeps the leading words that fit width when joined by two
// spaces, leaving room for the "  … +N more" said after them, so a
// candidate is never cut in the middle ("/m" for /mcp at 120 columns).
func fitWords(words []string, width int) (shown []string, more int) {
	all := 0
	for i, w := range words {
		if i > 0 {
			all += 2
		}
		all += ansi.StringWidth(w)
	}
	if all <= width {
		return words, 0
	}
	used := 0
	for i, w := range words {
		add := ansi.StringWidth(w)
		if i > 0 {
			add += 2
		}
		if used+add+ansi.StringWidth(fmt.Sprintf("  … +%d more", len(words)-i-1)) > width {
			return words[:i], len(words) - i
		}
		used += add
	}
	return words, 0
}
