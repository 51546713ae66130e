package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// Update routes messages to handlers. Inline, what became final is then
// printed to the scrollback.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case printedMsg:
		m.printing = false
		m.inflight = 0
	case readyMsg:
		m.ready = true
	case printNowMsg:
		if !m.holding {
			return m, nil // the quit printed it with the rest
		}
		m.held, m.holding = "", false
		return m, printNow(msg)
	case quitExpiredMsg:
		if msg.gen == m.quitGen && m.quitArmed {
			m.quitArmed = false
			if m.hint == quitHint {
				m.hint = ""
			}
		}
	case reflowMsg:
		if msg.gen == m.reflowGen && m.reflowWait {
			m.reflowWait, m.reflowDue = false, true
		}
	case tea.ModeReportMsg:
		// The same answer turns on the renderer's own use of the mode.
		if msg.Mode == ansi.ModeSynchronizedOutput && msg.Value == ansi.ModeReset {
			m.syncOutput = true
		}
	}
	_, cmd := m.update(msg)
	if m.width > 0 && m.layout() != m.laidOut {
		// The input grew, an approval replaced it, the pane folded: the
		// rows are shared out again.
		m.relayout()
	}
	// Nothing is printed before the width is known: it would be wrapped
	// to nothing.
	if !m.opts.AltScreen && !m.quitting && m.width > 0 {
		m.scrollback()
		if m.reflowDue && !m.printing && m.ready {
			cmd = tea.Batch(cmd, m.reflow())
		}
		if p := m.printCmd(); p != nil {
			cmd = tea.Batch(cmd, p)
		}
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		var cmd tea.Cmd
		if !m.opts.AltScreen && m.ready && m.width > 0 && msg.Width != m.width {
			cmd = m.widthChanged()
		}
		m.resize(msg.Width, msg.Height)
		return m, cmd
	case tea.BackgroundColorMsg:
		if st, err := themes.Resolve(m.opts.Theme, msg.IsDark(), m.opts.NoColor); err == nil {
			m.applyStyles(st)
		}
		return m, nil
	case alertMsg:
		m.chat.notice(itemError, sanitize.Text(msg.Text))
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.MouseWheelMsg:
		// The mouse is never captured; a terminal that sends wheel events
		// anyway scrolls the chat.
		return m, m.chat.Update(msg)
	case tea.PasteMsg:
		if len(m.forms) > 0 && len(m.approvals) == 0 {
			f := m.forms[0]
			if len(f.values) > 0 {
				f.values[f.cur] += strings.ReplaceAll(msg.Content, "\n", " ")
			}
			return m, nil
		}
		guarded := len(m.approvals) > 0 && !m.approvalReady()
		if (m.picker == nil && len(m.approvals) == 0) || guarded {
			// A dropped or pasted image file becomes an @reference: it is
			// attached as an image when the prompt is sent.
			if ref, ok := imageRef(msg.Content); ok {
				msg.Content = ref
			}
			cmd := m.input.Update(msg)
			if guarded {
				// Pasted into a draft before the question could be read,
				// as keys typed then are (handleApprovalKey).
				m.approvalTyped++
				cmd = tea.Batch(cmd, m.rearmApproval())
			}
			return m, cmd
		}
		return m, nil
	case eventMsg:
		msg.Event = cleanEvent(msg.Event)
		cmd := m.handleEvent(msg)
		m.relayout()
		m.chat.reanchor()
		return m, cmd
	case infoTickMsg:
		// Servers start in the background: their tools show up in the
		// counts without waiting for a turn. During a turn the figures
		// come from the events.
		if m.working {
			return m, m.infoTick()
		}
		return m, tea.Batch(refreshCmd(m.b), m.infoTick(), mcpListCmd(m.b))
	case refreshedMsg:
		for _, n := range msg.notes {
			if n.Warning {
				m.chat.notice(itemWarning, n.Text)
			} else {
				m.chat.notice(itemNotice, n.Text)
			}
		}
		if !m.working {
			m.status.setInfo(msg.info)
			m.warnShadowed()
			m.pane.SetCounts(msg.info.Active, msg.info.Deferred)
		}
		return m, nil
	case turnEndMsg:
		return m, m.endTurn()
	case approvalMsg:
		// Numbered here: a call's id need not be new (a provider that
		// numbers each response's calls from zero asks call_0 again), and
		// each question has its own guard (armApproval).
		m.approvalSeq++
		msg.Req.seq = m.approvalSeq
		m.approvals = append(m.approvals, msg.Req)
		return m, tea.Batch(approvalGone(msg.Req), m.armApproval())
	case approvalReadyMsg:
		if msg.typed == m.approvalTyped {
			m.answerable = msg.seq
		}
		return m, nil
	case approvalGoneMsg:
		m.withdrawApproval(msg.id)
		return m, m.armApproval()
	case modeMsg:
		m.status.info.Mode = msg.mode
		m.chat.notice(itemNotice, modeNotice(msg.mode))
		return m, nil
	case formMsg:
		f := newForm(msg.Req)
		m.forms = append(m.forms, f)
		m.relayout()
		return m, f.gone()
	case formGoneMsg:
		if i := slices.Index(m.forms, msg.f); i >= 0 {
			m.forms = slices.Delete(m.forms, i, i+1)
			m.chat.notice(itemNotice, withdrawn(fmt.Sprintf("MCP server %s's %s", msg.f.req.Server, msg.f.kind()), msg.f.req.Why))
			m.relayout()
		}
		return m, nil
	case flushMsg:
		m.flushPending = false
		m.chat.flush()
		m.chat.reanchor()
		return m, nil
	case spinner.TickMsg:
		if !m.working && !m.pane.running() {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	default:
		if cmd, ok := m.handleMCPMsg(msg); ok {
			return m, cmd
		}
		if cmd, ok := m.handleResult(msg); ok {
			m.relayout()
			return m, cmd
		}
	}
	return m, m.input.Update(msg)
}

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(k, m.keys.Quit) {
		m.quitArmed = false
		if m.hint == quitHint {
			m.hint = ""
		}
	}
	if len(m.approvals) > 0 {
		return m.handleApprovalKey(k)
	}
	if len(m.forms) > 0 {
		done, cmd := m.forms[0].key(k)
		if done {
			m.forms = m.forms[1:]
		}
		m.relayout() // an error line, or the URL form's next step, changes its height
		return cmd
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		if m.working {
			return m.cancelTurn()
		}
		if strings.TrimSpace(m.input.Value()) != "" {
			// A draft is cleared first: only an empty prompt arms quit.
			m.input.Reset()
			m.comp = completion{}
			m.quitArmed = false
			return nil
		}
		if m.quitArmed {
			return m.quit()
		}
		m.quitArmed = true
		m.hint = quitHint
		m.quitGen++
		gen := m.quitGen
		return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{gen} })
	case key.Matches(k, m.keys.Cancel):
		if m.working && !m.catalogSince.IsZero() {
			// The request is held for starting servers: esc sends it
			// without them rather than cancelling what the user typed.
			if sk, ok := m.b.(CatalogSkipper); ok {
				b := sk
				return func() tea.Msg { b.SkipCatalogWait(); return nil }
			}
		}
		if m.working {
			return m.cancelTurn()
		}
		return nil
	case key.Matches(k, m.keys.Mode):
		if mc, ok := m.b.(ModeCycler); ok {
			return func() tea.Msg { return modeMsg{mc.CyclePermissionMode()} }
		}
		return nil
	case key.Matches(k, m.keys.TogglePane):
		m.showPane = !m.showPane
		m.resize(m.width, m.height)
		return nil
	case key.Matches(k, m.keys.Expand):
		m.chat.ToggleExpanded()
		return nil
	case key.Matches(k, m.keys.SelectUp), key.Matches(k, m.keys.SelectDown):
		dir, from := 1, 0
		if key.Matches(k, m.keys.SelectUp) {
			dir = -1
		}
		if !m.opts.AltScreen {
			from = m.committed // a printed card cannot change any more
		}
		m.chat.SelectCard(dir, from)
		return nil
	case key.Matches(k, m.keys.PageUp), key.Matches(k, m.keys.PageDown):
		return m.chat.Update(k)
	case key.Matches(k, m.keys.Send):
		m.comp = completion{}
		cmd := m.send()
		m.relayout()
		return cmd
	case key.Matches(k, m.keys.Complete):
		return m.complete()
	case key.Matches(k, m.keys.Editor):
		return editorCmd(m.input.Value())
	}
	cmd := m.input.Update(k)
	m.suggest()
	return cmd
}

const quitHint = "press ctrl+c again to quit"

// quitWindow is how long a first ctrl+c waits for the second: after it
// the hint goes and ctrl+c arms again, as in Claude Code. The hint used
// to stay until another key, and a ctrl+c minutes later quit.
const quitWindow = 2 * time.Second

// quitExpiredMsg ends the arming numbered gen.
type quitExpiredMsg struct{ gen int }

// approvalReadyMsg: the answers of the approval numbered seq are taken
// from now on, if no key was typed in its guard since the tick was armed:
// typed is how many had been then (Model.approvalTyped).
type approvalReadyMsg struct{ seq, typed int }

// armApproval starts the guard of the approval that is now first: its
// answers are taken once opts.ApprovalGuard has passed (approvalReady).
func (m *Model) armApproval() tea.Cmd {
	if len(m.approvals) == 0 || m.approvals[0].seq == m.armed {
		return nil
	}
	seq := m.approvals[0].seq
	m.armed = seq
	if m.opts.ApprovalGuard < 0 {
		m.answerable = seq
		return nil
	}
	return m.rearmApproval()
}

// rearmApproval starts the first approval's guard time again: it ends
// opts.ApprovalGuard after the last key typed in it. A guard timed once,
// from the question alone, ended while a draft was still being typed
// (its tick came in among the keys), and a later "y" approved the call
// unread, as the trust question's did (81e294b).
func (m *Model) rearmApproval() tea.Cmd {
	seq, n := m.approvals[0].seq, m.approvalTyped
	return tea.Tick(m.opts.ApprovalGuard, func(time.Time) tea.Msg { return approvalReadyMsg{seq: seq, typed: n} })
}

// approvalReady reports whether the first approval takes answers.
func (m *Model) approvalReady() bool {
	return len(m.approvals) > 0 && m.approvals[0].seq == m.answerable
}

func (m *Model) handleApprovalKey(k tea.KeyPressMsg) tea.Cmd {
	req := m.approvals[0]
	if !m.approvalReady() && !key.Matches(k, m.keys.Quit) {
		// Typed before the question could be read: meant for the input
		// (a draft typed while the turn ran), never an answer; the guard
		// runs on from it.
		m.approvalTyped++
		return tea.Batch(m.input.Update(k), m.rearmApproval())
	}
	var d Decision
	if m.alwaysPick && key.Matches(k, m.keys.Quit) {
		m.alwaysPick = false
	}
	if m.alwaysPick {
		c, ok := alwaysChoice(k.String(), req.Tool.Server != "")
		switch {
		case k.String() == "esc":
			m.alwaysPick = false
			return nil
		case !ok:
			return nil
		}
		d = c
		m.alwaysPick = false
	}
	switch {
	case d != Deny:
	case key.Matches(k, m.keys.Yes):
		d = Allow
	case key.Matches(k, m.keys.Always) && req.SessionOnly:
		d = AllowServer
	case key.Matches(k, m.keys.Always):
		if offersAlways(req) {
			m.alwaysPick = true
		}
		return nil
	case key.Matches(k, m.keys.No):
		d = Deny
	case key.Matches(k, m.keys.Quit):
		m.approvals = m.approvals[1:]
		m.chat.setStatus(req.Tool.ID, statusDenied)
		return tea.Batch(replyCmd(req, Deny), m.cancelTurn())
	default:
		return nil
	}
	m.approvals = m.approvals[1:]
	if strings.HasPrefix(m.hint, "waiting for your approval") {
		m.hint = ""
	}
	m.chat.notice(itemNotice, fmt.Sprintf("%s: %s", req.Tool.Name, d))
	if d == Deny {
		m.chat.setStatus(req.Tool.ID, statusDenied)
	} else {
		m.chat.setStatus(req.Tool.ID, statusRunning)
	}
	return tea.Batch(replyCmd(req, d), m.armApproval())
}

// send submits the input: a command, or a prompt when no turn is running.
// Text that starts with a blank before its "/" is a prompt as typed, not a
// command, as -p " /text" is: the backend runs no custom command or MCP
// prompt for it either, as it reads one only at the text's first byte.
func (m *Model) send() tea.Cmd {
	raw := m.input.Value()
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	m.keepInput = false
	asTyped := strings.HasPrefix(text, "/") && !strings.HasPrefix(raw, "/")
	if !asTyped {
		if cmd, ok := m.command(text); ok {
			m.input.remember(text)
			if !m.keepInput {
				m.input.Reset()
			}
			return cmd
		}
	}
	if m.working {
		m.waitForTurn("a turn is running: esc cancels it")
		return nil
	}
	if asTyped {
		// One blank says it; the rest of the text is as typed.
		text = " " + text
	}
	m.input.remember(text)
	m.input.Reset()
	return m.submit(text)
}

func (m *Model) submit(text string) tea.Cmd {
	m.sent = text
	m.chat.newTurn()
	m.pane.newTurn()
	m.chat.add(&chatItem{kind: itemUser, text: text})
	m.chat.ToBottom()
	m.working = true
	m.started = m.opts.Now()
	m.hint = ""
	m.status.SetNote("")
	turns := m.turns
	b := m.b
	return tea.Batch(func() tea.Msg {
		full, images, att := attach(text, isResourceRef(b))
		full = attachResources(b, full, &att)
		if len(images) > 0 {
			if err := checkImages(b, images); err != nil {
				return refusedMsg{prompt: text, err: err, att: att}
			}
		}
		if turns != nil {
			turns.Start(agent.Input{Text: full, Images: images})
		}
		if len(att.notes)+len(att.warnings)+len(att.images) == 0 {
			return nil
		}
		return att
	}, m.spin.Tick)
}

// waitForTurn refuses what was sent while a turn runs: the hint says so
// until the turn ends, and the text stays in the input to send then (a
// /mcp reconnect or custom command was cleared from it and not run).
func (m *Model) waitForTurn(hint string) {
	m.hint, m.turnHint, m.keepInput = hint, hint, true
}

func (m *Model) cancelTurn() tea.Cmd {
	m.hint = "cancelling… what arrived is kept"
	m.chat.interrupt()
	turns := m.turns
	return func() tea.Msg {
		if turns != nil {
			turns.Cancel()
		}
		return nil
	}
}

func (m *Model) endTurn() tea.Cmd {
	if !m.working {
		return nil
	}
	m.working = false
	m.catalogSince, m.catalogNames = time.Time{}, ""
	m.chat.endTurn()
	if strings.HasPrefix(m.hint, "cancelling") || (m.hint != "" && m.hint == m.turnHint) {
		m.hint = ""
	}
	m.turnHint = ""
	return m.refreshInfo()
}

// handleEvent applies one agent event.
func (m *Model) handleEvent(msg eventMsg) tea.Cmd {
	ev := msg.Event
	switch ev.Type {
	case agent.EventTextDelta:
		m.chat.appendDelta(ev.Text)
		if !m.flushPending {
			m.flushPending = true
			return tea.Tick(m.opts.RenderEvery, func(time.Time) tea.Msg { return flushMsg{} })
		}
	case agent.EventReasoningDelta:
		m.chat.appendReasoning(ev.Text)
		if !m.flushPending {
			m.flushPending = true
			return tea.Tick(m.opts.RenderEvery, func(time.Time) tea.Msg { return flushMsg{} })
		}
	case agent.EventSearchStarted, agent.EventSearchFinished:
		if ev.Search == nil {
			return nil
		}
		var s *searchEntry
		var created bool
		if ev.Type == agent.EventSearchStarted {
			s, created = m.pane.started(*ev.Search)
		} else {
			s, created = m.pane.finished(*ev.Search, msg.Found)
		}
		if created {
			s.line = m.chat.add(&chatItem{kind: itemSearch, search: s})
		}
		return m.spin.Tick
	case agent.EventToolStarted:
		if ev.Tool != nil {
			m.chat.toolStarted(*ev.Tool)
			if msg.Unlisted {
				m.chat.cards[ev.Tool.ID].card.Unlisted = true
			}
			m.pane.called("", ev.Tool.Name, statusRunning, 0)
		}
	case agent.EventToolFinished:
		if ev.Tool != nil {
			st := m.chat.toolFinished(*ev.Tool)
			m.pane.called("", ev.Tool.Name, st, ev.Tool.Duration)
		}
	case agent.EventToolProgress:
		if ev.Progress != nil {
			m.chat.toolProgress(*ev.Progress)
		}
	case agent.EventServerTool:
		if ev.ServerTool != nil {
			m.chat.serverTool(*ev.ServerTool, false)
		}
	case agent.EventApproval:
		if ev.Tool != nil {
			m.hint = "waiting for your approval of " + ev.Tool.Name
			if ev.Tool.Agent != "" {
				m.hint += " (subagent " + ev.Tool.Agent + ")"
			}
			m.chat.setStatus(ev.Tool.ID, statusWaiting)
		}
	case agent.EventSubagentStarted, agent.EventSubagentEvent, agent.EventSubagentFinished:
		return m.subagentEvent(ev, msg.Found)
	case agent.EventMessage:
		if ev.Message != nil && ev.Message.Role == agent.RoleAssistant {
			m.chat.finishMessage(*ev.Message)
		}
	case agent.EventUsage:
		if ev.Usage != nil {
			m.status.usage(*ev.Usage)
		}
	case agent.EventCatalogWait:
		m.catalogSince, m.catalogNames = m.opts.Now(), ev.Text
		return m.spin.Tick
	case agent.EventCatalogReady:
		m.catalogSince, m.catalogNames = time.Time{}, ""
	case agent.EventWarning:
		m.chat.notice(itemWarning, ev.Text)
	case agent.EventNotice:
		m.chat.notice(itemNotice, ev.Text)
	case agent.EventCompacted:
		if ev.Compaction != nil {
			m.chat.notice(itemNotice, compactionNotice(*ev.Compaction))
		}
	case agent.EventError:
		switch {
		case errors.Is(ev.Err, agent.ErrCancelled):
			m.chat.notice(itemNotice, "turn cancelled; what arrived is kept")
		case errors.Is(ev.Err, agent.ErrBlocked):
			// Nothing was sent: the prompt goes back to the input to edit.
			m.chat.notice(itemError, ev.Err.Error())
			if m.input.Value() == "" {
				m.input.SetValue(m.sent)
			}
		case ev.Err != nil:
			m.chat.notice(itemError, ev.Err.Error())
		}
	case agent.EventDone:
		return m.endTurn()
	}
	return nil
}

// failed shows a command's error. A change the session refused because a
// turn runs (agent.ErrBusy) is a hint to wait, not an error: the backend
// decides, the TUI does not keep a rule of its own.
func (m *Model) failed(command, text string, err error) {
	if agent.KindOf(err) == agent.ErrBusy {
		m.hint = command + " waits for the turn to end: esc cancels it"
		return
	}
	m.chat.notice(itemError, text)
}

// handleResult applies the result of a command's tea.Cmd.
func (m *Model) handleResult(msg tea.Msg) (tea.Cmd, bool) {
	if cmd, ok := m.agentResult(msg); ok {
		return cmd, true
	}
	switch msg := msg.(type) {
	case infoMsg:
		m.status.setInfo(Info(msg))
		m.warnShadowed()
		m.pane.SetCounts(msg.Active, msg.Deferred)
	case modelSetMsg:
		if msg.Err != nil {
			m.failed("/model", "switch model: "+msg.Err.Error(), msg.Err)
			return nil, true
		}
		m.chat.notice(itemNotice, "model set to "+msg.Name)
		if msg.Near != "" {
			m.chat.notice(itemWarning, fmt.Sprintf("%s is not among the provider's models: did you mean %s? (/model %s)", msg.Name, msg.Near, msg.Near))
		} else if msg.Warning != "" {
			m.chat.notice(itemWarning, msg.Warning)
		}
		return m.refreshInfo(), true
	case toolsListMsg:
		m.chat.notice(itemNotice, toolsText(msg.Tools, msg.Filter))
	case searchDoneMsg:
		m.pane.manualDone(msg.ID, msg.Tools, msg.Err)
	case sessionsMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "list sessions: "+msg.Err.Error())
			return nil, true
		}
		if len(msg.Items) == 0 {
			// An empty picker read as broken (the demo, which lists its
			// own sessions only, has none at first).
			m.chat.notice(itemNotice, "no session to resume yet: a session is kept once something is said in it")
			return nil, true
		}
		if id := onlySession(msg.Items, msg.Filter); id != "" {
			// "/resume ID", as agent --resume ID and the line printed at
			// quit name it: the argument was ignored, and the picker
			// opened on every session.
			return resumeCmd(m.b, id), true
		}
		p := newPicker(m.st, pickSession, "Resume a session", sessionItems(msg.Items))
		p.filter = msg.Filter // narrowed to what was named
		p.refilter()
		m.openPicker(p)
	case fileListMsg:
		return m.applyFileList(msg), true
	case attachedMsg:
		return m.applyAttached(msg), true
	case refusedMsg:
		return m.applyRefused(msg), true
	case editorReadyMsg:
		return editorExec(msg, m.tty), true
	case modelsMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "list models: "+msg.Err.Error())
			return nil, true
		}
		var items []pickItem
		for _, mi := range msg.Models {
			items = append(items, pickItem{ID: mi.Name, Label: mi.Name, Detail: mi.Detail})
		}
		m.openPicker(newPicker(m.st, pickModel, "Switch model", items))
	case deletedMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "delete session "+shortID(msg.ID)+": "+msg.Err.Error())
			return nil, true
		}
		if m.picker != nil {
			m.picker.remove(msg.ID)
		}
	case exportedMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "export: "+msg.Err.Error())
			return nil, true
		}
		m.chat.notice(itemNotice, "transcript written to "+msg.Path)
	case editedMsg:
		if msg.Err != nil {
			m.chat.notice(itemError, "editor: "+msg.Err.Error())
			return nil, true
		}
		m.input.SetValue(strings.TrimRight(msg.Text, "\n"))
	case resumedMsg:
		if msg.Err != nil {
			m.failed("/sessions", "resume "+msg.ID+": "+msg.Err.Error(), msg.Err)
			return nil, true
		}
		m.chat.reset()
		m.committed = 0
		m.pane.reset()
		m.loadHistory(cleanMessages(msg.History), msg.Tools)
		m.status.SetNote(fmt.Sprintf("resumed · replaying %d messages", len(msg.History)))
		m.chat.notice(itemNotice, fmt.Sprintf("resumed %s · replaying %d messages", shortID(msg.ID), len(msg.History)))
		m.status.resetUsage()
		return m.refreshInfo(), true
	case newSessionMsg:
		if msg.Err != nil {
			m.failed(map[bool]string{false: "/new", true: "/clear"}[msg.cleared], "new session: "+msg.Err.Error(), msg.Err)
			return nil, true
		}
		m.chat.reset()
		m.committed = 0
		m.pane.reset()
		m.status.SetNote("")
		m.status.resetUsage()
		if msg.cleared {
			m.chat.clear()
			m.chat.notice(itemNotice, "cleared: a new session; /resume picks the old one")
			// The cleared screen's frame starts again at the top, and a
			// reprint at a new width starts from here.
			m.floor = 0
			m.forget()
			if !m.opts.AltScreen {
				// Inline, the conversation was printed above the frame,
				// which is all tea.ClearScreen erases: it stayed on the
				// screen. Cleared as a reflow clears it, with nothing to
				// print again.
				return tea.Batch(m.reflow(), m.refreshInfo()), true
			}
			return tea.Batch(tea.ClearScreen, m.refreshInfo()), true
		}
		m.chat.notice(itemNotice, "new session")
		return m.refreshInfo(), true
	default:
		return nil, false
	}
	return nil, true
}
