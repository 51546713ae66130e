package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Inline mode (the default) draws only what still changes, at the bottom
// of the terminal: the message streaming in, running cards and searches,
// the input and the status bar. Everything finished is printed above it
// once, into the terminal's own scrollback, where the user scrolls, selects
// and copies it with the terminal's means, and where it stays after exit.

// printedMsg says the lines handed to the terminal were printed, so the
// next batch may go (prints must keep their order).
type printedMsg struct{}

// readyMsg says the first frame is on the terminal. Lines printed before it
// would be drawn over by that frame, so printing waits for it.
type readyMsg struct{}

// maxReplay is how many items of a resumed history are printed on start;
// /export writes the whole transcript.
const maxReplay = 200

// live reports whether an item may still change: it stays in the redrawn
// area until it is final.
func (c *chat) live(it *chatItem) bool {
	switch {
	case it.card != nil:
		return it.card.Status == statusRunning || it.card.Status == statusWaiting
	case it.search != nil:
		return it.search.Running
	case it.kind == itemReasoning:
		return it == c.thinking
	case it.kind == itemAssistant:
		for _, s := range c.stream {
			if s == it {
				return true
			}
		}
	}
	return false
}

// scrollback moves finished items, oldest first, from the live area to
// the print queue, and the head of a streamed answer that no longer fits
// the live area. It stops at the first item still changing, so the order
// on screen is the order of the conversation.
func (m *Model) scrollback() {
	c := m.chat
	if m.committed > len(c.items) {
		m.committed = len(c.items)
	}
	room := m.liveRows()
	for m.committed < len(c.items) {
		it := c.items[m.committed]
		if it == c.sel && !c.live(it) {
			c.selectItem(nil) // printed as it is, without the selection's border
		}
		ls := c.render(it)
		if c.live(it) {
			if it.kind == itemAssistant && len(ls) > room {
				m.queue = append(m.queue, c.splitHead(it)...)
			}
			return
		}
		if it.printed < len(ls) {
			m.queue = append(m.queue, ls[it.printed:]...)
		}
		it.printed = len(ls)
		m.remember(it)
		m.committed++
	}
}

// printCmd hands the queued lines to the terminal, one batch at a time.
func (m *Model) printCmd() tea.Cmd {
	// While a width change settles nothing is printed: it is all printed
	// again at the new width.
	if m.opts.AltScreen || m.printing || !m.ready || m.reflowWait || m.reflowDue || len(m.queue) == 0 {
		return nil
	}
	// The terminal makes room for printed lines by scrolling the screen
	// above the redrawn area: a batch taller than that room would push the
	// area's own top into the scrollback as a stale copy. Longer output
	// goes in batches, each after the last was printed.
	n := min(len(m.queue), m.printBatch())
	// The printed lines take the rows the live area gives up.
	m.floor = max(m.floor-n, 0)
	text := strings.Join(m.queue[:n], "\n")
	m.queue = append([]string(nil), m.queue[n:]...)
	m.printing = true
	if m.print != nil {
		// Tests record the lines at once; the next batch follows.
		m.print(text)
		m.printing = false
		return m.printCmd()
	}
	// The lines leave the redrawn area in this update; they are printed
	// once the smaller frame is on the terminal (fence.go), and until
	// then no frame may be taller than the room they leave it.
	m.inflight = n
	m.held, m.holding = text, true
	if m.fence == nil {
		return func() tea.Msg { return printNowMsg{text} }
	}
	m.title = 1 - m.title
	f, title := m.fence, titles[m.title]
	return func() tea.Msg {
		if !f.wait(title) {
			return nil
		}
		return printNowMsg{text}
	}
}

// printDelay is a little over one frame at the renderer's 60 fps.
const printDelay = 30 * time.Millisecond

// printNowMsg prints lines whose frame has been drawn.
type printNowMsg struct{ text string }

func printNow(msg printNowMsg) tea.Cmd {
	return tea.Sequence(tea.Println(msg.text), func() tea.Msg { return printedMsg{} })
}

// printBatch is how many lines may be printed at once: the screen's rows
// the redrawn area can never take, nor the taller frame it keeps.
func (m *Model) printBatch() int {
	l := m.layout()
	viewMax := max(m.liveRows()+l.pane+l.box+3, m.floor)
	return max(m.height-viewMax-1, 1)
}

// liveRows is how many rows the live items may take above the input: at
// most half the screen, so the redrawn area never reaches the top of the
// terminal (it would scroll the terminal and leave stale copies of itself
// in the scrollback).
func (m *Model) liveRows() int {
	l := m.layout()
	return max(min(l.main-l.pane, m.height/2), 1)
}

// renderInline draws the live area: unprinted items (their tail when they
// are taller than the room), the folded pane when shown, and the bottom.
func (m *Model) renderInline() string {
	if m.quitting {
		return ""
	}
	l := m.layout()
	var rows []string
	if m.picker != nil {
		m.sizePicker()
		rows = append(rows, strings.Split(m.picker.View(), "\n")...)
	} else {
		var live []string
		c := m.chat
		for _, it := range c.items[min(m.committed, len(c.items)):] {
			ls := c.render(it)
			live = append(live, ls[min(it.printed, len(ls)):]...)
		}
		room := m.liveRows()
		if len(live) > room {
			live = live[len(live)-room:]
		}

		for i, s := range live {
			live[i] = strings.Join(fit([]string{s}, m.width, 1), "")
		}
		rows = append(rows, live...)
		if m.showPane && l.pane > 0 {
			m.pane.SetSize(m.width, l.pane)
			rows = append(rows, m.pane.View(m.spin.View(), true))
		}
	}
	if l.work && (m.working || m.hint != "" || m.completionLine() != "") {
		rows = append(rows, m.workLine())
	}
	rows = append(rows, m.bottom(l.box), m.status.View(m.st, m.width))
	if l.help {
		rows = append(rows, m.helpLine())
	}
	// The view never shrinks but by the lines printed above it: the
	// renderer keeps a frame's top row, so rows it gave up (a picker or
	// menu closed, a card folded) would stay blank under the input. They
	// are kept as blank rows above the live area instead, and printed
	// lines take them up.
	// A frame taller than a streaming one (a picker up to 16 rows on a
	// screen whose live area is half of it) is kept too: cut to the
	// streaming frame's height, it would leave the difference blank under
	// the input. printBatch leaves it room.
	// Counted in the terminal's rows: the input box and the pane are
	// one string of several.
	rows = strings.Split(strings.Join(rows, "\n"), "\n")
	m.floor = min(max(m.floor, len(rows)), m.height)
	if pad := m.floor - len(rows); pad > 0 {
		rows = append(make([]string, pad), rows...)
	}
	// While lines are on their way above the frame, a frame that grew
	// since (a picker opened) shows its bottom only: with the lines it
	// would be taller than the screen (printBatch counted the frame the
	// lines left). It is whole again once they are printed.
	if room := max(m.height-1-m.inflight, 1); m.inflight > 0 && len(rows) > room {
		rows = rows[len(rows)-room:]
	}
	return strings.Join(rows, "\n")
}

// quit prints what is left of the conversation, then ends the program,
// so the whole transcript stays in the scrollback.
func (m *Model) quit() tea.Cmd {
	if m.opts.AltScreen {
		return tea.Quit
	}
	m.quitting = true
	if m.holding {
		// A batch still waiting for its frame: it goes first, and its own
		// print, if it comes before the program ends, is not made.
		m.queue = append([]string{m.held}, m.queue...)
		m.held, m.holding = "", false
	}
	c := m.chat
	for ; m.committed < len(c.items); m.committed++ {
		it := c.items[m.committed]
		if it == c.sel {
			c.selectItem(nil)
		}
		ls := c.render(it)
		m.queue = append(m.queue, ls[min(it.printed, len(ls)):]...)
		it.printed = len(ls)
		m.remember(it)
	}
	if m.reflowWait || m.reflowDue {
		// The width changed and nothing was printed again yet. No frame
		// follows this print: it ends the display's hold itself.
		m.queue = []string{clearAll + strings.Join(m.printedLines(), "\n")}
		if m.syncOutput {
			m.queue = []string{ansi.SetModeSynchronizedOutput + m.queue[0] + ansi.ResetModeSynchronizedOutput}
		}
	}
	if len(m.queue) == 0 {
		return tea.Quit
	}
	text := strings.Join(m.queue, "\n")
	m.queue = nil
	if m.print != nil {
		return tea.Sequence(m.print(text), tea.Quit)
	}
	return tea.Sequence(tea.Println(text), tea.Quit)
}

// skipOldHistory leaves all but the newest items of a long resumed history
// out of the replay, with a line saying so.
func (m *Model) skipOldHistory() {
	c := m.chat
	if m.opts.AltScreen || len(c.items) <= maxReplay {
		return
	}
	skip := len(c.items) - maxReplay
	m.queue = append(m.queue, skippedLine(m.st.Notice.Render, skip)...)
	m.pastSkipped = skip
	for _, it := range c.items[:skip] {
		it.printed = 1 << 30
	}
	m.committed = skip
}
