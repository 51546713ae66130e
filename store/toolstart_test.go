//go:build unix

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// helperToolCrash runs a turn whose model calls two tools: "slow" starts
// and never returns; "gated" waits for an approval that never comes.
func helperToolCrash() int {
	ctx := context.Background()
	d, err := Open(ctx, os.Getenv("STORE_DB"))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	st, err := d.Create(ctx, SessionMeta{Workdir: "/w", Provider: "fake", Model: "m"})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("session", st.ID())
	set := tools.NewSet()
	block := func(name string) tools.Tool {
		return tools.Tool{Name: name, Schema: json.RawMessage(`{"type":"object"}`),
			Exec: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
				fmt.Println("running", name)
				select {}
			}}
	}
	_ = set.Add(nil, block("slow"), block("gated"))
	p := &scriptProvider{steps: []agent.Message{{Role: agent.RoleAssistant, Parts: []agent.Part{
		agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "slow", Input: json.RawMessage(`{}`)}),
		agent.ToolCallPart(agent.ToolCall{ID: "c2", Name: "gated", Input: json.RawMessage(`{}`)}),
	}}}}
	s := agent.New(agent.Config{ID: st.ID(), Provider: p, Model: "m", Tools: set, Store: st,
		Permit: (&permission.Policy{RequireApproval: []string{"gated"}}).Func(nil)})
	// Nothing answers the approval: "gated" waits, never started.
	_ = s.Run(ctx, "go", func(agent.Event) {})
	return 0
}

// #14 case 6: after kill -9 during a tool call, the resumed history says the
// started call may have run, and the call that never started that it did not.
func TestToolRunningAtCrashIsResumedAsMaybeRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	h := startHelper(t, "tool-crash", "STORE_DB="+path)
	id := h.until(t, "session")
	h.until(t, "running slow")
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()

	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := d.OpenSession(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hist, err := s.LoadRepaired(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, m := range hist {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				results[p.ToolResult.CallID] = p.ToolResult.Text
			}
		}
	}
	if results["c1"] != agent.StoppedResult {
		t.Errorf("started call: %q, want %q", results["c1"], agent.StoppedResult)
	}
	if results["c2"] != agent.InterruptedResult {
		t.Errorf("never-started call: %q, want %q", results["c2"], agent.InterruptedResult)
	}
	if len(results) != 2 || len(hist) != 3 {
		t.Errorf("history = %+v", hist)
	}
}
