package tui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools/permission"
)

func TestSubmitStartsTurnAndKeepsHistory(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, turns, _ := newTestModel(t, b, 120, 40, Options{})
	for _, p := range []string{"first", "second"} {
		typeText(m, p)
		run(m, press(m, "enter"))
		m.Update(turnEndMsg{})
	}
	if got := strings.Join(turns.started, ","); got != "first,second" {
		t.Fatalf("turns started %q", got)
	}
	press(m, "up")
	if v := m.input.Value(); v != "second" {
		t.Fatalf("up: input %q, want second", v)
	}
	press(m, "up")
	press(m, "up")
	if v := m.input.Value(); v != "first" {
		t.Fatalf("up up: input %q, want first", v)
	}
	press(m, "down")
	press(m, "down")
	if v := m.input.Value(); v != "" {
		t.Fatalf("back to draft: input %q", v)
	}
}

func TestSendWhileWorkingIsRefused(t *testing.T) {
	t.Parallel()
	m, turns, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	typeText(m, "one")
	run(m, press(m, "enter"))
	typeText(m, "two")
	run(m, press(m, "enter"))
	if len(turns.started) != 1 || m.input.Value() != "two" {
		t.Fatalf("started %v, input %q: a second prompt must wait", turns.started, m.input.Value())
	}
}

func TestCancelKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"ctrl+c", "esc"} {
		b := newFakeBackend()
		m, turns, _ := newTestModel(t, b, 80, 24, Options{})
		typeText(m, "hi")
		run(m, press(m, "enter"))
		feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "partial answer"}})
		run(m, press(m, k))
		if turns.cancelled != 1 {
			t.Fatalf("%s: cancel not requested", k)
		}
		feed(m, b, []agent.Event{{Type: agent.EventError, Err: agent.WithKind(agent.ErrCancelled, errors.New("turn cancelled: context canceled"))}, {Type: agent.EventDone}})
		f := frame(m)
		if !strings.Contains(f, "partial answer") || !strings.Contains(f, "(interrupted)") {
			t.Fatalf("%s: frame lost the partial answer:\n%s", k, f)
		}
		if m.working {
			t.Fatalf("%s: still working after done", k)
		}
	}
}

func TestCtrlCTwiceOnIdleQuits(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	// An arming numbers itself (quitGen); a quit does not.
	arms := func() bool { g := m.quitGen; press(m, "ctrl+c"); return m.quitGen == g+1 }
	if !arms() {
		t.Fatal("first ctrl+c must arm, not quit")
	}
	if !strings.Contains(frame(m), quitHint) {
		t.Fatal("first ctrl+c shows no hint")
	}
	press(m, "esc") // any other key disarms
	if !arms() {
		t.Fatal("ctrl+c after another key must arm again, not quit")
	}
	cmd := press(m, "ctrl+c")
	if cmd == nil {
		t.Fatal("second ctrl+c did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("second ctrl+c did not return tea.Quit")
	}
}

// The first ctrl+c's moment passes (quitWindow): the hint goes and the
// next ctrl+c arms again rather than quit; an earlier arming's expiry
// leaves a later one armed.
func TestCtrlCHintExpires(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		stale    bool // the expiry is of an earlier arming
		wantHint bool
	}{
		{"expired", false, false},
		{"earlier arming's expiry", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
			press(m, "ctrl+c")
			if tc.stale {
				press(m, "esc")
				press(m, "ctrl+c")
			}
			m.Update(quitExpiredMsg{map[bool]int{true: m.quitGen - 1, false: m.quitGen}[tc.stale]})
			if got := strings.Contains(frame(m), quitHint); got != tc.wantHint {
				t.Fatalf("hint shown %v, want %v:\n%s", got, tc.wantHint, frame(m))
			}
			g := m.quitGen
			cmd := press(m, "ctrl+c")
			if quit := m.quitGen == g; quit != tc.wantHint {
				t.Errorf("ctrl+c quit %v, want %v", quit, tc.wantHint)
			}
			if tc.wantHint {
				if _, ok := cmd().(tea.QuitMsg); !ok {
					t.Error("ctrl+c within the moment did not return tea.Quit")
				}
			}
		})
	}
}

func TestStreamingIsThrottled(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	run(m, func() tea.Msg { typeText(m, "hi"); return nil })
	press(m, "enter")
	var ticks int
	for i := 0; i < 50; i++ {
		if _, cmd := m.Update(eventMsg{Event: agent.Event{Type: agent.EventTextDelta, Text: "word "}}); cmd != nil {
			ticks++
		}
	}
	if ticks != 1 {
		t.Fatalf("50 deltas scheduled %d renders, want 1", ticks)
	}
	it := m.chat.stream[0]
	before := it.version
	m.View()
	if it.version != before {
		t.Fatal("a frame re-rendered streaming text before the flush")
	}
	m.Update(flushMsg{})
	if it.version == before || !strings.Contains(frame(m), "word word") {
		t.Fatal("flush did not render the streamed text")
	}
}

func TestApprovalAnswers(t *testing.T) {
	t.Parallel()
	mcp := agent.ToolEvent{Name: "fs__rm", Server: "fs"}
	builtin := agent.ToolEvent{Name: "rm"}
	asked := agent.ToolEvent{Name: "fs__rm", Server: "fs", Permission: &permission.Decision{Behavior: permission.Ask, Source: permission.SourceRule, Rule: "fs__*"}}
	tests := []struct {
		keys string
		tool agent.ToolEvent
		want []Decision // nil: the dialog stays open
	}{
		{"y", mcp, []Decision{Allow}},
		{"n", mcp, []Decision{Deny}},
		{"esc", mcp, []Decision{Deny}},
		{"a 1", mcp, []Decision{AllowAlways}},
		{"a enter", mcp, []Decision{AllowAlways}},
		{"a 2", mcp, []Decision{AllowToolProject}},
		{"a 3", mcp, []Decision{AllowToolUser}},
		{"a 4", mcp, []Decision{AllowServer}},
		{"a 5", mcp, []Decision{AllowServerProject}},
		{"a 6", mcp, []Decision{AllowServerUser}},
		{"a esc n", mcp, []Decision{Deny}},
		{"a x", mcp, nil},
		// A built-in tool has no server to allow.
		{"a 4", builtin, nil},
		{"a 3", builtin, []Decision{AllowToolUser}},
		// An explicit ask rule would ask again: "always" is not offered.
		{"a", asked, nil},
		{"a 1", asked, nil},
		{"a y", asked, []Decision{Allow}},
		{"a ctrl+c", mcp, []Decision{Deny}},
	}
	sampling := ApprovalRequest{Tool: agent.ToolEvent{Name: "sample m for fs", Server: "fs"}, SessionOnly: true,
		Question: "Let MCP server fs sample m?"}
	for _, tt := range tests {
		m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
		var got []Decision
		m.Update(approvalMsg{Req: ApprovalRequest{Tool: tt.tool, Reply: func(d Decision) { got = append(got, d) }}})
		press(m, "q") // ignored while asking
		for _, k := range strings.Fields(tt.keys) {
			run(m, press(m, k))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("keys %q on %s: replies %v, want %v", tt.keys, tt.tool.Name, got, tt.want)
		}
		if open := len(m.approvals) != 0; open != (tt.want == nil) {
			t.Errorf("keys %q: dialog open %v", tt.keys, open)
		}
	}
	// A sampling request's "always" is its server's, this session: one key.
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	var got []Decision
	sampling.Reply = func(d Decision) { got = append(got, d) }
	m.Update(approvalMsg{Req: sampling})
	// It asks its own question: "Allow this tool call? sample m for fs ·
	// fs" called it a tool call and named the server twice.
	if f := frame(m); !strings.Contains(f, "a always, this session") || !strings.Contains(f, "Let MCP server fs sample m?") ||
		strings.Contains(f, "Allow this tool call") {
		t.Errorf("sampling dialog:\n%s", f)
	}
	run(m, press(m, "a"))
	if !reflect.DeepEqual(got, []Decision{AllowServer}) || len(m.approvals) != 0 {
		t.Errorf("sampling: replies %v, open %v", got, len(m.approvals) != 0)
	}
}

func TestPaneLinksCallsToSearches(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "weather")
	press(m, "enter")
	feed(m, b, conversation())
	if n := m.pane.discovered(); n != 2 {
		t.Fatalf("discovered %d, want 2", n)
	}
	c := m.pane.searches[0].Calls["weather_forecast"]
	if c == nil || c.Status != statusOK || c.Duration != 120*time.Millisecond {
		t.Fatalf("call not linked to its search: %+v", c)
	}
	if m.pane.searches[0].Found[0].Server != "weather" {
		t.Fatal("found tools are not described")
	}
}

func TestNarrowFoldsPaneBelow(t *testing.T) {
	t.Parallel()
	for _, w := range []int{99, 100} {
		m, _, _ := newTestModel(t, newFakeBackend(), w, 30, Options{})
		f := strings.Split(frame(m), "\n")
		below := strings.HasPrefix(f[m.chat.height], "│ Discovered tools")
		if below != (w < narrowWidth) {
			t.Errorf("width %d: pane below chat = %v", w, below)
		}
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.history = history()
	m, turns, _ := newTestModel(t, b, 120, 40, Options{})
	do := func(s string) {
		typeText(m, s)
		run(m, press(m, "enter"))
	}
	do("/model big-2")
	if b.model != "big-2" || !strings.Contains(frame(m), "fake/big-2") {
		t.Fatalf("/model: backend %q, status not updated", b.model)
	}
	do("/tools weather")
	if f := frame(m); !strings.Contains(f, "0 active, 2 deferred") {
		t.Fatalf("/tools filter:\n%s", f)
	}
	do("/search forecast")
	if s := m.pane.searches[len(m.pane.searches)-1]; !s.Manual || s.Running || len(s.Found) != 2 {
		t.Fatalf("/search not shown in pane: %+v", s)
	}
	if len(turns.started) != 0 {
		t.Fatal("a command reached the model")
	}
	do("/sessions")
	if m.picker == nil || len(m.picker.all) != 2 {
		t.Fatal("/sessions opened no picker")
	}
	press(m, "down")
	run(m, press(m, "enter"))
	if m.picker != nil || !strings.Contains(frame(m), "resumed · replaying 6 messages") {
		t.Fatalf("resume from picker failed:\n%s", frame(m))
	}
	if len(m.pane.searches) != 1 || m.pane.searches[0].Query != "weather forecast paris" {
		t.Fatal("resumed pane does not show past searches")
	}
	do("/clear")
	if len(m.chat.items) != 1 || b.newCalls != 1 || len(m.pane.searches) != 0 {
		t.Fatalf("/clear kept %d items, New called %d times", len(m.chat.items), b.newCalls)
	}
	do("/new")
	if b.newCalls != 2 || len(m.pane.searches) != 0 {
		t.Fatal("/new did not reset")
	}
	typeText(m, "/quit")
	cmd := press(m, "enter")
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("/quit did not quit")
	}
}

func TestScrollKeysAndWheel(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	for i := 0; i < 30; i++ {
		m.chat.notice(itemNotice, "line")
	}
	press(m, "pgup")
	if m.chat.offset == 0 {
		t.Fatal("pgup did not scroll")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	press(m, "pgdown")
	press(m, "pgdown")
	if m.chat.offset != 0 {
		t.Fatalf("offset %d after scrolling back down", m.chat.offset)
	}
	for i := 0; i < 100; i++ {
		m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	}
	if all, _ := m.chat.window(); m.chat.offset != len(all)-m.chat.height {
		t.Fatalf("wheel scrolled past the top: offset %d of %d lines", m.chat.offset, len(all))
	}
}

// programRecorder stands in for tea.Program in bridge tests.
type programRecorder struct {
	mu     sync.Mutex
	msgs   []tea.Msg
	notify chan struct{}
}

func (p *programRecorder) Send(m tea.Msg) {
	p.mu.Lock()
	p.msgs = append(p.msgs, m)
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

func (p *programRecorder) snapshot() []tea.Msg {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]tea.Msg(nil), p.msgs...)
}

func TestBridgeForwardsTurnAndApprovals(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.script = conversation()
	b.approvals = make(chan ApprovalRequest, 1)
	p := &programRecorder{notify: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	br := newBridge(ctx, b, p)
	go br.run()
	defer br.stop()
	br.Start(agent.Input{Text: "hello"})
	b.approvals <- ApprovalRequest{Tool: agent.ToolEvent{Name: "rm"}}
	deadline := time.After(5 * time.Second)
	for {
		msgs := p.snapshot()
		var ended, asked bool
		var text strings.Builder
		var found []ToolInfo
		for _, m := range msgs {
			switch m := m.(type) {
			case turnEndMsg:
				ended = true
			case approvalMsg:
				asked = true
			case eventMsg:
				if m.Event.Type == agent.EventTextDelta {
					text.WriteString(m.Event.Text)
				}
				if m.Found != nil {
					found = m.Found
				}
			}
		}
		if ended && asked {
			if !strings.HasPrefix(text.String(), "Let me find a weather tool.") {
				t.Fatalf("deltas lost: %q", text.String())
			}
			if len(found) != 2 || found[0].Server != "weather" {
				t.Fatalf("search result not described: %+v", found)
			}
			return
		}
		select {
		case <-p.notify:
		case <-deadline:
			t.Fatalf("bridge delivered %d messages, ended=%v asked=%v", len(msgs), ended, asked)
		}
	}
}

func TestCancelThenPartialMessageMakesOneItem(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "hi")
	press(m, "enter")
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "half an ans"}})
	run(m, press(m, "esc"))
	partial := agent.Message{Role: agent.RoleAssistant, Interrupted: true, Parts: []agent.Part{agent.TextPart("half an ans")}}
	feed(m, b, []agent.Event{{Type: agent.EventMessage, Message: &partial}, {Type: agent.EventError, Err: agent.WithKind(agent.ErrCancelled, errors.New("turn cancelled"))}, {Type: agent.EventDone}})
	if n := strings.Count(frame(m), "◆ assistant"); n != 1 {
		t.Fatalf("%d assistant items after cancel, want 1:\n%s", n, frame(m))
	}
}

func TestThemeFollowsBackgroundAndNoColor(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{Theme: "auto"})
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.st.Palette.Name != "light" {
		t.Fatalf("auto theme on a white background is %s", m.st.Palette.Name)
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if m.st.Palette.Name != "dark" {
		t.Fatalf("auto theme on a black background is %s", m.st.Palette.Name)
	}
	nc, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{Theme: "dracula", NoColor: true})
	nc.Update(tea.BackgroundColorMsg{Color: color.White})
	if !nc.st.NoColor {
		t.Fatal("NoColor lost")
	}
	if _, err := New(newFakeBackend(), Options{Theme: "nope"}); err == nil {
		t.Fatal("unknown theme accepted")
	}
}

func TestScrolledUpViewStaysPut(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	for i := 0; i < 40; i++ {
		m.chat.notice(itemNotice, fmt.Sprintf("line %d", i))
	}
	press(m, "pgup")
	before := m.chat.View()
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "new text\n\nmore\n\nand more"}})
	m.chat.add(&chatItem{kind: itemNotice, text: "another"})
	m.chat.reanchor()
	if after := m.chat.View(); after != before {
		t.Fatalf("content arriving below moved the scrolled view:\n%s\n---\n%s", before, after)
	}
	press(m, "pgdown")
	press(m, "pgdown")
	press(m, "pgdown")
	if !strings.Contains(m.chat.View(), "another") {
		t.Fatal("back at the bottom the new content is not shown")
	}
}

func TestPasteAndInitialPrompt(t *testing.T) {
	t.Parallel()
	m, turns, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{Prompt: "first question"})
	m.Update(tea.PasteMsg{Content: "line one\nline two"})
	if v := m.input.Value(); v != "line one\nline two" {
		t.Fatalf("paste: input %q", v)
	}
	run(m, m.Init())
	if len(turns.started) != 1 || turns.started[0] != "first question" || !m.working {
		t.Fatalf("initial prompt not sent: %v", turns.started)
	}
}

func TestTinyTerminalsDoNotPanic(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1, 1}, {10, 4}, {20, 8}, {40, 10}, {99, 12}} {
		b := newFakeBackend()
		m, _, _ := newTestModel(t, b, sz[0], sz[1], Options{History: history()})
		typeText(m, "hello")
		press(m, "enter")
		feed(m, b, conversation())
		press(m, "ctrl+o")
		press(m, "pgup")
		m.Update(approvalMsg{Req: ApprovalRequest{Tool: agent.ToolEvent{Name: "x"}}})
		_ = m.View()
	}
}

// The backend refuses a session change during a turn (agent.ErrBusy); the
// TUI says to wait rather than show an error.
func TestSessionCommandsWaitForTheTurn(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "go")
	press(m, "enter")
	b.mu.Lock()
	b.busy = true
	b.mu.Unlock()
	for _, c := range []string{"/new", "/model x"} {
		typeText(m, c)
		run(m, press(m, "enter"))
		if !strings.Contains(frame(m), strings.Fields(c)[0]+" waits for the turn to end") {
			t.Fatalf("%s: no hint in\n%s", c, frame(m))
		}
	}
	if b.newCalls != 0 || b.model != "" {
		t.Fatal("a session command ran during a turn")
	}
}

func TestSuggestionsListedAndRecalled(t *testing.T) {
	t.Parallel()
	sugg := []string{"weather in Lisbon", "convert 250 EUR"}
	tests := []struct {
		name    string
		history []agent.Message
		listed  bool
	}{
		{name: "fresh", listed: true},
		// A resumed session shows its history, not the list; ↑ still works.
		{name: "resumed", history: history(), listed: false},
	}
	for _, tt := range tests {
		m, _, _ := newTestModel(t, newFakeBackend(), 120, 40, Options{Suggestions: sugg, History: tt.history})
		if got := strings.Contains(frame(m), "• convert 250 EUR"); got != tt.listed {
			t.Errorf("%s: suggestions listed = %v, want %v", tt.name, got, tt.listed)
		}
		// ↑ walks the list in the order it is shown.
		for _, want := range sugg {
			press(m, "up")
			if v := m.input.Value(); v != want {
				t.Errorf("%s: up: input %q, want %q", tt.name, v, want)
			}
		}
	}
}
