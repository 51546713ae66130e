package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
)

func (f *fakeBackend) Delete(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keep []SessionInfo
	for _, s := range f.sessions {
		if s.ID != id {
			keep = append(keep, s)
		}
	}
	f.sessions = keep
	return nil
}

func (f *fakeBackend) Models(context.Context) ([]ModelInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listed++
	// The current model first, as the real backend lists it.
	cur := f.info.Model
	out := []ModelInfo{{Name: cur, Detail: "current"}}
	for _, n := range []string{"fake-1", "big-2", "small-3"} {
		if n != cur {
			out = append(out, ModelInfo{Name: n})
		}
	}
	return out, nil
}

// ModelWarning stands for the real backend's tables, which know the
// models Models lists and no other.
func (f *fakeBackend) ModelWarning() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.model {
	case "", "fake-1", "big-2", "small-3":
		return ""
	}
	return f.model + " is not a model the agent knows for fake: it is sent as is"
}

var (
	_ SessionDeleter = (*fakeBackend)(nil)
	_ ModelLister    = (*fakeBackend)(nil)
	_ ModelWarner    = (*fakeBackend)(nil)
)

func pressKey(m *Model, k tea.KeyPressMsg) tea.Cmd {
	_, cmd := m.Update(k)
	return cmd
}

var (
	tabKey   = tea.KeyPressMsg{Code: tea.KeyTab}
	ctrlD    = tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	backspce = tea.KeyPressMsg{Code: tea.KeyBackspace}
)

// ctrl+c on a draft clears it; only an empty prompt arms quitting.
func TestCtrlCClearsADraft(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	typeText(m, "half a thought")
	if cmd := press(m, "ctrl+c"); cmd != nil || m.input.Value() != "" || m.quitArmed {
		t.Fatalf("ctrl+c on a draft: input %q, armed %v", m.input.Value(), m.quitArmed)
	}
	press(m, "ctrl+c")
	if !m.quitArmed {
		t.Fatal("ctrl+c on the empty prompt does not arm quit")
	}
}

// "/mo" + Tab completes to "/model "; several candidates show above the
// input and Tab cycles through them.
func TestSlashCompletion(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	typeText(m, "/mo")
	if f := frame(m); !strings.Contains(f, "/model") || !strings.Contains(f, "switch the model") {
		t.Errorf("the candidate is not shown:\n%s", f)
	}
	pressKey(m, tabKey)
	if v := m.input.Value(); v != "/model " {
		t.Fatalf("tab: input %q, want %q", v, "/model ")
	}
	m.input.Reset()
	typeText(m, "/c")
	if f := frame(m); !strings.Contains(f, "/clear") || !strings.Contains(f, "/cost") || !strings.Contains(f, "/context") {
		t.Errorf("candidates not listed:\n%s", f)
	}
	pressKey(m, tabKey)
	first := m.input.Value()
	pressKey(m, tabKey)
	if second := m.input.Value(); first == second || !strings.HasPrefix(first, "/c") || !strings.HasPrefix(second, "/c") {
		t.Errorf("tab does not cycle: %q then %q", first, second)
	}
}

// @path completes file names and attaches the file's text to the prompt.
func TestAtPathCompletesAndAttaches(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newFakeBackend()
	m, turns, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "summarise @no")
	run(m, pressKey(m, tabKey))
	if v := m.input.Value(); v != "summarise @notes.txt " {
		t.Fatalf("@ completion: %q", v)
	}
	run(m, press(m, "enter"))
	if len(turns.started) != 1 || !strings.Contains(turns.started[0], "<file path=\"notes.txt\">\nline one\nline two\n</file>") {
		t.Fatalf("the file was not attached: %q", turns.started)
	}
	// Two lines: the newline that ends the last one starts no third.
	if f := frame(m); !strings.Contains(f, "attached @notes.txt (2 lines)") {
		t.Errorf("no note of the attachment:\n%s", f)
	}
}

// /model with no name opens a filterable picker; enter switches.
func TestModelPicker(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "/model")
	run(m, press(m, "enter"))
	if m.picker == nil || m.picker.kind != pickModel {
		t.Fatal("/model opened no picker")
	}
	typeText(m, "big")
	if f := frame(m); !strings.Contains(f, "big-2") || strings.Contains(f, "small-3") {
		t.Errorf("filter does not narrow:\n%s", f)
	}
	run(m, press(m, "enter"))
	if b.model != "big-2" || m.picker != nil {
		t.Fatalf("picked model %q", b.model)
	}
	// A model picked from the list is switched to at once: not listed
	// again first to see whether it is a typo (a request to the
	// provider, up to 5 s, before the switch).
	if b.listed != 1 {
		t.Errorf("the provider's models were listed %d times for one pick, want 1 (the picker's)", b.listed)
	}
}

// The session picker filters, previews, deletes (ctrl+d twice).
func TestSessionPickerFiltersPreviewsDeletes(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 100, 30, Options{})
	typeText(m, "/sessions")
	run(m, press(m, "enter"))
	typeText(m, "money")
	f := frame(m)
	if strings.Contains(f, "aaaaaaaa") || !strings.Contains(f, "bbbbbbbb") || !strings.Contains(f, "session bbbbbbbb-2222 · fake-1") {
		t.Fatalf("filter or preview wrong:\n%s", f)
	}
	pressKey(m, ctrlD)
	if !strings.Contains(frame(m), "ctrl+d again deletes") {
		t.Fatal("no confirmation asked")
	}
	run(m, pressKey(m, ctrlD))
	if len(b.sessions) != 1 || len(m.picker.all) != 1 {
		t.Fatalf("not deleted: backend %d, picker %d", len(b.sessions), len(m.picker.all))
	}
	for range 5 {
		pressKey(m, backspce)
	}
	if f := frame(m); !strings.Contains(f, "aaaaaaaa") {
		t.Errorf("clearing the filter does not list the rest:\n%s", f)
	}
}

// A session's row keeps its id, date and message count in a narrow
// terminal; the model and title after them are cut first. At 60 columns
// the count read "…" (the label was cut at half the width).
func TestSessionPickerRowsKeepTheirCount(t *testing.T) {
	t.Parallel()
	for _, width := range []int{60, 80, 100} {
		m, _, _ := newTestModel(t, newFakeBackend(), width, 30, Options{})
		typeText(m, "/sessions")
		run(m, press(m, "enter"))
		f := frame(m)
		for _, want := range []string{"aaaaaaaa  2026-12-01 10:00    6 msgs", "bbbbbbbb  2026-11-30 09:00    4 msgs"} {
			if !strings.Contains(f, want) {
				t.Errorf("width %d: %q is not in the picker:\n%s", width, want, f)
			}
		}
	}
}

// /copy, /cost, /context, /export.
func TestCopyCostContextExport(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	b := newFakeBackend()
	b.info.Instructions = []InstructionInfo{{Path: "/home/u/.config/agent/AGENTS.md", Bytes: 120, Size: 121},
		{Path: "/src/repo/AGENTS.md\x1b[2J", Bytes: 2048, Size: 4096, Cut: true}}
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "weather in Paris?")
	run(m, press(m, "enter"))
	feed(m, b, conversation())
	typeText(m, "/copy 1")
	cmd := press(m, "enter")
	if cmd == nil || !strings.Contains(frame(m), "copied code block 1") {
		t.Fatalf("/copy 1:\n%s", frame(m))
	}
	typeText(m, "/cost")
	press(m, "enter")
	typeText(m, "/context")
	press(m, "enter")
	f := frame(m)
	if !strings.Contains(f, "Session cost: $0.01") && !strings.Contains(f, "Session cost:") {
		t.Errorf("/cost:\n%s", f)
	}
	if !strings.Contains(f, "Context: 0% of 200.0k tokens") {
		t.Errorf("/context:\n%s", f)
	}
	// The instruction files of the system prompt, each with its size.
	for _, want := range []string{"instruction files in the system prompt: 2 files, 2.1 KB", "/home/u/.config/agent/AGENTS.md  120 bytes", "/src/repo/AGENTS.md", "2.0 KB (cut from 4.0 KB)"} {
		if !strings.Contains(f, want) {
			t.Errorf("/context lacks %q:\n%s", want, f)
		}
	}
	// A file whose trailing newline was not sent was not cut.
	if strings.Contains(f, "cut from 121 bytes") {
		t.Errorf("/context says an uncut file was cut:\n%s", f)
	}
	if strings.Contains(f, "\x1b[2J") {
		t.Error("/context prints a path's escape sequence")
	}
	typeText(m, "/export out.md")
	run(m, press(m, "enter"))
	md, err := os.ReadFile(filepath.Join(dir, "out.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## You\n\nweather in Paris?", "## Assistant", "weather_forecast", "```go"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}
}

// Reasoning streams dimmed, folded to one line; ctrl+o shows all of it.
func TestReasoningFolded(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 80, 24, Options{})
	typeText(m, "think")
	run(m, press(m, "enter"))
	feed(m, b, []agent.Event{
		{Type: agent.EventReasoningDelta, Text: "First I look at the question.\nThen I check the tools.\nThen I answer."},
		{Type: agent.EventTextDelta, Text: "The answer."},
	})
	f := frame(m)
	if !strings.Contains(f, "✻ thinking") || !strings.Contains(f, "First I look") || strings.Contains(f, "Then I answer") || !strings.Contains(f, "+2 lines") {
		t.Errorf("reasoning not folded:\n%s", f)
	}
	press(m, "ctrl+o")
	if f := frame(m); !strings.Contains(f, "Then I answer") {
		t.Errorf("ctrl+o does not unfold:\n%s", f)
	}
}

// Pasted lines all show: the input grows with them (up to a third of the
// screen).
func TestPasteGrowsTheInput(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	m.Update(tea.PasteMsg{Content: "one\ntwo\nthree\nfour\nfive"})
	f := frame(m)
	for _, w := range []string{"│ one", "│ two", "│ three", "│ four", "│ five"} {
		if !strings.Contains(f, w) {
			t.Fatalf("pasted line %q not shown:\n%s", w, f)
		}
	}
	if lines := strings.Count(f, "\n"); lines != 24 {
		t.Fatalf("frame has %d lines", lines)
	}
}

// ctrl+g writes the draft to a file for $EDITOR and takes back what was
// saved.
func TestEditorRoundTrip(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
	typeText(m, "draft")
	cmd := pressKey(m, tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	ready, ok := cmd().(editorReadyMsg)
	if !ok {
		t.Fatal("ctrl+g did not prepare the editor")
	}
	defer os.Remove(ready.path)
	if b, err := os.ReadFile(ready.path); err != nil || string(b) != "draft" {
		t.Fatalf("the editor file holds %q, %v", b, err)
	}
	m.Update(editedMsg{Text: "edited\nprompt\n"})
	if v := m.input.Value(); v != "edited\nprompt" {
		t.Fatalf("input after the editor: %q", v)
	}
}

// #27: a name with a space completes quoted and attaches; a missing file
// is said, not skipped silently.
func TestAtPathSpacesAndMissing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "my notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newFakeBackend()
	m, turns, _ := newTestModel(t, b, 100, 24, Options{})
	typeText(m, "read @my")
	run(m, pressKey(m, tabKey))
	if v := m.input.Value(); v != `read @"my notes.txt" ` {
		t.Fatalf("@ completion of a name with a space: %q", v)
	}
	typeText(m, `and @my\ notes.txt and @missing.md`)
	run(m, press(m, "enter"))
	if len(turns.started) != 1 || strings.Count(turns.started[0], `<file path="my notes.txt">`) != 1 {
		t.Fatalf("the file was not attached once: %q", turns.started)
	}
	if f := frame(m); !strings.Contains(f, "@missing.md not attached: no such file") {
		t.Errorf("the missing file is not named:\n%s", f)
	}
	for in, want := range map[string][]string{
		`see @a.md.`:           {"a.md"},
		`@"x y.txt" and @z\ w`: {"x y.txt", "z w"},
		`mail bob@example.com`: nil,
		`@"unterminated quote`: nil,
	} {
		if got := atPaths(in); !slices.Equal(got, want) {
			t.Errorf("atPaths(%q) = %q, want %q", in, got, want)
		}
	}
}

// #27: a resumed session shows the thinking it stored as it streamed:
// dimmed, folded to one line, ctrl+o shows all of it, its escape sequences
// removed.
func TestResumedReasoningFolded(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{History: []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("think")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{
			{Type: agent.PartReasoning, Text: "First I look at the question.\x1b]0;pwned\x07\nThen I check the tools.\nThen I answer."},
			agent.TextPart("The answer."),
		}},
	}})
	f := frame(m)
	if !strings.Contains(f, "✻ thinking") || !strings.Contains(f, "First I look") || strings.Contains(f, "Then I answer") ||
		!strings.Contains(f, "+2 lines") || !strings.Contains(f, "The answer.") || strings.Contains(f, "\x1b]0;") {
		t.Errorf("resumed reasoning not shown folded:\n%s", f)
	}
	press(m, "ctrl+o")
	if f := frame(m); !strings.Contains(f, "Then I answer") {
		t.Errorf("ctrl+o does not unfold:\n%s", f)
	}
}

// A resumed session shows a hook's context as the hook's, not under
// "› you": the model read it with the prompt, but the user did not type
// it. Marked (Part.Hook) or, stored before the mark, a later text part with
// the agent's label; a prompt that itself starts like a label stays the
// user's.
func TestResumedHookContextIsNotTheUsers(t *testing.T) {
	t.Parallel()
	m, _, _ := newTestModel(t, newFakeBackend(), 140, 40, Options{History: []agent.Message{
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("what now?"),
			{Type: agent.PartText, Text: "UserPromptSubmit hook context:\nbranch: main", Hook: true}}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Ship it.")}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("and then?"),
			agent.TextPart("SessionStart hook context:\nsprint goal: ship hooks\nowner: me\ndue: friday")}},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Rest.")}},
		{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Stop hook context:\nis my own prompt")}},
	}})
	var said []string
	for _, it := range m.chat.items {
		if it.kind == itemUser {
			said = append(said, it.text)
		}
	}
	if want := []string{"what now?", "and then?", "Stop hook context:\nis my own prompt"}; strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("under › you: %q, want %q", said, want)
	}
	f := frame(m)
	for _, want := range []string{"↳ added by the UserPromptSubmit hook: branch: main", "↳ added by the SessionStart hook: sprint goal: ship hooks (+2 lines)"} {
		if !strings.Contains(f, want) {
			t.Errorf("the hook's context is not shown as the hook's: %q missing\n%s", want, f)
		}
	}
}

// A resumed session's call of a tool the session does not list (its
// server still starting, or not configured in this directory) does not
// say "built-in": who offers it is not known. A listed one names its
// server, and a tool listed with no server is built-in.
func TestResumedUnlistedToolNotBuiltIn(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.tools = append(b.tools, ToolInfo{Name: "run_agent", Description: "Run a subagent."})
	call := func(id, name string) []agent.Message {
		return []agent.Message{
			{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: id, Name: name, Input: json.RawMessage(`{}`)})}},
			{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: id, Name: name, Text: "ok"})}},
		}
	}
	var h []agent.Message
	h = append(h, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("go")}})
	h = append(h, call("c1", "mem__read_graph")...)
	h = append(h, call("c2", "read_file")...)
	h = append(h, call("c3", "run_agent")...)
	m, _, _ := newTestModel(t, b, 100, 40, Options{History: h})
	f := frame(m)
	for _, want := range []string{"⚙ mem__read_graph ", "⚙ read_file · fs", "⚙ run_agent · built-in"} {
		if !strings.Contains(f, want) {
			t.Errorf("missing %q in\n%s", want, f)
		}
	}
	if strings.Contains(f, "mem__read_graph · ") {
		t.Errorf("an unlisted tool is given a server:\n%s", f)
	}
}

// Live too, a call of a tool the session does not have (a name the model
// made up) does not say "built-in"; a listed tool with no server does.
func TestUnlistedToolCallNotBuiltIn(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.tools = append(b.tools, ToolInfo{Name: "run_agent", Description: "Run a subagent."})
	m, _, _ := newTestModel(t, b, 100, 40, Options{})
	feed(m, b, []agent.Event{
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c1", Name: "mem__read_graph", Input: json.RawMessage(`{}`)}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "c1", Name: "mem__read_graph", Result: `unknown tool "mem__read_graph"`, IsError: true}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "c2", Name: "run_agent", Input: json.RawMessage(`{}`)}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "c2", Name: "run_agent", Result: "ok"}},
		{Type: agent.EventDone},
	})
	f := frame(m)
	if !strings.Contains(f, "⚙ mem__read_graph ") || strings.Contains(f, "mem__read_graph · ") || !strings.Contains(f, "⚙ run_agent · built-in") {
		t.Errorf("cards:\n%s", f)
	}
}
