package tui

import (
	"fmt"
	"strconv"
	"strings"
)

// /subagents lists this conversation's subagent runs, and /subagents N
// prints run N's card whole below the conversation. Inline, a finished
// card is in the terminal's scrollback as it was drawn (folded, usually)
// and can no longer be unfolded there: this is how its task, steps and
// answer are seen again.

// subagentCards are the run_agent cards in the order they started.
func (c *chat) subagentCards() []*chatItem {
	var out []*chatItem
	for _, it := range c.items {
		if it.card != nil && it.card.Sub != nil && !it.reprint {
			out = append(out, it)
		}
	}
	return out
}

// subagentsCommand runs /subagents [N].
func (m *Model) subagentsCommand(arg string) {
	cards := m.chat.subagentCards()
	if len(cards) == 0 {
		m.chat.notice(itemNotice, "no subagent has run in this conversation")
		return
	}
	if arg == "" {
		var b strings.Builder
		b.WriteString("subagent runs (/subagents N prints one whole):")
		for i, it := range cards {
			v := it.card.Sub
			state := "running"
			switch {
			case v.Failed != "":
				state = "failed"
			case v.Done:
				state = fmt.Sprintf("done, %d requests", v.Requests)
			}
			fmt.Fprintf(&b, "\n  %d  %s  %s", i+1, v.Agent, state)
			if v.SessionID != "" {
				b.WriteString("  session " + v.SessionID)
			}
		}
		m.chat.notice(itemNotice, b.String())
		return
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(cards) {
		m.chat.notice(itemWarning, fmt.Sprintf("usage: /subagents N, N from 1 to %d (/subagents lists them)", len(cards)))
		return
	}
	src := cards[n-1].card
	card := *src
	sub := *src.Sub
	sub.Steps = append([]string(nil), src.Sub.Steps...)
	card.Sub = &sub
	// A copy, shown whole and kept as it is now: the card it comes from
	// goes on changing while its subagent runs.
	m.chat.add(&chatItem{kind: itemTool, card: &card, open: 1, reprint: true})
}
