package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestToolUses(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	uses := []ToolUse{
		{At: t0, Session: "s1", Kind: UseFound, Query: "weather in Paris", Tool: "get_weather", Server: "weather", Search: "client"},
		{At: t0, Session: "s1", Kind: UseFound, Query: "weather in Paris", Tool: "get_forecast", Server: "weather", Search: "client"},
		{At: t0.Add(time.Second), Session: "s1", Kind: UseCalled, Query: "weather in Paris", Tool: "get_weather", Server: "weather", Search: "client"},
		{At: t0.Add(2 * time.Second), Session: "s2", Kind: UseCalled, Query: "open an issue with token ghp_abcdefghijklmnopqrstuvwx", Tool: "create_issue", Server: "github", Search: "provider"},
	}
	if err := d.RecordToolUses(ctx, uses...); err != nil {
		t.Fatal(err)
	}
	if err := d.RecordToolUses(ctx, ToolUse{Kind: "guessed", Query: "q", Tool: "t"}); err == nil {
		t.Error("a use of an unknown kind was stored")
	}
	// Reopen: the rows are in the file.
	d.Close()
	d2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	got, err := d2.LearnedUses(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Tool != "get_weather" || got[1].Tool != "create_issue" || !got[0].At.Equal(t0.Add(time.Second)) {
		t.Fatalf("learned uses = %+v, want the two calls oldest first", got)
	}
	if strings.Contains(got[1].Query, "ghp_") || !strings.Contains(got[1].Query, Redacted) {
		t.Errorf("a credential in a query was stored: %q", got[1].Query)
	}
	if newest, _ := d2.LearnedUses(ctx, "", 1); len(newest) != 1 || newest[0].Tool != "create_issue" {
		t.Errorf("LearnedUses(1) = %+v, want the newest call", newest)
	}
	stats, err := d2.ToolStats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 3 || stats[0].Called != 1 || stats[0].Found+stats[1].Found+stats[2].Found != 2 {
		t.Errorf("stats = %+v", stats)
	}
	for _, s := range stats {
		if s.Tool == "get_weather" && (s.Found != 1 || s.Called != 1 || s.Server != "weather" || !s.LastUsed.Equal(t0.Add(time.Second))) {
			t.Errorf("get_weather stats = %+v", s)
		}
	}
	n, err := d2.ForgetToolUses(ctx, "", "")
	if err != nil || n != 4 {
		t.Fatalf("forget = %d, %v; want 4 rows", n, err)
	}
	if got, _ := d2.LearnedUses(ctx, "", 0); len(got) != 0 {
		t.Errorf("after forget: %+v", got)
	}
}
