package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/openaichat/chattest"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/telemetry/otlptest"
)

// subagentProfiles writes two callable profiles on the Chat fake, each with
// its own tool list and deferral, and trusts the directory.
func subagentProfiles(t *testing.T, wd string) {
	t.Helper()
	dir := filepath.Join(wd, ".agent", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		// Claude Code's field names where they map.
		"weather.md": "---\nname: weather\ndescription: Knows the weather of a city\nsubagent: true\nprovider: openai-chat\nmodel: gpt-4.1\n" +
			"search: client\nmcpServers: [tt]\ndefer: true\ntools: tt__get_weather, tt__list_events\nmaxTurns: 5\n---\nYou are the weather helper.\n",
		"mail.md": "---\ndescription: Sends mail\nsubagent: true\nprovider: openai-chat\nmodel: gpt-4.1\nsearch: client\n" +
			"mcp_servers: [tt]\ndefer: [tt__send_email]\ntools: [tt__send_email, tt__convert_currency]\n---\nYou are the mail helper.\n",
		// Not callable: a plain profile.
		"plain.md": "---\ndescription: A plain profile\n---\nPlain.\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tr := runAgent(t, nil, "trust"); tr.code != 0 {
		t.Fatalf("agent trust: exit %d: %s%s", tr.code, tr.stdout, tr.stderr)
	}
}

// childScript plays both subagents on one Chat fake: each searches its own
// deferred tools client-side, calls what it found, then answers. Which
// child asks is read from its system prompt, how far it is from its tool
// results.
func childScript(r chattest.ChatRequest) chattest.Turn {
	step := 0
	for _, m := range r.Messages {
		if m.Role == "tool" {
			step++
		}
	}
	weather := strings.Contains(r.Messages[0].Text(), "weather helper")
	switch {
	case weather && step == 0:
		return chattest.Calls(chattest.SearchCall("w1", "weather forecast", 0))
	case weather && step == 1:
		return chattest.Calls(chattest.WrappedCall("w2", "tt__get_weather", map[string]any{"city": "Berlin"}))
	case weather:
		return chattest.Text("Sunny in Berlin.")
	case step == 0:
		return chattest.Calls(chattest.SearchCall("m1", "send email message", 0))
	case step == 1:
		return chattest.Calls(chattest.WrappedCall("m2", "tt__send_email", map[string]any{"to": "ann@example.com", "body": "Sunny."}))
	default:
		return chattest.Text("Mail sent to Ann.")
	}
}

// The "done when": a parent on Anthropic's native search calls
// run_agent twice in one response; both children, on a Chat model with
// client search, run at once (neither's first request is answered before
// the other's arrived), each with its own deferred set; the parent's JSON
// shows both answers and counts their requests and cost; the sessions are
// linked in the store, and a child resumes on its own.
func TestPrintSubagentsInParallel(t *testing.T) {
	wd := isolate(t)
	subagentProfiles(t, wd)

	chat := chattest.NewServer(t)
	chat.SetReply(childScript)
	var mu sync.Mutex
	firsts := 0
	both := make(chan struct{})
	chat.Arrive = func(r chattest.ChatRequest) {
		if len(r.Messages) != 2 { // system and the task: a child's first request
			return
		}
		mu.Lock()
		if firsts++; firsts == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(30 * time.Second):
			t.Error("a subagent's first request waited 30 s for the other's: the two run_agent calls did not run at once")
		}
	}

	anth := anthropictest.NewServer(t)
	first := anthropictest.Message(
		anthropictest.ServerSearch("srvtoolu_01", "delegate"),
		anthropictest.SearchResult("srvtoolu_01", "tt__list_events"),
		anthropictest.ToolUse("toolu_01", "run_agent", map[string]any{"agent": "weather", "prompt": "Weather in Berlin?"}),
		anthropictest.ToolUse("toolu_02", "run_agent", map[string]any{"agent": "mail", "prompt": "Mail ann@example.com that it is sunny."}),
	)
	first.StopReason = "tool_use"
	anth.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &first}, anthropictest.Turn{Text: "Both done."}))

	// With telemetry on: each child's turn is traced under its call.
	rcv := otlptest.Start(t, "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.Endpoint)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": chat.BaseURL(),
		"AGENT_ENABLE_TELEMETRY": "1"}
	db := filepath.Join(t.TempDir(), "agent.db")
	mcpCfg := testMCPConfig(t)
	res := runAgent(t, env, "-p", "Weather in Berlin, and tell Ann.", "--provider", "anthropic", "--base-url", anth.URL,
		"--mcp-config", mcpCfg, "--mcp", "tt", "--defer", "--db", db, "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
	}
	out := decodePrint(t, res.stdout)
	if out.Result != "Both done." || len(out.Subagents) != 2 {
		t.Fatalf("result %q, subagents %+v", out.Result, out.Subagents)
	}
	checkSubagentSpans(t, rcv, "weather", "mail")
	answers := map[string]string{}
	kids := map[string]string{}
	for _, s := range out.Subagents {
		answers[s.Agent], kids[s.Agent] = s.Result, s.SessionID
		if s.IsError || s.NumTurns != 3 || s.Provider != "openai-chat" || s.Model != "gpt-4.1" || s.CostUSD == nil {
			t.Errorf("subagent %+v", s)
		}
	}
	if answers["weather"] != "Sunny in Berlin." || answers["mail"] != "Mail sent to Ann." {
		t.Errorf("answers %v", answers)
	}
	for agent, want := range map[string]string{"weather": "found: tt__get_weather", "mail": "called: tt__send_email"} {
		for _, s := range out.Subagents {
			if s.Agent == agent && !strings.Contains(s.Summary, want) {
				t.Errorf("%s's tools summary %q lacks %q", agent, s.Summary, want)
			}
		}
	}
	// The totals count the children: 2 parent requests and 3 per child.
	if out.NumTurns != 8 || out.TotalCostUSD == nil || *out.TotalCostUSD <= 0 {
		t.Errorf("num_turns %d, total_cost_usd %v", out.NumTurns, out.TotalCostUSD)
	}

	// The parent: one tools array with run_agent listing the callable
	// profiles (not the plain one), the same on both requests; the second
	// carries both answers as the calls' results.
	reqs := anth.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d Anthropic requests", len(reqs))
	}
	tl := reqs[0].Tools()
	if !bytes.Equal(tl, reqs[1].Tools()) {
		t.Errorf("the parent's tools array changed:\n%s\n%s", tl, reqs[1].Tools())
	}
	if !bytes.Contains(tl, []byte(`"name":"run_agent"`)) || !bytes.Contains(tl, []byte(`- mail: Sends mail\n- weather: Knows the weather of a city`)) ||
		bytes.Contains(tl, []byte("plain")) {
		t.Errorf("run_agent's definition: %s", tl)
	}
	for _, want := range []string{"Sunny in Berlin.", "Mail sent to Ann.", `"tool_use_id":"toolu_01"`, `"tool_use_id":"toolu_02"`, "tool_reference"} {
		if !bytes.Contains(reqs[1].Body, []byte(want)) {
			t.Errorf("the parent's second request lacks %s", want)
		}
	}
	// The children's own searches stay in their sessions.
	for _, q := range []string{"send email message", `"tool_call"`, `"w1"`, `"m2"`} {
		if bytes.Contains(reqs[1].Body, []byte(q)) {
			t.Errorf("the parent's request carries a child's search or call (%s)", q)
		}
	}

	// The children: each its own deferred set, one tools array across its
	// requests, and nothing of Anthropic's search blocks.
	byChild := map[string][]chattest.Request{}
	for _, r := range chat.Requests() {
		if r.Parsed == nil || r.Status != 200 {
			t.Fatalf("chat request rejected (%d): %s", r.Status, r.Error)
		}
		who := "mail"
		if strings.Contains(r.Parsed.Messages[0].Text(), "weather helper") {
			who = "weather"
		}
		byChild[who] = append(byChild[who], r)
	}
	for who, rs := range byChild {
		if len(rs) != 3 {
			t.Errorf("%s made %d requests", who, len(rs))
		}
		for _, r := range rs {
			if !bytes.Equal(r.Parsed.Tools, rs[0].Parsed.Tools) {
				t.Errorf("%s's tools array changed between its requests", who)
			}
			if bytes.Contains(r.Body, []byte("server_tool_use")) || bytes.Contains(r.Body, []byte("tool_reference")) || bytes.Contains(r.Body, []byte("run_agent")) {
				t.Errorf("%s's request carries the parent's blocks or tools: %s", who, r.Body)
			}
		}
	}
	weatherTools, mailTools := string(byChild["weather"][0].Parsed.Tools), string(byChild["mail"][0].Parsed.Tools)
	if strings.Contains(weatherTools, "send_email") || strings.Contains(mailTools, "get_weather") {
		t.Errorf("a child sees the other's tools:\nweather %s\nmail %s", weatherTools, mailTools)
	}
	// mail defers send_email only: convert_currency is active there.
	if !strings.Contains(mailTools, `"name":"tt__convert_currency"`) || strings.Contains(weatherTools, `"name":"tt__get_weather"`) {
		t.Errorf("deferral per child:\nweather %s\nmail %s", weatherTools, mailTools)
	}

	// The store links them both ways.
	show := runAgent(t, nil, "sessions", "show", out.SessionID, "--json", "--db", db)
	var parent store.Export
	if err := json.Unmarshal([]byte(show.stdout), &parent); err != nil {
		t.Fatalf("sessions show: %v: %s%s", err, show.stdout, show.stderr)
	}
	if len(parent.Children) != 2 || !strings.Contains(strings.Join(parent.Children, " "), kids["weather"]) || !strings.Contains(strings.Join(parent.Children, " "), kids["mail"]) {
		t.Errorf("the parent's child sessions %v, want %v", parent.Children, kids)
	}
	txt := runAgent(t, nil, "sessions", "show", kids["weather"], "--db", db)
	if !strings.Contains(txt.stdout, "Subagent weather of session "+out.SessionID) {
		t.Errorf("sessions show of the child:\n%s", txt.stdout)
	}

	// The child resumes on its own, with its profile's tools array.
	again := runAgent(t, env, "-p", "And tomorrow?", "--resume", kids["weather"], "--mcp-config", mcpCfg, "--db", db, "--output-format", "json")
	if again.code != 0 {
		t.Fatalf("resume the child: exit %d: %s", again.code, again.stderr)
	}
	all := chat.Requests()
	if last := all[len(all)-1]; !bytes.Equal(last.Parsed.Tools, byChild["weather"][0].Parsed.Tools) || !strings.Contains(last.Parsed.Messages[0].Text(), "weather helper") {
		t.Errorf("the resumed child's request: %s", last.Body)
	}
}

// A child's call that needs approval is asked in the parent's stream,
// naming the child, and answered there: -p denies it (the child's model
// reads why) unless --yes allows it.
func TestPrintSubagentApproval(t *testing.T) {
	wd := isolate(t)
	subagentProfiles(t, wd)
	cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"tt__send_email"}})
	for _, yes := range []bool{false, true} {
		chat := chattest.NewServer(t)
		chat.SetReply(childScript)
		anth := anthropictest.NewServer(t)
		first := anthropictest.Message(anthropictest.ToolUse("toolu_01", "run_agent", map[string]any{"agent": "mail", "prompt": "Mail Ann."}))
		first.StopReason = "tool_use"
		anth.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &first}, anthropictest.Turn{Text: "Done."}))
		env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": chat.BaseURL()}
		args := []string{"-p", "Tell Ann.", "--config", cfg, "--provider", "anthropic", "--base-url", anth.URL, "--mcp-config", testMCPConfig(t),
			"--db", filepath.Join(t.TempDir(), "a.db"), "--output-format", "stream-json"}
		if yes {
			args = append(args, "--yes")
		}
		res := runAgent(t, env, args...)
		if res.code != 0 {
			t.Fatalf("--yes %v: exit %d: %s", yes, res.code, res.stderr)
		}
		asked := false
		for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
			var ev struct {
				Type string `json:"type"`
				Tool struct {
					Name  string `json:"name"`
					Agent string `json:"agent"`
				} `json:"tool"`
			}
			_ = json.Unmarshal([]byte(line), &ev)
			if ev.Type == "approval_requested" {
				asked = ev.Tool.Name == "tt__send_email" && ev.Tool.Agent == "mail"
			}
		}
		if !asked {
			t.Errorf("--yes %v: no approval_requested naming the subagent mail in:\n%s", yes, res.stdout)
		}
		// The child's third request carries the call's result.
		reqs := chat.Requests()
		last := reqs[len(reqs)-1].Parsed.Messages
		result := last[len(last)-1].Text()
		if ran := result == "sent"; ran != yes {
			t.Errorf("--yes %v: the child's tool result is %q", yes, result)
		}
		if !yes && !strings.Contains(res.stderr, "denied tt__send_email") {
			t.Errorf("no denial said on stderr: %s", res.stderr)
		}
	}
}

// twoSubagentsInTmux starts the real program in a width × height terminal
// (with args) on a parent whose model runs the weather and mail subagents
// at once, each on a Chat server, and waits for the turn's end.
func twoSubagentsInTmux(t *testing.T, width, height int, args ...string) *tmuxSession {
	t.Helper()
	wd := isolate(t)
	subagentProfiles(t, wd)
	chat := chattest.NewServer(t)
	chat.SetReply(childScript)
	anth := anthropictest.NewServer(t)
	first := anthropictest.Message(
		anthropictest.ToolUse("toolu_01", "run_agent", map[string]any{"agent": "weather", "prompt": "Weather in Berlin?"}),
		anthropictest.ToolUse("toolu_02", "run_agent", map[string]any{"agent": "mail", "prompt": "Mail ann@example.com that it is sunny."}),
	)
	first.StopReason = "tool_use"
	anth.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &first}, anthropictest.Turn{Text: "Both done."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": chat.BaseURL(),
		"HOME": os.Getenv("HOME"), "XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmuxSize(t, width, height, env, append([]string{"--provider", "anthropic", "--base-url", anth.URL, "--db", filepath.Join(t.TempDir(), "a.db"),
		"--mcp-config", testMCPConfig(t), "--theme", "dark"}, args...)...)
	ts.waitFor("/help")
	ts.send("Weather in Berlin, and tell Ann.", "Enter")
	ts.waitFor("Both done.")
	return ts
}

// Under tmux, the real program shows both subagents as cards and their
// searches in the pane under their names.
func TestTUISubagentsInTmux(t *testing.T) {
	ts := twoSubagentsInTmux(t, 120, 40)
	// The pane (ctrl+t in inline mode) keeps each child's search under
	// its name.
	ts.send("C-t")
	ts.waitFor("Discovered tools", "weather · client", "mail · client", "tt__get_weather", "tt__send_email")
	// Finished cards are printed above the redrawn area a frame after they
	// leave it, in batches the screen has room for (a card can be split
	// between two): wait for every line wanted, not only the titles.
	ts.waitHistory("⇢ weather · subagent · openai-chat/gpt-4.1", "⇢ mail · subagent", "called: tt__get_weather", "called: tt__send_email")
	ts.quit()
}

// Under tmux, each subagent card folds on its own: alt+↑ selects the
// newest card (thick border), ctrl+o unfolds it alone; alt+↑ and ctrl+o
// unfold the one before too; alt+↓ twice selects none, and ctrl+o is for
// every card again (unfold all, then fold all).
func TestTUISubagentCardFoldsAloneInTmux(t *testing.T) {
	ts := twoSubagentsInTmux(t, 140, 80, "--alt-screen")
	ts.waitFor("⇢ weather · subagent", "⇢ mail · subagent")
	if s := ts.capture(); strings.Contains(s, "task:") || strings.Contains(s, "┏") {
		t.Fatalf("a card is open or selected at first:\n%s", s)
	}
	// waitCount waits until the screen shows want "task:" lines, one per
	// open subagent card.
	waitCount := func(step string, want int) string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		s := ts.capture()
		for strings.Count(s, "task:") != want && time.Now().Before(deadline) {
			<-time.After(50 * time.Millisecond)
			s = ts.capture()
		}
		if strings.Count(s, "task:") != want {
			t.Fatalf("%s: %d open cards, want %d:\n%s", step, strings.Count(s, "task:"), want, s)
		}
		return s
	}
	ts.send("M-Up")
	ts.waitFor("┏")
	ts.send("C-o")
	s := waitCount("ctrl+o on the newest card", 1)
	if i, j := strings.Index(s, "⇢ mail"), strings.Index(s, "task:"); i < 0 || j < i {
		t.Errorf("the open card is not mail's:\n%s", s)
	}
	ts.send("M-Up")
	ts.send("C-o")
	waitCount("ctrl+o on the card before", 2)
	ts.send("M-Down")
	ts.send("M-Down")
	ts.send("C-o")
	waitCount("ctrl+o with none selected: every card unfolds", 2)
	ts.send("C-o")
	s = waitCount("ctrl+o again: every card folds", 0)
	if strings.Contains(s, "┏") {
		t.Errorf("a card is still selected:\n%s", s)
	}
	ts.quit()
}
