package store

import (
	"strings"
	"testing"
	"time"
)

// TestToolUseVotes: a session votes once per (request, tool); the demo's
// scope is apart from real sessions'; forget deletes one tool; an import
// is redacted and importing the same pairs twice adds nothing.
func TestToolUseVotes(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	call := func(at time.Duration, session, scope, query, tool string) ToolUse {
		return ToolUse{At: t0.Add(at), Session: session, Kind: UseCalled, Query: query, Tool: tool, Server: "srv", Scope: scope}
	}
	err := d.RecordToolUses(ctx,
		call(0, "s1", "", "email bob", "send_email"),
		call(1, "s1", "", "email bob", "send_email"), // the same vote again in s1
		call(2, "s2", "", "email bob", "send_email"), // another session's vote
		call(3, "s1", "", "email bob", "ping"),
		call(4, "s1", ScopeDemo, "email bob", "send_email"),
		call(5, "s1", "", "look it up", "srv__lookup"), // as the app records an MCP tool
	)
	if err != nil {
		t.Fatal(err)
	}
	real, err := d.LearnedUses(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(real) != 4 {
		t.Errorf("real uses = %+v, want 4: one vote a session per (request, tool), the demo's apart", real)
	}
	if demo, _ := d.LearnedUses(ctx, ScopeDemo, 0); len(demo) != 1 {
		t.Errorf("demo uses = %+v, want 1", demo)
	}
	if n, err := d.ForgetToolUses(ctx, "", "lookup"); err != nil || n != 1 {
		t.Errorf("forget lookup = %d, %v; want srv__lookup's row: the bare name finds the SERVER__NAME the app records", n, err)
	}
	if n, err := d.ForgetToolUses(ctx, "", "srv__ping"); err != nil || n != 1 {
		t.Errorf("forget srv__ping = %d, %v; want 1 row", n, err)
	}
	if n, err := d.ForgetToolUses(ctx, "", "send_email"); err != nil || n != 2 {
		t.Errorf("forget send_email = %d, %v; want 2 rows (the demo's stays)", n, err)
	}
	if demo, _ := d.LearnedUses(ctx, ScopeDemo, 0); len(demo) != 1 {
		t.Errorf("forgetting real uses touched the demo's: %+v", demo)
	}

	pairs := []ToolUse{
		{At: t0, Query: "open an issue with token ghp_abcdefghijklmnopqrstuvwx", Tool: "create_issue", Server: "github"},
		{At: t0.Add(time.Minute), Query: "read notes.txt", Tool: "read_file"},
	}
	for i, want := range []int{2, 0} {
		n, err := d.ImportToolUses(ctx, "", pairs)
		if err != nil || n != want {
			t.Errorf("import %d added %d, %v; want %d", i+1, n, err, want)
		}
	}
	got, _ := d.LearnedUses(ctx, "", 0)
	if len(got) != 2 || strings.Contains(got[0].Query+got[1].Query, "ghp_") {
		t.Errorf("imported uses = %+v, want the two pairs with the token redacted", got)
	}
	if _, err := d.ImportToolUses(ctx, "", []ToolUse{{Query: "q", Tool: "t"}}); err == nil {
		t.Error("a pair without a time was imported")
	}
}
