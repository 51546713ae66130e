package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A width change rewraps what the terminal holds: lines printed at the old
// width, and the redrawn area, which the terminal has already spread over
// more rows than the renderer erases, leaving a cut copy of it in the
// scrollback. As Codex and gemini-cli do, the screen and the scrollback are
// then cleared and the transcript printed again at the new width; the
// live area (a streaming answer, the input) is redrawn under it as it is.

// clearAll erases the screen, then the scrollback (in this order: some
// terminals, tmux among them, scroll a cleared screen into the scrollback),
// and homes the cursor.
const clearAll = ansi.EraseEntireScreen + ansi.EraseEntireDisplay + ansi.CursorHomePosition

// reflowDelay lets a drag of the window's edge settle: one reprint for the
// last width, not one per step.
const reflowDelay = 120 * time.Millisecond

// reflowMsg ends the wait after the width change numbered gen.
type reflowMsg struct{ gen int }

// widthChanged starts (or restarts) the wait before the reprint.
func (m *Model) widthChanged() tea.Cmd {
	m.reflowGen++
	m.reflowWait = true
	gen := m.reflowGen
	return tea.Tick(reflowDelay, func(time.Time) tea.Msg { return reflowMsg{gen} })
}

// remember records an item printed to the scrollback, for a reprint. Only
// the newest maxReplay are kept; the rest become one line, as on resume.
func (m *Model) remember(it *chatItem) {
	m.past = append(m.past, it)
	if len(m.past) > maxReplay {
		m.past = append([]*chatItem(nil), m.past[len(m.past)-maxReplay:]...)
		m.pastSkipped++
	}
}

// forget drops the transcript kept for a reprint (/clear cleared it).
func (m *Model) forget() { m.past, m.pastSkipped = nil, 0 }

// printedLines is what the scrollback holds, rendered at the current width:
// the items printed, and the head of a streaming answer already printed.
func (m *Model) printedLines() []string {
	var out []string
	if m.pastSkipped > 0 {
		out = append(out, skippedLine(m.st.Notice.Render, m.pastSkipped)...)
	}
	c := m.chat
	for _, it := range m.past {
		out = append(out, c.wholeLines(it)...)
	}
	if m.committed < len(c.items) {
		if it := c.items[m.committed]; it.kind == itemAssistant && it.split > 0 {
			out = append(out, c.renderAssistant(it, it.text[:min(it.split, len(it.text))], true)...)
		}
	}
	return out
}

// wholeLines renders an item with the head of it that was printed while it
// streamed.
func (c *chat) wholeLines(it *chatItem) []string {
	ls := c.render(it)
	if it.kind != itemAssistant || it.split <= 0 {
		return ls
	}
	head := c.renderAssistant(it, it.text[:min(it.split, len(it.text))], true)
	return append(head, ls...)
}

func skippedLine(render func(...string) string, n int) []string {
	return []string{render(fmt.Sprintf("  … %d earlier items not shown (/export writes the whole transcript)", n)), ""}
}

// reflow clears the terminal and prints the transcript at the new width.
// What waited in the queue was rendered at the old width and is part of
// the transcript: it is dropped.
func (m *Model) reflow() tea.Cmd {
	m.reflowDue = false
	m.queue = nil
	m.floor = 0
	text := clearAll + strings.Join(m.printedLines(), "\n")
	if m.syncOutput {
		// On a terminal with synchronized output the display is held
		// from the clear until the redrawn area is back: the renderer
		// wraps that frame in the same mode, and its end ends the hold.
		// Without it the terminal shows the screen empty, then up to
		// maxReplay items scrolling past, then the input coming back.
		text = ansi.SetModeSynchronizedOutput + text
	}
	if m.print != nil {
		return m.print(text)
	}
	m.printing = true
	// Printed above the redrawn area, the renderer knows where its cursor
	// is afterwards; the clear took its frame too, so it is then redrawn
	// whole.
	cmd := tea.Sequence(tea.Println(text), tea.ClearScreen, func() tea.Msg { return printedMsg{} })
	if m.syncOutput {
		// Should no frame follow, the hold still ends (a terminal times
		// it out only after up to a second).
		cmd = tea.Sequence(cmd, tea.Tick(2*printDelay, func(time.Time) tea.Msg {
			return tea.RawMsg{Msg: ansi.ResetModeSynchronizedOutput}
		}))
	}
	return cmd
}
