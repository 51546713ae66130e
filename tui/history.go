package tui

import (
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/imagefile"
	"github.com/agent-dev/agent/sanitize"
)

// loadHistory renders a stored conversation: text, tool cards with their
// results, search lines, and the searches in the pane (rebuilt from the
// SearchCall/SearchResult parts).
func (m *Model) loadHistory(msgs []agent.Message, tools []ToolInfo) {
	byName := make(map[string]ToolInfo, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
	}
	describe := func(names []string) []ToolInfo {
		out := make([]ToolInfo, 0, len(names))
		for _, n := range names {
			t, ok := byName[n]
			if !ok {
				t = ToolInfo{Name: n}
			}
			out = append(out, t)
		}
		return out
	}
	c, p := m.chat, m.pane
	for _, msg := range msgs {
		if msg.Role == agent.RoleUser {
			var text, images, hooked []string
			for _, part := range msg.Parts {
				switch {
				case part.Type == agent.PartText && hookContext(part, len(text) > 0):
					hooked = append(hooked, hookLine(part.Text))
				case part.Type == agent.PartText:
					text = append(text, part.Text)
				case part.Type == agent.PartImage && part.Image != nil:
					images = append(images, sanitize.Line(imagefile.Chip(*part.Image)))
				case part.Type == agent.PartToolResult && part.ToolResult != nil:
					r := part.ToolResult
					if it, ok := c.cards[r.CallID]; ok {
						it.card.Result = r.Text
						it.card.Status = statusOK
						switch {
						case r.IsError && (r.Text == agent.StoppedResult || r.Text == agent.InterruptedResult):
							// The session's own answer to a call a cancel (or
							// a crash) stopped: shown as the live card was.
							it.card.Status = statusCancelled
						case r.IsError:
							it.card.Status = statusFailed
						}
						it.version++
						p.called("", it.card.Name, it.card.Status, 0)
					}
				case part.Type == agent.PartSearchResult && part.SearchResult != nil:
					m.historySearchResult(*part.SearchResult, describe)
				}
			}
			if t := strings.TrimSpace(strings.Join(text, "\n")); t != "" || len(images) > 0 {
				c.newTurn()
				p.newTurn()
				c.add(&chatItem{kind: itemUser, text: t})
			}
			for _, im := range images {
				c.add(&chatItem{kind: itemImage, text: im})
			}
			for _, h := range hooked {
				c.add(&chatItem{kind: itemNotice, text: h})
			}
			continue
		}
		var cur *chatItem
		for _, part := range msg.Parts {
			switch {
			case part.Type == agent.PartText:
				if cur == nil {
					cur = c.add(&chatItem{kind: itemAssistant, interrupted: msg.Interrupted})
				}
				cur.text += part.Text
				continue
			case part.Type == agent.PartToolCall && part.ToolCall != nil:
				tc := part.ToolCall
				t, listed := byName[tc.Name]
				c.toolStarted(agent.ToolEvent{ID: tc.ID, Name: tc.Name, Server: t.Server, Input: tc.Input, Discovered: t.Deferred})
				c.cards[tc.ID].card.Unlisted = !listed
				p.called("", tc.Name, statusRunning, 0)
			case part.Type == agent.PartSearchCall && part.SearchCall != nil:
				sc := part.SearchCall
				s, created := p.started(agent.SearchEvent{ID: sc.ID, Where: sc.Where, Query: sc.Text()})
				s.Running = false
				if created {
					s.line = c.add(&chatItem{kind: itemSearch, search: s})
				}
			case part.Type == agent.PartSearchResult && part.SearchResult != nil:
				m.historySearchResult(*part.SearchResult, describe)
			case part.Type == agent.PartReasoning && part.Text != "":
				// Dimmed and folded as it was live (ctrl+o expands it).
				c.add(&chatItem{kind: itemReasoning, text: part.Text, version: 1})
			case part.Type == agent.PartServerTool && part.ServerTool != nil:
				c.serverTool(*part.ServerTool, true)
				if cur != nil {
					cur.sources = append(cur.sources, part.ServerTool.Sources...)
				}
			default:
				continue
			}
			// A card or search line ends the text block before it.
			cur = nil
		}
	}
	// A call whose result never came (crash, cancel) stays "running" in the
	// store; show it as interrupted rather than spinning forever.
	for _, it := range c.cards {
		if it.card.Status == statusRunning && !it.card.Provider {
			it.card.Status = statusCancelled
			it.card.Result = agent.InterruptedResult
			it.version++
		}
	}
}

func (m *Model) historySearchResult(r agent.SearchResult, describe func([]string) []ToolInfo) {
	s, created := m.pane.finished(agent.SearchEvent{ID: r.CallID, Where: r.Where, Tools: r.Tools, Error: r.Error}, describe(r.Tools))
	if created {
		s.line = m.chat.add(&chatItem{kind: itemSearch, search: s})
	}
}

// hookContext reports whether a user message's text part is a hook's
// context, not what the user typed: marked so (Part.Hook), or, in a
// session stored before the mark, a text after the prompt's that starts
// with the label the agent gives a hook's context ("UserPromptSubmit hook
// context:"). A resumed session showed it under "› you".
func hookContext(p agent.Part, afterPrompt bool) bool {
	if p.Hook {
		return true
	}
	first, _, _ := strings.Cut(p.Text, "\n")
	event, ok := strings.CutSuffix(first, " hook context:")
	return afterPrompt && ok && event != "" && !strings.ContainsAny(event, " \t")
}

// hookLine is a hook's context as a one-line notice that names the hook:
// its first line, with how many lines follow.
func hookLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	out := "↳ added by a hook: " + lines[0]
	if event, ok := strings.CutSuffix(lines[0], " hook context:"); ok {
		out = "↳ added by the " + event + " hook:"
		lines = lines[1:]
		if len(lines) > 0 {
			out += " " + lines[0]
		}
	}
	if n := len(lines) - 1; n > 0 {
		out += fmt.Sprintf(" (+%d lines)", n)
	}
	return out
}
