// Command rundemo runs the TUI over the demo kit without the cmd/ wiring
// (no store). It is a
// development aid and a reference for implementing tui.Backend:
//
//	go run ./demo/internal/rundemo
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/demo"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/search"
	"github.com/agent-dev/agent/tui"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rundemo:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	kit, err := demo.New(demo.Options{})
	if err != nil {
		return err
	}
	set := tools.NewSet()
	if err := set.Add(nil, kit.Tools...); err != nil {
		return err
	}
	b := &backend{approvals: make(chan tui.ApprovalRequest), always: map[string]bool{}}
	b.s = &agent.Session{ID: "rundemo", Provider: kit.Provider, Model: kit.Model, System: kit.System, Tools: set,
		Search: agent.SearchNative, Searcher: search.NewSearcher(set), Approver: b,
		// Writing files asks first, to show the approval dialog.
		NeedsApproval: func(t tools.Tool) bool { return strings.HasPrefix(t.Name, "files_write") }}
	return tui.Run(ctx, b, tui.Options{Theme: os.Getenv("AGENT_THEME")})
}

type backend struct {
	s         *agent.Session
	approvals chan tui.ApprovalRequest
	mu        sync.Mutex
	always    map[string]bool
}

var _ tui.Backend = (*backend)(nil)
var _ agent.Approver = (*backend)(nil)

func (b *backend) Send(ctx context.Context, text string) <-chan agent.Event {
	return b.s.Send(ctx, text)
}
func (b *backend) Approvals() <-chan tui.ApprovalRequest { return b.approvals }

// Approve hands the call to the TUI and waits for the answer.
func (b *backend) Approve(ctx context.Context, call agent.ToolEvent) (bool, error) {
	b.mu.Lock()
	ok := b.always[call.Name]
	b.mu.Unlock()
	if ok {
		return true, nil
	}
	answer := make(chan tui.Decision, 1)
	select {
	case b.approvals <- tui.ApprovalRequest{Tool: call, Reply: func(d tui.Decision) { answer <- d }}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case d := <-answer:
		if d == tui.AllowAlways {
			b.mu.Lock()
			b.always[call.Name] = true
			b.mu.Unlock()
		}
		return d != tui.Deny, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (b *backend) Info() tui.Info {
	return tui.Info{Provider: "demo", Model: b.s.Model, SessionID: b.s.ID, SearchMode: string(b.s.Search),
		Active: len(b.s.Tools.Active()), Deferred: len(b.s.Tools.Deferred()), Note: demo.Note, Totals: b.s.Totals}
}

func (b *backend) Tools() []tui.ToolInfo {
	var out []tui.ToolInfo
	for _, t := range b.s.Tools.All() {
		out = append(out, tui.ToolInfo{Name: t.Name, Server: t.Server, Description: t.Description, Deferred: b.s.Tools.IsDeferred(t.Name)})
	}
	return out
}

func (b *backend) Search(ctx context.Context, q string) ([]tui.ToolInfo, error) {
	names, err := b.s.Searcher.Search(ctx, agent.SearchCall{Where: agent.WhereClient, Query: q})
	if err != nil {
		return nil, err
	}
	var out []tui.ToolInfo
	for _, n := range names {
		if t, ok := b.s.Tools.Lookup(n); ok {
			out = append(out, tui.ToolInfo{Name: t.Name, Server: t.Server, Description: t.Description, Deferred: true})
		}
	}
	return out, nil
}

func (b *backend) SetModel(name string) error {
	if name != demo.Model {
		return fmt.Errorf("the demo only has %s", demo.Model)
	}
	return nil
}

func (b *backend) Sessions(context.Context) ([]tui.SessionInfo, error) { return nil, nil }
func (b *backend) Resume(context.Context, string) ([]agent.Message, error) {
	return nil, fmt.Errorf("rundemo keeps no store")
}
func (b *backend) New(context.Context) error {
	b.s.History = nil
	return nil
}
