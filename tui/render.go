package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// wrapLines word-wraps plain text to width, measuring cells, not bytes. A
// wrapped line continues under its own indentation plus two cells, so
// indented lists stay readable.
func wrapLines(text string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))] + "  "
		if len(indent) >= width/2 {
			indent = ""
		}
		first := true
		rest := line
		for rest != "" {
			w := width
			prefix := ""
			if !first {
				w, prefix = width-len(indent), indent
			}
			head := strings.SplitN(ansi.Wrap(rest, w, ""), "\n", 2)[0]
			head = keepFlagWhole(head, rest)
			out = append(out, prefix+head)
			first = false
			// The rest is what follows the head in the text itself: a
			// break at a space drops the space, a break inside a word (a
			// long URL, at a hyphen) drops nothing. Joining the wrapped
			// remainder's lines with spaces put a space into such a URL.
			h := strings.TrimRight(head, " ")
			next, ok := strings.CutPrefix(rest, h)
			if !ok || next == rest && strings.TrimLeft(rest, " ") == rest {
				// Wrap changed more than the breaks (styled text), or took
				// nothing: what is left goes on as it was wrapped.
				_, after, _ := strings.Cut(ansi.Wrap(rest, w, ""), "\n")
				next = strings.ReplaceAll(after, "\n", " ")
				if next == rest {
					break
				}
			}
			rest = strings.TrimLeft(next, " ")
		}
	}
	return out
}

// keepFlagWhole moves a break that ansi.Wrap made at a hyphen of a word
// starting with one (a flag: --mcp, --mcp-config) to the space before the
// word: "run agent -" then "-mcp NAME" told the user a flag that is not
// one. A flag longer than the line keeps the break.
func keepFlagWhole(head, rest string) string {
	if !strings.HasSuffix(head, "-") || !strings.HasPrefix(rest, head) || len(head) >= len(rest) || rest[len(head)] == ' ' {
		return head
	}
	sp := strings.LastIndexByte(head, ' ')
	if sp <= 0 || head[sp+1] != '-' || strings.TrimSpace(head[:sp]) == "" {
		return head
	}
	return head[:sp]
}

type cardStatus int

const (
	statusRunning cardStatus = iota
	statusOK
	statusFailed
	// statusWaiting: the call waits for the user's approval.
	statusWaiting
	// statusDenied: the user denied the call.
	statusDenied
	// statusCancelled: the turn was cancelled before the call ran, or
	// while it ran (it may have done its work).
	statusCancelled
)

// toolCard is a tool call shown compactly in the chat.
type toolCard struct {
	ID, Name, Server string
	Input            json.RawMessage
	// Provider marks provider-hosted (server-side) tools.
	Provider   bool
	Discovered bool
	// Unlisted: a replayed call of a tool the session does not list (yet:
	// its server is still starting, or not configured here). Who offers
	// it is not known, so the card does not say "built-in".
	Unlisted bool
	Status   cardStatus
	Duration time.Duration
	Result   string
	Sources  []agent.Source
	// Progress is the running tool's latest report (MCP progress).
	Progress *agent.ToolProgress
	// Sub is the child session a run_agent call runs (subagent.go).
	Sub *subagentView
}

// progressText is a running card's status with its progress: "… 3/5 60%
// indexing".
func (c *toolCard) progressText() string {
	p := c.Progress
	if p == nil {
		return "… running"
	}
	if p.Progress == 0 && p.Total == nil && p.Message != "" {
		// A status with no count: an MCP task's status message
		// ("input_required: Found multiple…"), where a 0 says nothing.
		return "… " + ansi.Truncate(p.Message, 30, "…")
	}
	s := "… " + strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total != nil && *p.Total > 0 {
		s += "/" + strconv.FormatFloat(*p.Total, 'f', -1, 64) + fmt.Sprintf(" %d%%", int(100*p.Progress / *p.Total))
	}
	if p.Message != "" {
		s += " " + ansi.Truncate(p.Message, 30, "…")
	}
	return s
}

// render draws the card, whole (expanded) or folded; a selected card
// (alt+↑/↓) has a thick border, which shows without colour too.
func (c *toolCard) render(st *themes.Styles, width int, expanded, selected bool) []string {
	inner := width - 4 // border and padding
	if inner < 10 {
		inner = 10
	}
	card := st.Card
	if selected {
		card = card.BorderStyle(lipgloss.ThickBorder())
	}
	if c.Sub != nil {
		box := card.Width(inner + 4).Render(strings.Join(c.renderSubagent(st, inner, expanded), "\n"))
		return strings.Split(box, "\n")
	}
	mark, by := "⚙", c.Server
	if c.Provider {
		mark, by = "☁", "run by provider"
	}
	title := st.CardTitle.Render(mark+" "+c.Name) + " " + st.CardServer.Render("· "+orDash(by))
	if c.Unlisted && by == "" {
		title = st.CardTitle.Render(mark + " " + c.Name)
	}
	if c.Provider {
		title = st.CardTitle.Render(mark+" "+c.Name) + " " + st.ProviderBadge.Render("· "+by)
	}
	if c.Discovered {
		title += st.CardServer.Render(" · discovered")
	}
	status := st.Running.Render(c.progressText())
	switch c.Status {
	case statusWaiting:
		status = st.Running.Render("? awaiting approval")
	case statusDenied:
		status = st.Fail.Render("⊘ denied")
	case statusCancelled:
		status = st.Fail.Render("⊘ cancelled")
	case statusOK:
		status = st.OK.Render("✓ " + fmtDuration(c.Duration))
	case statusFailed:
		status = st.Fail.Render("✗ failed " + fmtDuration(c.Duration))
	}
	status = strings.TrimSpace(status)
	var body []string
	gap := inner - ansi.StringWidth(title) - ansi.StringWidth(status)
	if gap < 1 {
		title = ansi.Truncate(title, inner-ansi.StringWidth(status)-1, "…")
		gap = inner - ansi.StringWidth(title) - ansi.StringWidth(status)
		if gap < 1 {
			gap = 1
		}
	}
	body = append(body, title+strings.Repeat(" ", gap)+status)
	if expanded {
		if args := prettyJSON(c.Input); args != "" {
			body = append(body, st.CardArgs.Render("arguments:"))
			body = append(body, limitLines(wrapLines(args, inner), 20)...)
		}
		if c.Result != "" {
			body = append(body, st.CardArgs.Render("result:"))
			for _, l := range limitLines(wrapLines(c.Result, inner), 30) {
				body = append(body, st.CardPreview.Render(l))
			}
		}
	} else {
		if a := summarizeArgs(c.Input); a != "" {
			body = append(body, st.CardArgs.Render(ansi.Truncate(a, inner, "…")))
		}
		if p := preview(c.Result); p != "" {
			body = append(body, st.CardPreview.Render(ansi.Truncate("→ "+p, inner, "…")))
		}
	}
	for _, s := range c.Sources {
		body = append(body, st.Muted.Render(ansi.Truncate("↗ "+sourceLabel(s), inner, "…")))
	}
	box := card.Width(inner + 4).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}

func sourceLabel(s agent.Source) string {
	if s.Title != "" {
		return s.Title + " — " + s.URL
	}
	return s.URL
}

func orDash(s string) string {
	if s == "" {
		return "built-in"
	}
	return s
}

func fmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func limitLines(ls []string, n int) []string {
	if len(ls) <= n {
		return ls
	}
	return append(ls[:n:n], fmt.Sprintf("… %d more lines", len(ls)-n))
}

// firstLine is the first line of s with text, sanitised: what it shortens
// is a server's description or a model's prompt, never the agent's own.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(sanitize.Line(l)); l != "" {
			return l
		}
	}
	return ""
}

// preview is a result on one line: JSON compacted, else its first line.
func preview(s string) string {
	var b bytes.Buffer
	if json.Valid([]byte(s)) && json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	return firstLine(s)
}

func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// summarizeArgs renders a call's arguments as k=v pairs on one line.
func summarizeArgs(raw json.RawMessage) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || len(obj) == 0 {
		return strings.TrimSpace(string(raw))
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := strings.TrimSpace(string(obj[k]))
		var s string
		if json.Unmarshal(obj[k], &s) == nil {
			v = fmt.Sprintf("%q", ansi.Truncate(s, 40, "…"))
		} else if len(v) > 40 {
			v = ansi.Truncate(v, 40, "…")
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

// fmtTokens shortens a token count: 950, 12.3k, 1.2M.
func fmtTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// fit pads or cuts every line of s to exactly width cells and the block to
// exactly height lines, so panes line up when joined.
func fit(lines []string, width, height int) []string {
	out := make([]string, height)
	for i := range out {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		w := ansi.StringWidth(l)
		if w > width {
			l = ansi.Truncate(l, width, "")
			w = ansi.StringWidth(l)
		}
		out[i] = l + strings.Repeat(" ", width-w)
	}
	return out
}
