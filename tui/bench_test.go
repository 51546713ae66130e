package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

// bigHistory is n messages: prompts, Markdown answers with code, and every
// fifth exchange a search and a tool call with its result.
func bigHistory(n int) []agent.Message {
	out := make([]agent.Message, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(fmt.Sprintf("question %d: how do I do thing %d?", i, i))}})
		if i%5 == 0 && len(out)+4 <= n {
			id := fmt.Sprintf("s%d", i)
			out = append(out,
				agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.SearchCallPart(agent.SearchCall{ID: id, Where: agent.WhereClient, Query: "thing tool"})}},
				agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.SearchResultPart(agent.SearchResult{CallID: id, Where: agent.WhereClient, Tools: []string{"weather_forecast"}})}},
				agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "c" + id, Name: "weather_forecast", Input: json.RawMessage(`{"city":"Paris"}`)})}},
				agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.ToolResultPart(agent.ToolResult{CallID: "c" + id, Text: `{"ok":true}`})}},
			)
		}
		out = append(out, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(fmt.Sprintf(
			"Answer **%d**: use the `thing` function.\n\n- first step\n- second step\n\n```go\nthing(%d)\n```\n", i, i))}})
	}
	return out[:n]
}

// BenchmarkFirstFrame is start-up to the first rendered frame (no MCP
// servers, empty history).
func BenchmarkFirstFrame(b *testing.B) {
	fb := newFakeBackend()
	for b.Loop() {
		m, err := New(fb, Options{AltScreen: true, Width: 120, Height: 40, Theme: "dark"})
		if err != nil {
			b.Fatal(err)
		}
		_ = m.View()
	}
}

// BenchmarkFirstFrameResumed10k is start-up with a 10,000-message history.
func BenchmarkFirstFrameResumed10k(b *testing.B) {
	fb := newFakeBackend()
	h := bigHistory(10_000)
	for b.Loop() {
		m, err := New(fb, Options{AltScreen: true, Width: 120, Height: 40, Theme: "dark", History: h})
		if err != nil {
			b.Fatal(err)
		}
		_ = m.View()
	}
}

func model10k(b *testing.B) *Model {
	b.Helper()
	m, err := New(newFakeBackend(), Options{AltScreen: true, Width: 120, Height: 40, Theme: "dark", History: bigHistory(10_000)})
	if err != nil {
		b.Fatal(err)
	}
	_ = m.View()
	return m
}

// BenchmarkFrame10k is one frame of a 10,000-message conversation.
func BenchmarkFrame10k(b *testing.B) {
	m := model10k(b)
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkScrollFrame10k scrolls up three lines and renders, through the
// whole history: items come into view and are rendered once, then cached.
func BenchmarkScrollFrame10k(b *testing.B) {
	m := model10k(b)
	for b.Loop() {
		m.chat.scroll(3)
		_ = m.View()
	}
}

// BenchmarkStreamDelta10k is what one streamed delta costs with a 10,000
// message history: Update, and every 20th delta (100 ms at 200 deltas a
// second) the throttled Markdown re-render, then a frame.
func BenchmarkStreamDelta10k(b *testing.B) {
	m := model10k(b)
	m.working = true
	i := 0
	for b.Loop() {
		m.Update(eventMsg{Event: agent.Event{Type: agent.EventTextDelta, Text: "word "}})
		if i++; i%20 == 0 {
			m.Update(flushMsg{})
		}
		if i%400 == 0 {
			// A fresh message now and then keeps the streamed text the
			// size of a real answer.
			m.chat.finishMessage(agent.Message{Role: agent.RoleAssistant})
		}
		_ = m.View()
	}
}

// BenchmarkMemory10k reports the live heap after loading and rendering a
// 10,000-message history.
func BenchmarkMemory10k(b *testing.B) {
	var m *Model
	for b.Loop() {
		m = model10k(b)
		for i := 0; i < 10; i++ { // a few pages of scrollback rendered and cached
			m.chat.scroll(m.chat.height)
			_ = m.View()
		}
		_ = m.View()
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heapMB")
	// Sys is what the runtime took from the OS: an upper bound of the Go
	// share of the resident set.
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sysMB")
	runtime.KeepAlive(m)
}

// TestTypingDuringStream checks no key is lost while 200 deltas stream in.
func TestTypingDuringStream(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	m, _, _ := newTestModel(t, b, 120, 40, Options{})
	typeText(m, "go")
	press(m, "enter")
	typed := strings.Repeat("abcdefghij", 20)
	for i, r := range typed {
		m.Update(eventMsg{Event: agent.Event{Type: agent.EventTextDelta, Text: "delta "}})
		if i%20 == 0 {
			m.Update(flushMsg{})
		}
		typeText(m, string(r))
		_ = m.View()
	}
	if got := m.input.Value(); got != typed {
		t.Fatalf("typed %d runes, input has %d: %q", len(typed), len(got), got)
	}
}
