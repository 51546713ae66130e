package tui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
	"github.com/agent-dev/agent/tools/permission"
)

type itemKind int

const (
	itemUser itemKind = iota
	itemAssistant
	itemTool
	itemSearch
	itemNotice
	itemWarning
	itemError
	// itemReasoning is a thinking block or reasoning summary: dimmed and
	// folded to its first line unless cards are expanded (ctrl+o).
	itemReasoning
	// itemImage is the chip of an image the user attached: its name, type
	// and size (never its bytes).
	itemImage
)

// chatItem is one block of the transcript. Its rendering is cached per
// width and version, so a frame renders only what changed and is visible.
type chatItem struct {
	kind        itemKind
	text        string
	interrupted bool
	streaming   bool
	sources     []agent.Source
	card        *toolCard
	search      *searchEntry
	// version is bumped whenever the rendering must be redone. While text
	// streams it is bumped by the throttled flush, not by every delta.
	version int

	cacheW, cacheV int
	cacheExp       bool
	cacheSel       bool
	lines          []string
	// open is a card's own fold, set by ctrl+o while the card is selected
	// (alt+↑/↓): 0 follows ctrl+o's for every card, 1 whole, -1 folded.
	open int8
	// printed is how many of lines are in the scrollback (inline mode).
	printed int
	// reprint: a copy of a card printed again whole (/subagents N).
	reprint bool
	// split is how much of text was printed to the scrollback while it
	// streamed (inline mode): whole Markdown blocks, so the rest renders
	// on its own as it would have in place.
	split int
}

// splitHead cuts the complete Markdown blocks off the head of a streaming
// answer and returns their rendering; the item then shows only the rest.
func (c *chat) splitHead(it *chatItem) []string {
	k := blockBoundary(it.text, it.split)
	if k <= it.split {
		return nil
	}
	head := c.renderAssistant(it, it.text[it.split:k], it.split == 0)
	it.split = k
	it.version++
	return head
}

// blockBoundary is the end of the last complete Markdown block after
// from: just past a blank line that is outside a code fence and is not
// the end of the text.
func blockBoundary(text string, from int) int {
	best, fence, pos := from, false, 0
	for _, line := range strings.SplitAfter(text, "\n") {
		pos += len(line)
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && t == "" && strings.HasSuffix(line, "\n") && pos > from && pos < len(text) {
			best = pos
		}
	}
	return best
}

// chat is the scrollable transcript. It is virtualised: rendering walks
// from the newest item up and stops once the screen (plus the scroll
// offset) is filled, so a 10,000-message history costs what a screenful does.
type chat struct {
	st     *themes.Styles
	md     *markdown
	items  []*chatItem
	width  int
	height int
	// offset is how many lines the view is scrolled up from the bottom.
	offset   int
	expanded bool
	// sel is the card selected with alt+↑/↓, which ctrl+o folds or
	// unfolds alone; nil for none.
	sel   *chatItem
	cards map[string]*chatItem
	// stream holds the assistant items the current message streamed into.
	stream []*chatItem
	// thinking is the reasoning item still streaming, if any.
	thinking *chatItem
	// anchor is the top visible line while scrolled up, so text arriving
	// below does not move what the user is reading.
	anchor     *chatItem
	anchorLine int
	keys       ChatKeyMap
	// fullScreen: the program owns every cell (alt screen); inline, lines
	// go to the terminal's scrollback, which wraps them itself.
	fullScreen bool
}

func newChat(st *themes.Styles, keys ChatKeyMap) *chat {
	return &chat{st: st, md: newMarkdown(st), cards: map[string]*chatItem{}, keys: keys}
}

func (c *chat) SetSize(w, h int) { c.width, c.height = max(w, 1), max(h, 1) }

// ChatKeyMap is the chat's scrolling keys.
type ChatKeyMap struct{ PageUp, PageDown key.Binding }

// Update scrolls: a page on pgup/pgdn, three lines on the wheel.
func (c *chat) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, c.keys.PageUp):
			c.scroll(max(c.height-2, 1))
		case key.Matches(msg, c.keys.PageDown):
			c.scroll(-max(c.height-2, 1))
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			c.scroll(3)
		case tea.MouseWheelDown:
			c.scroll(-3)
		}
	}
	return nil
}

// ToBottom follows the newest line again.
func (c *chat) ToBottom() { c.offset, c.anchor = 0, nil }

// Offset is how many lines the view is scrolled up.
func (c *chat) Offset() int { return c.offset }

// endTurn closes whatever still streams.
func (c *chat) endTurn() {
	c.endReasoning()
	c.flush()
	for _, it := range c.stream {
		it.streaming = false
		it.version++
	}
	c.stream = nil
}

func (c *chat) setStyles(st *themes.Styles) {
	c.st, c.md = st, newMarkdown(st)
	for _, it := range c.items {
		it.version++
	}
}

func (c *chat) reset() {
	c.items, c.offset, c.stream, c.anchor, c.sel = nil, 0, nil, nil, nil
	c.cards = map[string]*chatItem{}
}

// clear empties the screen (/clear) but keeps what is still arriving: the
// items the current message streams into and running cards. Cutting a
// streamed item would restart its Markdown mid-block (inside a code fence
// the rest of the answer renders as one run-on paragraph).
func (c *chat) clear() {
	live := map[*chatItem]bool{}
	for _, it := range c.stream {
		live[it] = true
	}
	var keep []*chatItem
	for _, it := range c.items {
		running := (it.card != nil && it.card.Status == statusRunning) || (it.search != nil && it.search.Running)
		if live[it] || running {
			keep = append(keep, it)
		}
	}
	c.items, c.offset, c.anchor = keep, 0, nil
	if !slices.Contains(keep, c.sel) {
		c.sel = nil
	}
	for id, it := range c.cards {
		if it.card.Status != statusRunning {
			delete(c.cards, id)
		}
	}
}

// newTurn starts a new scope for call ids. Ids are unique within a turn
// only: a local server or the demo numbers them per process, so after a
// resume "call_1" comes again and must make a new card, not update an old
// one.
func (c *chat) newTurn() { c.cards = map[string]*chatItem{} }

func (c *chat) add(it *chatItem) *chatItem {
	c.items = append(c.items, it)
	return it
}

func (c *chat) notice(kind itemKind, text string) {
	c.add(&chatItem{kind: kind, text: text})
}

// appendDelta adds streamed text to the open assistant item, opening one
// when a card or search line came in between.
func (c *chat) appendReasoning(text string) {
	if it := c.thinking; it != nil && len(c.items) > 0 && c.items[len(c.items)-1] == it {
		it.text += text
		return
	}
	c.thinking = c.add(&chatItem{kind: itemReasoning, text: text, streaming: true, version: 1})
}

// endReasoning closes the reasoning item: the answer or a card follows.
func (c *chat) endReasoning() {
	if it := c.thinking; it != nil {
		it.streaming = false
		it.version++
		c.thinking = nil
	}
}

func (c *chat) appendDelta(text string) {
	c.endReasoning()
	if n := len(c.stream); n > 0 && len(c.items) > 0 && c.items[len(c.items)-1] == c.stream[n-1] {
		c.stream[n-1].text += text
		return
	}
	it := c.add(&chatItem{kind: itemAssistant, text: text, streaming: true, version: 1})
	c.stream = append(c.stream, it)
}

// flush makes streamed text visible: the throttled re-render.
func (c *chat) flush() bool {
	dirty := false
	if it := c.thinking; it != nil {
		it.version++
		dirty = true
	}
	for _, it := range c.stream {
		if it.streaming {
			it.version++
			dirty = true
		}
	}
	return dirty
}

// finishMessage closes the streamed items of an assistant message. A
// single streamed item takes the message's authoritative text.
func (c *chat) finishMessage(m agent.Message) {
	c.endReasoning()
	var text strings.Builder
	var sources []agent.Source
	for _, p := range m.Parts {
		switch {
		case p.Type == agent.PartText:
			text.WriteString(p.Text)
		case p.Type == agent.PartServerTool && p.ServerTool != nil:
			sources = append(sources, p.ServerTool.Sources...)
			c.serverTool(*p.ServerTool, true)
		}
	}
	switch len(c.stream) {
	case 0:
		if strings.TrimSpace(text.String()) != "" {
			c.stream = append(c.stream, c.add(&chatItem{kind: itemAssistant, text: text.String()}))
		}
	case 1:
		// The message's text is authoritative, unless the head already
		// printed to the scrollback does not match it.
		if t, s := text.String(), c.stream[0]; t != "" && strings.HasPrefix(t, s.text[:min(s.split, len(s.text))]) {
			s.text = t
		}
	}
	for i, it := range c.stream {
		it.streaming = false
		it.interrupted = m.Interrupted
		if i == len(c.stream)-1 {
			it.sources = sources
		}
		it.version++
	}
	c.stream = nil
}

// interrupt marks what is streaming as cut off (the user cancelled). The
// items stay the message's: the partial message the session saves still
// arrives and must land in them, not in a new item.
func (c *chat) interrupt() {
	for _, it := range c.stream {
		it.streaming = false
		it.interrupted = true
		it.version++
	}
	for _, it := range c.cards {
		switch it.card.Status {
		case statusRunning:
			// Started (tool_call_started comes as the call goes to run):
			// it may have done its work, as the model is told; "before
			// this tool call ran" said the opposite, and inline the card
			// goes to the scrollback as it is now.
			it.card.Status = statusCancelled
			it.card.Result = agent.StoppedResult
			it.version++
		case statusWaiting:
			// Awaiting approval: it never ran.
			it.card.Status = statusCancelled
			it.card.Result = agent.InterruptedResult
			it.version++
		}
	}
}

func (c *chat) toolStarted(ev agent.ToolEvent) {
	c.endReasoning()
	it, ok := c.cards[ev.ID]
	if !ok {
		it = c.add(&chatItem{kind: itemTool, card: &toolCard{ID: ev.ID}})
		c.cards[ev.ID] = it
	}
	it.card.Name, it.card.Server, it.card.Input, it.card.Discovered = ev.Name, ev.Server, ev.Input, ev.Discovered
	it.version++
}

func (c *chat) toolFinished(ev agent.ToolEvent) cardStatus {
	if _, ok := c.cards[ev.ID]; !ok {
		c.toolStarted(ev)
	}
	it := c.cards[ev.ID]
	it.card.Duration, it.card.Result = ev.Duration, ev.Result
	switch {
	case it.card.Status == statusDenied:
		// The user said no: that is not a failure of the tool.
	case ev.Permission != nil && ev.Permission.Behavior == permission.Deny:
		// A deny rule, the mode or a hook refused it: it never ran.
		it.card.Status = statusDenied
	case errors.Is(ev.Err, agent.ErrCancelled):
		// The user cancelled the turn: the tool did not fail ("✗ failed
		// 2.1s" read so); its result says whether it may have run.
		it.card.Status = statusCancelled
	case ev.IsError:
		it.card.Status = statusFailed
	default:
		it.card.Status = statusOK
	}
	it.version++
	return it.card.Status
}

// toolProgress shows a running tool's latest progress report on its card.
func (c *chat) toolProgress(p agent.ToolProgress) {
	if it, ok := c.cards[p.ID]; ok && it.card.Status == statusRunning {
		it.card.Progress = &p
		it.version++
	}
}

// setStatus marks a card waiting for approval, denied or running again.
func (c *chat) setStatus(id string, st cardStatus) {
	if it, ok := c.cards[id]; ok {
		it.card.Status = st
		it.version++
	}
}

// serverTool shows a provider-hosted call; done marks it finished even when
// the provider sent no result block.
func (c *chat) serverTool(st agent.ServerTool, done bool) {
	it, ok := c.cards[st.ID]
	if !ok {
		it = c.add(&chatItem{kind: itemTool, card: &toolCard{ID: st.ID, Provider: true}})
		c.cards[st.ID] = it
	}
	card := it.card
	if st.Name != "" {
		card.Name = st.Name
	}
	if len(st.Input) > 0 {
		card.Input = st.Input
	}
	if len(st.Result) > 0 {
		card.Result = string(st.Result)
	}
	if len(st.Sources) > 0 {
		card.Sources = st.Sources
	}
	switch {
	case st.IsError:
		card.Status = statusFailed
	case len(st.Result) > 0 || done:
		card.Status = statusOK
	}
	it.version++
}

// renderAssistant renders answer text, with the label on the first part.
func (c *chat) renderAssistant(it *chatItem, text string, label bool) []string {
	st := c.st
	var ls []string
	if label {
		l := st.AssistantLabel.Render("◆ assistant")
		if it.interrupted {
			l += st.WarningText.Render("  (interrupted)")
		}
		ls = append(ls, l)
	}
	switch {
	case strings.TrimSpace(text) != "":
		ls = append(ls, c.md.renderStream(text, c.width, it.streaming)...)
	case label:
		ls = append(ls, st.Muted.Render("  …"))
	}
	if !label {
		// A continuation keeps the blank line that ended the printed part.
		ls = append([]string{""}, ls...)
	}
	return ls
}

// renderReasoning shows thinking dimmed: folded to its first line with a
// count, or whole when cards are expanded.
func (c *chat) renderReasoning(it *chatItem) []string {
	st := c.st
	text := strings.TrimSpace(it.text)
	lines := wrapLines(text, max(c.width-4, 8))
	head := st.Subtle.Render("✻ thinking")
	if it.streaming {
		head += st.Subtle.Render("…")
	}
	if c.expanded || len(lines) <= 1 {
		out := []string{head}
		for _, l := range lines {
			out = append(out, "  "+st.Subtle.Italic(true).Render(l))
		}
		return out
	}
	first := ansi.Truncate(strings.TrimSpace(lines[0]), max(c.width-4, 8), "…")
	more := fmt.Sprintf("  (+%d lines · ctrl+o shows them)", len(lines)-1)
	return []string{head + st.Subtle.Render(more), "  " + st.Subtle.Italic(true).Render(first)}
}

func (c *chat) render(it *chatItem) []string {
	exp, sel := c.expandedFor(it), it == c.sel
	if it.lines != nil && it.cacheW == c.width && it.cacheV == it.version && it.cacheExp == exp && it.cacheSel == sel {
		return it.lines
	}
	w := c.width
	var ls []string
	st := c.st
	switch it.kind {
	case itemUser:
		ls = append(ls, st.UserLabel.Render("› you"))
		for _, l := range wrapLines(it.text, w-2) {
			ls = append(ls, "  "+st.UserText.Render(l))
		}
	case itemAssistant:
		ls = c.renderAssistant(it, it.text[min(it.split, len(it.text)):], it.split == 0)
		if len(it.sources) > 0 {
			ls = append(ls, st.Muted.Render("  Sources:"))
			for i, s := range it.sources {
				ls = append(ls, st.Muted.Render(ansi.Truncate("  "+strconv.Itoa(i+1)+". "+sourceLabel(s), w, "…")))
			}
		}
	case itemReasoning:
		ls = c.renderReasoning(it)
	case itemTool:
		ls = it.card.render(st, w, exp, sel)
	case itemSearch:
		ls = it.search.chatLine(st, w)
	case itemImage:
		ls = append(ls, "  "+st.Muted.Render(ansi.Truncate("▣ "+it.text, max(w-2, 8), "…")))
	// Notices carry text from outside (a provider's error message, a
	// server's warning or stderr, a tool list): sanitised here, once for
	// every caller, as the cards and the answer are.
	case itemNotice:
		ls = append(ls, c.textLines(sanitize.Text(it.text), "  ", st.Notice.Render)...)
	case itemWarning:
		ls = append(ls, c.textLines("! "+sanitize.Text(it.text), "", st.WarningText.Render)...)
	case itemError:
		ls = append(ls, c.textLines("✗ "+sanitize.Text(it.text), "", st.ErrorText.Render)...)
	}
	ls = append(ls, "")
	it.lines, it.cacheW, it.cacheV, it.cacheExp, it.cacheSel = ls, c.width, it.version, exp, sel
	return ls
}

// window renders the lines on screen and reports whether the top of the
// transcript was reached while filling them, and the index of the first
// item rendered.
func (c *chat) window() ([]string, bool) {
	all, first := c.windowFrom()
	return all, first == 0
}

func (c *chat) windowFrom() ([]string, int) {
	need := c.height + c.offset
	var chunks [][]string
	n := 0
	i := len(c.items) - 1
	for ; i >= 0 && n < need; i-- {
		ls := c.render(c.items[i])
		chunks = append(chunks, ls)
		n += len(ls)
	}
	all := make([]string, 0, n)
	for j := len(chunks) - 1; j >= 0; j-- {
		all = append(all, chunks[j]...)
	}
	return all, i + 1
}

// clamp keeps the scroll offset inside the transcript and re-marks the
// anchor.
func (c *chat) clamp() {
	if c.offset < 0 {
		c.offset = 0
	}
	all, top := c.window()
	if top && c.offset > len(all)-c.height {
		c.offset = max(0, len(all)-c.height)
	}
	c.mark()
}

func (c *chat) scroll(lines int) {
	c.offset += lines
	c.clamp()
}

// mark records which item line is at the top of the screen.
func (c *chat) mark() {
	c.anchor = nil
	if c.offset == 0 {
		return
	}
	all, first := c.windowFrom()
	start := max(0, len(all)-c.offset-c.height)
	for k := first; k < len(c.items); k++ {
		n := len(c.render(c.items[k]))
		if start < n {
			c.anchor, c.anchorLine = c.items[k], start
			return
		}
		start -= n
	}
}

// reanchor moves the offset so the anchored line stays on top after
// content changed below it.
func (c *chat) reanchor() {
	if c.anchor == nil || c.offset == 0 {
		return
	}
	below := 0
	for k := len(c.items) - 1; k >= 0; k-- {
		below += len(c.render(c.items[k]))
		if c.items[k] == c.anchor {
			c.offset = max(0, below-c.anchorLine-c.height)
			return
		}
	}
	c.anchor = nil // the anchored item is gone (/clear)
}

func (c *chat) View() string {
	all, _ := c.window()
	end := len(all) - c.offset
	if end < 0 {
		end = 0
	}
	start := max(0, end-c.height)
	return strings.Join(fit(all[start:end], c.width, c.height), "\n")
}
