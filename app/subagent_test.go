package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/store"
)

// Cancelling the turn cancels the subagent it runs: the child's request is
// given up, the child ends as failed, the turn as cancelled, and the
// child's session stays stored under its parent.
func TestSubagentCancelledWithItsTurn(t *testing.T) {
	f := newFixture(t, false)
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents")
	writeFile(t, filepath.Join(dir, "helper.md"), "---\ndescription: Helps\nsubagent: true\n---\nYou are the helper.\n")
	a := f.open(t, nil)
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
	f := newFixture(t, false)
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents")
	writeFile(t, filepath.Join(dir, "helper.md"), "---\ndescription: Helps\nsubagent: true\nmodel: haiku\n---\nYou are the helper.\n")
	a := f.open(t, nil)
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
	if fin == nil || fin.IsError || fin.Model != "claude-haiku-4-5" {
		t.Fatalf("subagent_finished: %+v", fin)
	}
	mu.Lock()
	defer mu.Unlock()
	if childModel != "claude-haiku-4-5" {
		t.Errorf("the child's request named model %q, want claude-haiku-4-5", childModel)
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
		{"openai", "sonnet", "", "", "", `/x/helper.md: agent profile helper: model "sonnet" is a Claude alias and provider openai serves no Claude model by that name: write a model id it serves (model: gpt-5.4), or set provider: anthropic`},
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
