package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
)

// costText is /cost: what the session spent, by tokens and dollars.
func (m *Model) costText() string {
	s := &m.status
	t := s.totals()
	c, ok := s.cost()
	var b strings.Builder
	fmt.Fprintf(&b, "Session cost: %s", fmtCost(c, ok))
	if !ok {
		b.WriteString(" (a model of this session has no price in the table: local servers cost nothing, unknown ids are not guessed)")
	}
	fmt.Fprintf(&b, "\n  requests      %d", s.info.Requests+s.requests)
	fmt.Fprintf(&b, "\n  input         %s (cache read %s, cache write %s)", fmtTokens(inputOf(t)), fmtTokens(t.CacheReadTokens), fmtTokens(t.CacheWriteTokens))
	fmt.Fprintf(&b, "\n  output        %s", fmtTokens(t.OutputTokens))
	if in := inputOf(t); in > 0 {
		fmt.Fprintf(&b, "\n  cache share   %d%% of input read from the cache", t.CacheReadTokens*100/in)
	}
	if n := s.info.Requests + s.requests; s.info.TokensSaved > 0 && n > 0 {
		fmt.Fprintf(&b, "\n  deferral      ~%s tokens kept out of %d requests (~%s each)", fmtTokens(s.info.TokensSaved*n), n, fmtTokens(s.info.TokensSaved))
	}
	if s.info.Priced {
		p := s.info.Price
		fmt.Fprintf(&b, "\n  price of %s: $%s in · $%s out · $%s cache read · $%s cache write per million tokens",
			orText(s.info.Model, "this model"), fmtPrice(p.Input), fmtPrice(p.Output), fmtPrice(p.CacheRead), fmtPrice(p.CacheWrite))
	}
	return b.String()
}

// fmtPrice writes a price per million tokens as a person would: cache
// prices are computed shares of the input's (0.1 × 3 is
// 0.30000000000000004 in floating point), so it is rounded to a
// millionth of a dollar first.
func fmtPrice(v float64) string { return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64) }

// contextText is /context: how full the model's window is.
func (m *Model) contextText() string {
	s := &m.status
	w := s.info.ContextWindow
	in := inputOf(s.last) + s.last.OutputTokens
	if w <= 0 {
		return fmt.Sprintf("Context: the last request used %s tokens; the window of %s is not in the capability table", fmtTokens(in), orText(s.info.Model, "this model")) +
			instructionsText(s.info.Instructions)
	}
	pct, _ := s.contextFill()
	bar := 30
	fill := min(pct*bar/100, bar)
	return fmt.Sprintf("Context: %d%% of %s tokens (%s used by the last request)\n  [%s%s]\n  active tools %d · deferred %d (deferred tools stay out of the context until a search finds them)",
		pct, fmtTokens(w), fmtTokens(in), strings.Repeat("█", fill), strings.Repeat("░", bar-fill), s.info.Active, s.info.Deferred) +
		instructionsText(s.info.Instructions)
}

// instructionsText lists the instruction files of the system prompt.
func instructionsText(files []InstructionInfo) string {
	if len(files) == 0 {
		return "\n  instruction files: none (AGENTS.md or CLAUDE.md, from the repository root down, and in the user's agent directory)"
	}
	total := 0
	for _, f := range files {
		total += f.Bytes
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n  instruction files in the system prompt: %s, %s", plural(len(files), "file"), fmtBytes(total))
	for _, f := range files {
		fmt.Fprintf(&b, "\n    %s  %s", sanitize.Line(f.Path), fmtBytes(f.Bytes))
		if f.Cut {
			fmt.Fprintf(&b, " (cut from %s)", fmtBytes(f.Size))
		}
	}
	return b.String()
}

// fmtBytes writes a size as bytes or KB.
func fmtBytes(n int) string {
	if n < 1024 {
		return plural(n, "byte")
	}
	return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
}

// lastAnswer is the text of the newest assistant message.
func (m *Model) lastAnswer() string {
	items := m.chat.items
	end := len(items) - 1
	for end >= 0 && items[end].kind != itemAssistant {
		end--
	}
	if end < 0 {
		return ""
	}
	// An answer split by cards is several items: take the run of them.
	start := end
	for start > 0 && items[start-1].kind == itemAssistant {
		start--
	}
	var parts []string
	for _, it := range items[start : end+1] {
		parts = append(parts, strings.TrimSpace(it.text))
	}
	return strings.Join(parts, "\n\n")
}

// copyCmd is /copy [N]: the last answer, or its Nth code block, to the
// clipboard through OSC 52 (works over ssh and in tmux with set-clipboard).
func (m *Model) copyCmd(arg string) tea.Cmd {
	text := m.lastAnswer()
	if text == "" {
		m.chat.notice(itemWarning, "nothing to copy yet")
		return nil
	}
	what := "the last answer"
	if arg != "" {
		n, err := strconv.Atoi(arg)
		var code []string
		for _, b := range splitBlocks(text) {
			if b.kind == blockCode {
				code = append(code, b.text)
			}
		}
		if err != nil || n < 1 || n > len(code) {
			m.chat.notice(itemWarning, fmt.Sprintf("/copy N copies code block N of the last answer; it has %s", plural(len(code), "code block")))
			return nil
		}
		text, what = code[n-1], fmt.Sprintf("code block %d", n)
	}
	m.chat.notice(itemNotice, fmt.Sprintf("copied %s to the clipboard (%s)", what, plural(strings.Count(text, "\n")+1, "line")))
	return tea.SetClipboard(text)
}

// transcript is the conversation as Markdown (/export).
func (m *Model) transcript() string {
	var b strings.Builder
	i := m.status.info
	fmt.Fprintf(&b, "# Session %s\n\n%s/%s\n", orText(i.SessionID, "(unsaved)"), i.Provider, i.Model)
	for _, it := range m.chat.items {
		switch it.kind {
		case itemUser:
			fmt.Fprintf(&b, "\n## You\n\n%s\n", it.text)
		case itemImage:
			// The image is named, never its bytes.
			fmt.Fprintf(&b, "\n[image: %s]\n", it.text)
		case itemAssistant:
			fmt.Fprintf(&b, "\n## Assistant\n\n%s\n", strings.TrimSpace(it.text))
			for k, s := range it.sources {
				fmt.Fprintf(&b, "\n%d. [%s](%s)", k+1, orText(s.Title, s.URL), s.URL)
			}
		case itemReasoning:
			fmt.Fprintf(&b, "\n<details><summary>Thinking</summary>\n\n%s\n\n</details>\n", strings.TrimSpace(it.text))
		case itemTool:
			c := it.card
			if c.Unlisted && c.Server == "" {
				fmt.Fprintf(&b, "\n> **%s** %s\n", c.Name, statusWord(c.Status))
			} else {
				fmt.Fprintf(&b, "\n> **%s** (%s) %s\n", c.Name, orDash(c.Server), statusWord(c.Status))
			}
			if a := summarizeArgs(c.Input); a != "" {
				fmt.Fprintf(&b, "> `%s`\n", strings.ReplaceAll(a, "`", "'"))
			}
			if r := preview(c.Result); r != "" {
				fmt.Fprintf(&b, "> → %s\n", r)
			}
		case itemSearch:
			s := it.search
			names := make([]string, 0, len(s.Found))
			for _, t := range s.Found {
				names = append(names, t.Name)
			}
			fmt.Fprintf(&b, "\n> %s %s → %s\n", s.label(), quote(s.Query), orText(strings.Join(names, ", "), "nothing found"))
		}
		// Warnings, errors and notices are the UI's, not the
		// conversation's: /export leaves them out.
	}
	return b.String()
}

func statusWord(s cardStatus) string {
	switch s {
	case statusOK:
		return "✓"
	case statusFailed:
		return "✗ failed"
	case statusDenied:
		return "denied"
	case statusCancelled:
		return "cancelled"
	case statusWaiting:
		return "awaiting approval"
	}
	return "running"
}

var _ = agent.RoleUser
