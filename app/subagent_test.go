package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools/permission"
)

// withHelper is a fixture whose user profile helper ("You are the
// helper.") is callable; front is more of its front matter, a field a line.
func withHelper(t *testing.T, withMCP bool, front string) (*fixture, *App) {
	t.Helper()
	f := newFixture(t, withMCP)
	writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents", "helper.md"),
		"---\ndescription: Helps\nsubagent: true\n"+front+"---\nYou are the helper.\n")
	return f, f.open(t, nil)
}

// Cancelling the turn cancels the subagent it runs: the child's request is
// given up, the child ends as failed, the turn as cancelled, and the
// child's session stays stored under its parent.
func TestSubagentCancelledWithItsTurn(t *testing.T) {
	f, a := withHelper(t, false, "")
	if _, ok := a.Session().Tools().Lookup(RunAgentTool); !ok {
		t.Fatal("no run_agent with a callable profile")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stopped := make(chan struct{})
	f.fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
		if bytes.Contains(r.Body, []byte("You are the helper.")) {
			cancel() // the user presses esc while the child waits for its model
			select {
			case <-stopped:
			case <-time.After(10 * time.Second):
				t.Error("the turn did not end after its cancellation")
			}
			return anthropictest.Message(anthropictest.Text("too late"))
		}
		rep := anthropictest.Message(anthropictest.ToolUse("toolu_01", RunAgentTool, map[string]any{"agent": "helper", "prompt": "Help."}))
		rep.StopReason = "tool_use"
		return rep
	})
	var fin *agent.SubagentEvent
	var turnErr error
	for ev := range a.Send(ctx, "go") {
		switch ev.Type {
		case agent.EventSubagentFinished:
			fin = ev.Subagent
		case agent.EventError:
			turnErr = ev.Err
		}
	}
	close(stopped)
	if fin == nil || !fin.IsError || fin.SessionID == "" {
		t.Fatalf("subagent_finished: %+v", fin)
	}
	if agent.KindOf(turnErr) != agent.ErrCancelled {
		t.Errorf("the turn ended with %v, want a cancellation", turnErr)
	}
	var e *store.Export
	err := WithSessionDB(t.Context(), f.flags.DBPath, true, func(db *store.DB) (err error) {
		e, err = db.Export(t.Context(), fin.SessionID)
		return err
	})
	if err != nil || e.Session.ParentID != a.Session().ID() || !strings.HasPrefix(e.Session.Title, "helper: Help.") {
		t.Fatalf("the child's stored session: %v, %+v", err, e)
	}
}

// With no callable profile (a plain one does not count) nothing is added:
// the tools array is what it was before subagents existed.
func TestNoSubagentNoRunAgent(t *testing.T) {
	f := newFixture(t, false)
	writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents", "plain.md"), "---\ndescription: Plain\n---\nPlain.\n")
	a := f.open(t, nil)
	if n := len(a.Session().Tools().All()); n != 0 {
		t.Errorf("%d tools registered without any server or subagent: %v", n, a.Session().Tools().All())
	}
}

// Claude Code's model aliases in an agent file are the provider's model
// ids: the child's request names the id, not the alias.
func TestSubagentModelAlias(t *testing.T) {
	f, a := withHelper(t, false, "model: haiku\n")
	fin, childModel := runHelper(t, f, a)
	if fin == nil || fin.IsError || fin.Model != "claude-haiku-4-5" {
		t.Fatalf("subagent_finished: %+v", fin)
	}
	if childModel != "claude-haiku-4-5" {
		t.Errorf("the child's request named model %q, want claude-haiku-4-5", childModel)
	}
}

// runHelper runs one turn of a whose model hands "Help." to the helper
// profile (whose prompt is "You are the helper."), which answers at once;
// it returns the subagent's last event and the model its request named.
func runHelper(t *testing.T, f *fixture, a *App) (*agent.SubagentEvent, string) {
	t.Helper()
	var mu sync.Mutex
	var childModel string
	parent := 0
	f.fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if bytes.Contains(r.Body, []byte("You are the helper.")) {
			childModel = r.Model()
			return anthropictest.Message(anthropictest.Text("helped"))
		}
		if parent++; parent > 1 {
			return anthropictest.Message(anthropictest.Text("done"))
		}
		rep := anthropictest.Message(anthropictest.ToolUse("toolu_01", RunAgentTool, map[string]any{"agent": "helper", "prompt": "Help."}))
		rep.StopReason = "tool_use"
		return rep
	})
	var fin *agent.SubagentEvent
	for ev := range a.Send(t.Context(), "go") {
		if ev.Type == agent.EventSubagentFinished {
			fin = ev.Subagent
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return fin, childModel
}

// A resumed parent's figures are those it had while it ran: its
// subagents' requests, tokens and cost included; agent sessions show
// counts them too.
func TestResumedParentCountsItsSubagents(t *testing.T) {
	f, a := withHelper(t, false, "model: claude-haiku-4-5\n")
	if fin, _ := runHelper(t, f, a); fin == nil || fin.IsError {
		t.Fatalf("subagent_finished: %+v", fin)
	}
	live, id := a.Spend(), a.Session().ID()
	a.Close()
	if live.Requests != 3 || live.Cost == 0 {
		t.Fatalf("live figures: %+v", live)
	}
	b := f.open(t, func(fl *Flags) { fl.Resume = id })
	if got := b.Spend(); got.Requests != live.Requests || !reflect.DeepEqual(got.Usage, live.Usage) || fmt.Sprintf("%.9f", got.Cost) != fmt.Sprintf("%.9f", live.Cost) {
		t.Errorf("resumed figures %+v, live %+v", got, live)
	}
	var e *store.Export
	err := WithSessionDB(t.Context(), f.flags.DBPath, true, func(db *store.DB) (err error) {
		e, err = db.Export(t.Context(), id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	WriteTranscript(&out, e)
	want := fmt.Sprintf("3 requests (1 by subagents) · tokens in %d (cache read %d, write %d), out %d · cost $%.4f",
		live.Usage.InputTokens, live.Usage.CacheReadTokens, live.Usage.CacheWriteTokens, live.Usage.OutputTokens, live.Cost)
	if !strings.Contains(out.String(), want) {
		t.Errorf("sessions show lacks %q:\n%s", want, out.String())
	}
}

// Each provider spells the alias its own way; one that serves no Claude
// says so in one line naming the file and what to write.
func TestProfileModelAliases(t *testing.T) {
	for _, c := range []struct{ provider, model, fallback, want, wantFallback, err string }{
		{"anthropic", "sonnet", "haiku", "claude-sonnet-4-5", "claude-haiku-4-5", ""},
		{"bedrock", "opus", "", "us.anthropic.claude-opus-4-5-20251101-v1:0", "", ""},
		{"vertex", "Haiku", "", "claude-haiku-4-5@20251001", "", ""},
		{"anthropic", "claude-opus-4-1", "", "claude-opus-4-1", "", ""},
		{"openai", "sonnet", "", "", "", `/x/helper.md: agent profile helper: model "sonnet" is a Claude alias and provider openai serves no Claude model by that name: write a model id it serves (model: gpt-5.4), set ANTHROPIC_DEFAULT_SONNET_MODEL, or set provider: anthropic`},
		{"openai", "gpt-5.4", "opus", "", "", `fallback_model "opus"`},
	} {
		t.Run(c.provider+"/"+c.model, func(t *testing.T) {
			s := Settings{Config: config.Defaults()}
			var p agents.Profile
			p.Name, p.Path, p.Provider, p.Model, p.FallbackModel = "helper", "/x/helper.md", c.provider, c.model, c.fallback
			err := s.applyProfile(p, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || s.Model != c.want || s.FallbackModel != c.wantFallback {
				t.Errorf("model %q, fallback %q, err %v; want %q, %q", s.Model, s.FallbackModel, err, c.want, c.wantFallback)
			}
		})
	}
}

// In plan mode run_agent runs, and the subagent runs in plan mode too: its
// model is told so, and its call of a tool that is not read-only is
// refused as the parent's would be (the server never sees it).
func TestRunAgentInPlanMode(t *testing.T) {
	f, a := withHelper(t, true, "mcp: [tt]\ndefer: false\n")
	if err := a.SetPermissionMode(permission.ModePlan); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var childSawPlan bool
	child, parent := 0, 0
	f.fake.SetHandler(func(r *anthropictest.Request) anthropictest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if bytes.Contains(r.Body, []byte("You are the helper.")) {
			childSawPlan = childSawPlan || bytes.Contains(r.Body, []byte(permission.PlanNote))
			if child++; child > 1 {
				return anthropictest.Message(anthropictest.Text("could not check the weather"))
			}
			rep := anthropictest.Message(anthropictest.ToolUse("toolu_c1", "tt__get_weather", map[string]any{"city": "Berlin"}))
			rep.StopReason = "tool_use"
			return rep
		}
		if parent++; parent > 1 {
			return anthropictest.Message(anthropictest.Text("the plan"))
		}
		rep := anthropictest.Message(anthropictest.ToolUse("toolu_01", RunAgentTool, map[string]any{"agent": "helper", "prompt": "Check the weather."}))
		rep.StopReason = "tool_use"
		return rep
	})
	var runAgent, childCall *agent.ToolEvent
	for ev := range a.Send(t.Context(), "plan it") {
		switch {
		case ev.Type == agent.EventToolFinished && ev.Tool.Name == RunAgentTool:
			runAgent = ev.Tool
		case ev.Type == agent.EventSubagentEvent && ev.Subagent.Event.Type == agent.EventToolFinished:
			childCall = ev.Subagent.Event.Tool
		case ev.Type == agent.EventError:
			t.Fatalf("turn error: %v", ev.Err)
		}
	}
	if runAgent == nil || strings.Contains(runAgent.Result, "plan mode") {
		t.Fatalf("run_agent was refused in plan mode: %+v", runAgent)
	}
	if childCall == nil || !strings.Contains(childCall.Result, permission.PlanRefusal("tt__get_weather")) || strings.Contains(childCall.Result, "sunny") {
		t.Errorf("the subagent's call of a tool that is not read-only: %+v", childCall)
	}
	mu.Lock()
	defer mu.Unlock()
	if !childSawPlan {
		t.Error("the subagent's model was not told it is in plan mode")
	}
}

// agent sessions marks a subagent's session: ↳ under its parent's row, or
// naming its parent when that is not listed; the JSON list carries
// parent_session_id on the child alone.
func TestSessionListMarksSubagents(t *testing.T) {
	f, a := withHelper(t, false, "")
	fin, _ := runHelper(t, f, a)
	if fin == nil || fin.IsError {
		t.Fatalf("subagent_finished: %+v", fin)
	}
	parent, child := a.Session().ID(), fin.SessionID
	a.Close()
	var list []store.Summary
	err := WithSessionDB(t.Context(), f.flags.DBPath, true, func(db *store.DB) (err error) {
		list, err = db.List(t.Context(), store.ListOptions{})
		return err
	})
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v, %+v", err, list)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, list); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(js.String(), `"parent_session_id": "`+parent+`"`); n != 1 || strings.Count(js.String(), "parent_session_id") != 1 {
		t.Errorf("JSON list: %s", js.String())
	}
	var b bytes.Buffer
	WriteSessionTable(&b, list, time.Now(), 0)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], parent) || !strings.HasPrefix(lines[2], child) || !strings.Contains(lines[2], "↳ helper: Help.") {
		t.Errorf("table:\n%s", b.String())
	}
	// The parent not listed (a --limit cut it): the child names it.
	b.Reset()
	WriteSessionTable(&b, []store.Summary{list[slices.IndexFunc(list, func(s store.Summary) bool { return s.ID == child })]}, time.Now(), 0)
	if !strings.Contains(b.String(), "↳ subagent of "+parent+": helper: Help.") {
		t.Errorf("table without the parent:\n%s", b.String())
	}
}
