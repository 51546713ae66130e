package store

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeAnalyser stands for search's: lower-cased words, "the" dropped.
func fakeAnalyser(version string) RequestAnalyser {
	return RequestAnalyser{Version: version, Terms: func(q string) []string {
		return slices.DeleteFunc(strings.Fields(strings.ToLower(q)), func(w string) bool { return w == "the" })
	}}
}

func openAnalysing(t *testing.T, path, version string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path, WithRequestAnalyser(fakeAnalyser(version)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// decode is a use's terms as words, nil when it was read as text.
func decode(t *testing.T, set LearnedSet, u ToolUse) []string {
	t.Helper()
	if u.Terms == nil {
		return nil
	}
	out := []string{}
	for b := u.Terms; len(b) > 0; {
		n, k := binary.Uvarint(b)
		if k <= 0 || n >= uint64(len(set.Terms)) || set.Terms[n] == "" {
			t.Fatalf("use %+v: term number %d not in the dictionary", u, n)
		}
		out, b = append(out, set.Terms[n]), b[k:]
	}
	return out
}

func TestLearnedAnalysed(t *testing.T) {
	ctx := context.Background()
	_, path := openTest(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	// A row stored before the store analysed requests.
	plain, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.RecordToolUses(ctx, ToolUse{At: t0, Session: "s0", Kind: UseCalled, Query: "Old request", Tool: "old"}); err != nil {
		t.Fatal(err)
	}
	plain.Close()

	d := openAnalysing(t, path, "v1")
	uses := []ToolUse{
		{At: t0.Add(time.Second), Session: "s1", Kind: UseFound, Query: "the weather in Paris", Tool: "get_weather"},
		{At: t0.Add(2 * time.Second), Session: "s1", Kind: UseCalled, Query: "the weather in Paris", Tool: "get_weather"},
		{At: t0.Add(3 * time.Second), Session: "s2", Kind: UseCalled, Query: "open an issue with token ghp_abcdefghijklmnopqrstuvwx", Tool: "create_issue"},
		{At: t0.Add(4 * time.Second), Session: "s2", Kind: UseCalled, Query: "the the", Tool: "nothing"},
	}
	if err := d.RecordToolUses(ctx, uses...); err != nil {
		t.Fatal(err)
	}
	set, err := d.LearnedAnalysed(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Uses) != 4 || set.Stale != 1 || set.Version != "v1" {
		t.Fatalf("read %d uses, %d stale, version %q; want 4, 1 (the row stored before), v1", len(set.Uses), set.Stale, set.Version)
	}
	want := [][]string{nil, {"weather", "in", "paris"}, {"open", "an", "issue", "with", "token", strings.ToLower(Redacted)}, {}}
	for i, u := range set.Uses {
		if got := decode(t, set, u); !slices.Equal(got, want[i]) || (want[i] == nil) != (got == nil) {
			t.Errorf("use %d (%s): terms %q, want %q", i, u.Tool, got, want[i])
		}
		if (u.Query != "") != (want[i] == nil) {
			t.Errorf("use %d (%s): query %q: the text is read only when the terms are not", i, u.Tool, u.Query)
		}
	}
	if set.Uses[0].Query != "Old request" {
		t.Errorf("the stale row's query: %q", set.Uses[0].Query)
	}

	// The stale row is analysed for the next start, a few rows a
	// transaction.
	defer func(n int) { staleBatch = n }(staleBatch)
	staleBatch = 2
	if n, err := d.AnalyseStaleUses(ctx, ""); err != nil || n != 1 {
		t.Fatalf("AnalyseStaleUses = %d, %v; want the 1 row stored before", n, err)
	}
	if set, _ = d.LearnedAnalysed(ctx, "", 0); set.Stale != 0 || !slices.Equal(decode(t, set, set.Uses[0]), []string{"old", "request"}) {
		t.Fatalf("after AnalyseStaleUses: %d stale, first use %q", set.Stale, decode(t, set, set.Uses[0]))
	}

	// Another analysis: every row is read as text, and analysed again.
	d2 := openAnalysing(t, path, "v2")
	if set, _ := d2.LearnedAnalysed(ctx, "", 0); set.Stale != 4 || set.Uses[1].Query != "the weather in Paris" {
		t.Fatalf("under another version: %d stale, want 4", set.Stale)
	}
	if n, err := d2.AnalyseStaleUses(ctx, ""); err != nil || n != 4 {
		t.Fatalf("AnalyseStaleUses under v2 = %d, %v; want 4", n, err)
	}
	if set, _ := d2.LearnedAnalysed(ctx, "", 2); set.Stale != 0 || len(set.Uses) != 2 || set.Uses[1].Tool != "nothing" {
		t.Fatalf("newest 2 under v2: %+v", set)
	}

	// Importing analyses too, and twice changes nothing.
	for _, wantAdded := range []int{1, 0} {
		added, err := d2.ImportToolUses(ctx, "", []ToolUse{{At: t0.Add(5 * time.Second), Query: "Shared request", Tool: "shared"}})
		if err != nil || added != wantAdded {
			t.Fatalf("import: %d, %v; want %d", added, err, wantAdded)
		}
	}
	set, _ = d2.LearnedAnalysed(ctx, "", 0)
	if last := set.Uses[len(set.Uses)-1]; len(set.Uses) != 5 || !slices.Equal(decode(t, set, last), []string{"shared", "request"}) {
		t.Fatalf("after import: %d uses, last %+v", len(set.Uses), last)
	}

	// Forgetting a tool forgets the words only its requests had.
	terms := func() []string {
		set, err := d2.LearnedAnalysed(ctx, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(slices.Clone(set.Terms), func(s string) bool { return s == "" })
	}
	if _, err := d2.ForgetToolUses(ctx, "", "shared"); err != nil {
		t.Fatal(err)
	}
	if got := terms(); slices.Contains(got, "shared") || !slices.Contains(got, "request") || !slices.Contains(got, "paris") {
		t.Errorf("after forgetting shared: terms %q, want no 'shared', 'request' (old's) kept", got)
	}
	if _, err := d2.ForgetToolUses(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := d2.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM search_terms`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after forgetting everything: %d search terms left (%v)", left, err)
	}
	// A term number is never given again: a new term gets a new one.
	if err := d2.RecordToolUses(ctx, ToolUse{At: t0, Session: "s3", Kind: UseCalled, Query: "fresh", Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if set, _ := d2.LearnedAnalysed(ctx, "", 0); len(set.Terms) < 10 || set.Terms[len(set.Terms)-1] != "fresh" {
		t.Errorf("a new term after forgetting: dictionary %q, want it numbered after every earlier one", set.Terms)
	}
}

// TestLearnedAnalysedWithoutAnalyser: a store opened without one reads
// every use as text, as LearnedUses does.
func TestLearnedAnalysedWithoutAnalyser(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.RecordToolUses(ctx, ToolUse{Session: "s", Kind: UseCalled, Query: "q one", Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	set, err := d.LearnedAnalysed(ctx, "", 0)
	if err != nil || len(set.Uses) != 1 || set.Uses[0].Terms != nil || set.Uses[0].Query != "q one" || set.Terms != nil {
		t.Fatalf("%+v, %v", set, err)
	}
	if n, err := d.AnalyseStaleUses(ctx, ""); n != 0 || err != nil {
		t.Errorf("AnalyseStaleUses without an analyser = %d, %v", n, err)
	}
}
