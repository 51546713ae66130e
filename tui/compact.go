package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
)

// Compacter is implemented by a Backend that compacts the conversation
// (/compact [FOCUS]): the model summarises the turns so far and the summary
// is sent in their place from then on.
type Compacter interface {
	Compact(ctx context.Context, focus string) (*agent.Compaction, error)
}

// AgentSwitcher is implemented by a Backend that switches agent profiles
// (/agent NAME): the conversation is kept, as with a model switch.
type AgentSwitcher interface {
	Agents() ([]AgentInfo, error)
	// SetAgent switches to the profile and returns a note on what changed.
	SetAgent(name string) (string, error)
}

// AgentInfo is one profile for /agent.
type AgentInfo struct {
	Name, Description, Source string
	Current                   bool
}

type (
	compactedMsg struct {
		C   *agent.Compaction
		Err error
	}
	agentsMsg struct {
		Items []AgentInfo
		Err   error
	}
	agentSetMsg struct {
		Name, Note string
		Err        error
	}
)

// agentCommand runs /compact and /agent; ok is false for other commands.
func (m *Model) agentCommand(name, arg string) (tea.Cmd, bool) {
	if name != "/compact" && name != "/agent" {
		return nil, false
	}
	ctx := context.Background()
	switch name {
	case "/compact":
		c, ok := m.b.(Compacter)
		if !ok {
			m.chat.notice(itemWarning, "this session cannot be compacted")
			return nil, true
		}
		m.chat.notice(itemNotice, "compacting: the model is summarising the conversation…")
		return func() tea.Msg {
			cp, err := c.Compact(ctx, arg)
			return compactedMsg{C: cp, Err: err}
		}, true
	default:
		a, ok := m.b.(AgentSwitcher)
		if !ok {
			m.chat.notice(itemWarning, "agent profiles are not available here")
			return nil, true
		}
		if arg == "" {
			return func() tea.Msg {
				items, err := a.Agents()
				return agentsMsg{Items: items, Err: err}
			}, true
		}
		return func() tea.Msg {
			note, err := a.SetAgent(arg)
			return agentSetMsg{Name: arg, Note: note, Err: err}
		}, true
	}
}

// agentResult applies what agentCommand's commands returned.
func (m *Model) agentResult(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case compactedMsg:
		if msg.Err != nil {
			m.failed("/compact", "compact: "+sanitize.Line(msg.Err.Error()), msg.Err)
			return nil, true
		}
		m.status.usage(msg.C.Usage)
		m.chat.notice(itemNotice, compactionNotice(*msg.C))
		return m.refreshInfo(), true
	case agentsMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "agents: "+msg.Err.Error())
			return nil, true
		}
		m.chat.notice(itemNotice, agentsText(msg.Items))
		return nil, true
	case agentSetMsg:
		if msg.Err != nil {
			m.failed("/agent", "switch agent: "+msg.Err.Error(), msg.Err)
			return nil, true
		}
		text := "agent set to " + msg.Name + " (the conversation is kept)"
		if msg.Note != "" {
			text += "\n" + msg.Note
		}
		m.chat.notice(itemNotice, text)
		return m.refreshInfo(), true
	}
	return nil, false
}

// compactionNotice tells what a compaction did, with the context before
// and after and what the summary cost.
func compactionNotice(c agent.Compaction) string {
	how := "compacted"
	if c.Auto {
		how = "compacted automatically (the next request would have filled the context window past auto_compact)"
	}
	kept := ""
	if n := len(c.Found); n > 0 {
		kept = fmt.Sprintf(" · %d found tools stay loaded", n)
	}
	return fmt.Sprintf("%s: %d messages summarised · context ~%d → ~%d tokens%s · summary %d in / %d out\n%s",
		how, c.Boundary, c.Before, c.After, kept, c.Usage.InputTokens+c.Usage.CacheReadTokens+c.Usage.CacheWriteTokens, c.Usage.OutputTokens,
		sanitize.Text(strings.TrimSpace(c.Summary)))
}

func agentsText(items []AgentInfo) string {
	if len(items) == 0 {
		return "no agent profiles: add .agent/agents/NAME.md (YAML front matter, then the system prompt)"
	}
	var b strings.Builder
	b.WriteString("agent profiles (/agent NAME switches):")
	for _, a := range items {
		mark := " "
		if a.Current {
			mark = "*"
		}
		fmt.Fprintf(&b, "\n %s %s (%s) %s", mark, sanitize.Line(a.Name), a.Source, sanitize.Line(a.Description))
	}
	return b.String()
}
