package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/themes"
)

// #18 bug 1: after a resume, a new turn that reuses the history's call ids
// (the demo and many local servers number them per process) gets its own
// search line and tool card; nothing merges into the old ones.
func TestResumedIDsRepeatInANewTurn(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{History: history()})
	typeText(m, "and again?")
	run(m, press(m, "enter"))
	feed(m, b, conversation())
	var cards, searches int
	for _, it := range m.chat.items {
		switch it.kind {
		case itemTool:
			cards++
		case itemSearch:
			searches++
		}
	}
	if cards != 2 || searches != 2 {
		t.Fatalf("cards %d, searches %d in the chat; want 2 and 2 (one per turn)", cards, searches)
	}
	if len(m.pane.searches) != 2 {
		t.Fatalf("pane has %d searches, want 2", len(m.pane.searches))
	}
	f := frame(m)
	if strings.Contains(f, "×2") {
		t.Errorf("the pane merged the two turns' calls:\n%s", f)
	}
	if strings.Count(f, "weather forecast paris") < 2 {
		t.Errorf("the new turn's search is hidden:\n%s", f)
	}
}

// #18 bug 4: /clear while an answer streams keeps the streamed item whole,
// so the Markdown after the clear is not restarted mid-block.
func TestClearDuringStreamKeepsTheAnswerWhole(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "code?")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "Here:\n\n```go\nfunc a() {\n"}})
	typeText(m, "/clear")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "x := 1\ny := 2\n}\n```\n"}})
	f := frame(m)
	for _, l := range strings.Split(f, "\n") {
		if strings.Contains(l, "x := 1") && strings.Contains(l, "y := 2") {
			t.Fatalf("the code after /clear ran together:\n%s", f)
		}
	}
	// #27: /clear starts a new conversation, so it waits for the turn.
	if !strings.Contains(f, "func a() {") || !strings.Contains(f, "/clear waits for the turn to end") {
		t.Fatalf("/clear during a turn should wait and keep the streaming answer:\n%s", f)
	}
}

// #27: /clear starts a new conversation (the old one stays stored) on a
// clear screen, as in Claude Code and Codex.
func TestClearStartsNewConversation(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, rec := newInlineModel(t, b, 80, 24, Options{})
	typeText(m, "hello")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "Hi."}, {Type: agent.EventDone}})
	typeText(m, "/clear")
	run(m, press(m, "enter"))
	if b.newCalls != 1 {
		t.Fatalf("/clear called New %d times, want 1", b.newCalls)
	}
	m.View()
	if f := frame(m); strings.Contains(f, "Hi.") {
		t.Errorf("after /clear the screen still shows the answer:\n%s", f)
	}
	if sb := rec.String(); !strings.Contains(sb, "cleared: a new session") {
		t.Errorf("no line says the conversation was cleared:\n%s", sb)
	}
	// The terminal was cleared too: inline, the answer printed above the
	// frame stayed on the screen.
	if sb := rec.String(); rec.clears != 1 || strings.Contains(sb, "Hi.") {
		t.Errorf("after /clear the terminal (%d clears) still holds the answer:\n%s", rec.clears, sb)
	}
}

// /search results are matched by the search's id: two searches for the
// same text each get their own result.
func TestManualSearchesKeyedByID(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "/search weather")
	first := press(m, "enter")
	typeText(m, "/search weather")
	second := press(m, "enter")
	run(m, second)
	if s := m.pane.searches; len(s) != 2 || !s[0].Running || s[1].Running {
		t.Fatalf("the second result went to the wrong search: %+v %+v", s[0], s[1])
	}
	run(m, first)
	if s := m.pane.searches; s[0].Running {
		t.Fatal("the first search never finished")
	}
}

// /search with no tool deferred says why it finds nothing: it looks
// through the deferred tools only, and "→ 0 tools" read as if no tool
// fitted the query.
func TestManualSearchWithNothingDeferred(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.info.Deferred = 0
	m, _, _ := newTestModel(t, b, 200, 40, Options{})
	typeText(m, "/search weather")
	run(m, press(m, "enter"))
	if f := frame(m); !strings.Contains(f, "no tool is deferred, so /search has nothing to look through") || strings.Contains(f, "→ 0 tools") {
		t.Fatalf("/search with nothing deferred:\n%s", f)
	}
	if len(m.pane.searches) != 0 {
		t.Errorf("a search was run: %+v", m.pane.searches)
	}
}

// #18 bug 3: startup warnings are said once in the chat; the status bar
// keeps the session id and the token figures, and every warning shows.
func TestStartupWarningsGoToTheChat(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	warns := []string{"server gh failed to start: exit status 1", "tools take 30000 tokens, over the threshold"}
	m, _, _ := newTestModel(t, b, 120, 40, Options{Warnings: warns})
	f := frame(m)
	for _, w := range warns {
		if !strings.Contains(f, w) {
			t.Errorf("warning %q not shown:\n%s", w, f)
		}
	}
	bar := m.status.View(m.st, 120)
	if !strings.Contains(bar, "sess 01234567") || !strings.Contains(bar, "Σ") {
		t.Errorf("status bar lost its figures: %q", bar)
	}
}

// #18 bug 5: every size keeps a usable chat and a whole input box; the
// status bar keeps the context fill and the cost at 80 columns and the
// session total and cache share at 120, and cuts with an ellipsis.
func TestSmallTerminalsKeepChatInputAndFigures(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{40, 12}, {20, 6}, {80, 24}} {
		b := newFakeBackend()
		m, _, _ := newTestModel(t, b, sz[0], sz[1], Options{})
		typeText(m, "hi")
		run(m, press(m, "enter"))
		feed(m, b, conversation())
		f := frame(m)
		lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		if min := map[int]int{12: 5, 6: 2, 24: 10}[sz[1]]; m.chat.height < min {
			t.Errorf("%dx%d: the chat has %d rows, want at least %d:\n%s", sz[0], sz[1], m.chat.height, min, f)
		}
		if !strings.Contains(f, "╰") || !strings.Contains(f, "╭") {
			t.Errorf("%dx%d: the input box is cut:\n%s", sz[0], sz[1], f)
		}
	}
	b := newFakeBackend()
	b.info.Model = "claude-sonnet-4-5-20250929-with-a-very-long-deployment-name"
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	feed(m, b, conversation())
	bar := ansi.Strip(m.status.View(m.st, 80))
	for _, want := range []string{"ctx 0%", "$", "Σ", "…"} {
		if !strings.Contains(bar, want) {
			t.Errorf("80 columns: %q missing from %q", want, bar)
		}
	}
	// #27: the model name stays whole before the session id, search mode,
	// last request and savings are kept.
	bar = ansi.Strip(m.status.View(m.st, 120))
	for _, want := range []string{"ctx", "Σ 3.8k↑ 130↓", "cache 60%", b.info.Model} {
		if !strings.Contains(bar, want) {
			t.Errorf("120 columns: %q missing from %q", want, bar)
		}
	}
	bar = ansi.Strip(m.status.View(m.st, 40))
	if !strings.Contains(bar, "ctx") || !strings.Contains(bar, "$") {
		t.Errorf("40 columns: %q lost the context fill or the cost", bar)
	}
}

// #18 bug 7: a card waiting for approval says so; a denied call says
// "denied", not "failed"; "saved" appears with the first request and grows.
func TestApprovalCardStatesAndSavedFigure(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	if bar := ansi.Strip(m.status.View(m.st, 200)); strings.Contains(bar, "saved") {
		t.Errorf("saved shown before any request: %q", bar)
	}
	typeText(m, "delete it")
	run(m, press(m, "enter"))
	call := &agent.ToolEvent{ID: "c9", Name: "delete_file", Server: "fs", Input: []byte(`{"path":"/tmp/x"}`)}
	feed(m, b, []agent.Event{
		{Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 10}},
		{Type: agent.EventToolStarted, Tool: call},
		{Type: agent.EventApproval, Tool: call},
	})
	m.Update(approvalMsg{Req: ApprovalRequest{Tool: *call}})
	if f := frame(m); !strings.Contains(f, "awaiting approval") || strings.Contains(f, "running") {
		t.Errorf("the card does not say it waits for approval:\n%s", f)
	}
	saved1 := ansi.Strip(m.status.View(m.st, 200))
	run(m, press(m, "n"))
	done := *call
	done.IsError, done.Result, done.Duration = true, "the user denied this tool call", 6800*time.Millisecond
	feed(m, b, []agent.Event{{Type: agent.EventToolFinished, Tool: &done}, {Type: agent.EventUsage, Usage: &agent.Usage{InputTokens: 10}}})
	f := frame(m)
	if !strings.Contains(f, "denied") || strings.Contains(f, "failed") {
		t.Errorf("a denied call shows as failed:\n%s", f)
	}
	saved2 := ansi.Strip(m.status.View(m.st, 200))
	if !strings.Contains(saved1, "saved ~12.3k") || !strings.Contains(saved2, "saved ~24.7k") {
		t.Errorf("saved does not grow with requests: %q then %q", saved1, saved2)
	}
}

// #18 bug 8: code is framed with its language and long lines continue
// inside the frame; list items hang under their text; heading markers are
// hidden; a table is held back while its rows stream, then drawn once.
func TestMarkdownLayout(t *testing.T) {
	t.Parallel()
	st, _ := themes.Get("dark")
	md := newMarkdown(st)
	text := "## Steps\n\n1. Install the package with the system package manager of your distribution first.\n2. Run it.\n\n```go\nfunc main() { fmt.Println(\"a very long line of code that goes past the width of the terminal\") }\n```\n"
	out := make([]string, 0)
	for _, l := range md.render(text, 50) {
		out = append(out, ansi.Strip(l))
	}
	joined := strings.Join(out, "\n")
	if strings.Contains(joined, "##") {
		t.Errorf("heading marker shown:\n%s", joined)
	}
	if !strings.Contains(joined, "  1. Install the package") || !strings.Contains(joined, "\n     ") {
		t.Errorf("no hanging indent under the list item's text:\n%s", joined)
	}
	inCode := false
	for _, l := range out {
		switch {
		case strings.HasPrefix(l, "  ╭─ go "):
			inCode = true
		case strings.HasPrefix(l, "  ╰"):
			inCode = false
		case inCode && !strings.HasPrefix(l, "  │ "):
			t.Errorf("a code line left the frame: %q\n%s", l, joined)
		}
		if ansi.StringWidth(l) > 50 {
			t.Errorf("line wider than 50: %q", l)
		}
	}
	if !strings.Contains(joined, "╭─ go ") || !strings.Contains(joined, "↪") {
		t.Errorf("code block not framed with its language and continuation marks:\n%s", joined)
	}

	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "table?")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "Here:\n\n| day | high |\n|---|---|\n| Thu | 14 |\n"}})
	if f := frame(m); strings.Contains(f, "| Thu") || strings.Contains(f, "Thu") || !strings.Contains(f, "table") {
		t.Errorf("a streaming table shows raw rows:\n%s", f)
	}
	feed(m, b, []agent.Event{{Type: agent.EventTextDelta, Text: "| Fri | 12 |\n\nDone."}})
	if f := frame(m); !strings.Contains(f, "Thu") || !strings.Contains(f, "Fri") || strings.Contains(f, "| Thu") {
		t.Errorf("the finished table is not drawn:\n%s", f)
	}
}

// #18 bug 7: a search by name shows the names, not the wire's select:[…].
func TestSelectSearchShowsNames(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{`select:["catalog_11","gh"]`: "select catalog_11, gh", "select:a,b": "select a, b", "weather": "“weather”"} {
		if got := quote(q); got != want {
			t.Errorf("quote(%s) = %s, want %s", q, got, want)
		}
	}
}
