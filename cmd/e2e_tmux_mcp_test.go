package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// interactiveMCPConfig is testMCPConfig with the server's prompt (review)
// and its form-asking tool (book_table).
func interactiveMCPConfig(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return writeJSON(t, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"tt": map[string]any{"command": exe, "env": map[string]string{"AGENT_TEST_MCP_SERVER": "1", "AGENT_TEST_MCP_INTERACTIVE": "1"}},
	}})
}

// waitRequests waits until the fake provider got n requests.
func waitRequests(t *testing.T, fake *anthropictest.Server, n int) []*anthropictest.Request {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if reqs := fake.Requests(); len(reqs) >= n {
			return reqs
		}
		<-time.After(50 * time.Millisecond)
	}
	t.Fatalf("the provider got %d requests, want %d", len(fake.Requests()), n)
	return nil
}

// #32 under tmux: /mcp lists the server with its tools and prompt, /mcp
// reconnect restarts it, /tt:review runs the server's prompt as the next
// turn, and a tool's elicitation is a form in place of the input whose
// answer (a typed name, the default guests) reaches the server.
func TestMCPCommandsAndFormInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Text: "Reviewed it."},
		anthropictest.Turn{Call: "tt__book_table", Input: map[string]any{}},
		anthropictest.Turn{Text: "Your table is booked."},
	))
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL,
		"--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-config", interactiveMCPConfig(t), "--mcp", "tt")
	ts.waitFor("/help", "MCP server tt is up (6 tools)")

	ts.send("/mcp", "Enter")
	ts.waitFor("MCP servers (/mcp", "tt  running · 6 tools · 1 prompt · 0 resources")
	ts.send("/mcp reconnect tt", "Enter")
	ts.waitFor("MCP server tt: running, 6 tools")

	ts.send("/tt:review notes.md", "Enter")
	ts.waitFor("Reviewed it.")
	if reqs := fake.Requests(); len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte("Review notes.md carefully.")) {
		t.Fatalf("the prompt's text did not reach the model (%d requests)", len(reqs))
	}

	ts.send("Book a table", "Enter")
	screen := ts.waitFor("MCP server tt asks: Who is the booking for?", "Name*", "Guests: 2")
	if !strings.Contains(screen, "ctrl+d decline") {
		t.Errorf("the form does not say how to decline:\n%s", screen)
	}
	// The fields come in the server's order: Guests (its default kept),
	// then Name; enter on the last field accepts.
	ts.send("Enter")
	ts.send("Ada", "Enter")
	ts.waitFor("Your table is booked.")
	reqs := waitRequests(t, fake, 3)
	if !bytes.Contains(reqs[2].Body, []byte("booked for Ada, 2 guests")) {
		t.Errorf("the form's answer did not reach the server: %s", reqs[2].Body)
	}
	ts.quit()
}

// #32 under tmux: a tool the server answers with URLElicitationRequiredError
// (-32042) shows the whole URL and its host; enter ("done, retry now")
// retries the call once, and the retried call's answer reaches the model.
func TestURLElicitationRequiredInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__link_account", Input: map[string]any{}},
		anthropictest.Turn{Text: "Your account is linked."},
	))
	ts := startTmux(t, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL,
		"--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-config", interactiveMCPConfig(t), "--mcp", "tt")
	ts.waitFor("/help", "MCP server tt is up")
	ts.send("Link my bank", "Enter")
	ts.waitFor("MCP server tt asks you to open a link: Sign in to your bank to link it.", "site: bank.example",
		"https://bank.example/connect?elicitation=link-1", "enter done, retry now")
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d requests while the URL is shown, want 1", n)
	}
	ts.send("Enter")
	ts.waitFor("Your account is linked.")
	reqs := waitRequests(t, fake, 2)
	if !bytes.Contains(reqs[1].Body, []byte("account linked")) {
		t.Errorf("the retried call's answer did not reach the model: %s", reqs[1].Body)
	}
	ts.quit()
}

// /mcp disable then /mcp enable, twice, then again after a turn: each
// action says one line, once. It said two or three ("MCP server tt:
// disabled, 4 tools" and the notice "MCP server tt disabled (4 tools
// leave)"; "running", "restarted" and "enabled" for an enable). After a
// turn the disable says the next request misses the cache, and the enable
// that puts back the tools of the last request says it does not: the
// next request's tools are the last one's, byte for byte.
func TestMCPDisableEnableSaysEachOnceInTmux(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "First answer."}, anthropictest.Turn{Text: "Second answer."}))
	ts := startTmuxSize(t, 200, 50, tmuxEnv(), "--provider", "anthropic", "--base-url", fake.URL,
		"--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-config", testMCPConfig(t), "--mcp", "tt")
	ts.waitFor("/help", "MCP server tt is up (4 tools)")
	disabled, enabled := "MCP server tt disabled (4 tools leave)", "MCP server tt enabled (4 tools join)"
	// said waits until the terminal has shown text n times.
	said := func(text string, n int) {
		t.Helper()
		deadline := time.Now().Add(screenWait)
		for strings.Count(flat(ts.history()), text) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%q was not said %d times:\n%s", text, n, ts.history())
			}
			<-time.After(50 * time.Millisecond)
		}
	}
	for i := 1; i <= 2; i++ {
		ts.send("/mcp disable tt", "Enter")
		said(disabled, i)
		ts.send("/mcp enable tt", "Enter")
		said(enabled, i)
	}
	ts.send("hello", "Enter")
	ts.waitFor("First answer.")
	ts.send("/mcp disable tt", "Enter")
	ts.waitHistory(disabled + "; the change applies from the next turn, whose request reads the prompt without the cache once")
	ts.send("/mcp enable tt", "Enter")
	ts.waitHistory(enabled + "; the tools are again those of the last request, whose prompt cache the next one reads")
	// A turn says what is left to say before its answer: nothing is.
	ts.send("again", "Enter")
	ts.waitFor("Second answer.")
	h := flat(ts.history())
	for text, n := range map[string]int{disabled: 3, enabled: 3, "MCP server tt is up": 1,
		"restarted": 0, "MCP server tt: disabled": 0, "MCP server tt: running": 0} {
		if got := strings.Count(h, text); got != n {
			t.Errorf("%q said %d times, want %d:\n%s", text, got, n, ts.history())
		}
	}
	reqs := waitRequests(t, fake, 2)
	var first, second struct{ Tools json.RawMessage }
	if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) == 0 || !bytes.Equal(first.Tools, second.Tools) {
		t.Errorf("the tools differ between the requests: the enable said the cache holds\n%s\n%s", first.Tools, second.Tools)
	}
	ts.quit()
}
