package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
)

func TestRoundTripKeepsEveryByte(t *testing.T) {
	ctx := t.Context()
	d, path := openTest(t)
	s := create(t, d, "/w")
	want := conversation()
	appendAll(t, s, want...)
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	d.Close()

	d2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	s2, err := d2.OpenSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("history changed on reload:\ngot  %s\nwant %s", gj, wj)
	}
	// DeepEqual compares bytes, but say it plainly for the payloads a
	// provider replays.
	for i := range want {
		for j, p := range want[i].Parts {
			q := got[i].Parts[j]
			switch {
			case p.Raw != nil && !bytes.Equal(p.Raw.Data, q.Raw.Data):
				t.Errorf("message %d part %d raw bytes differ: %q vs %q", i, j, q.Raw.Data, p.Raw.Data)
			case p.ToolCall != nil && !bytes.Equal(p.ToolCall.Input, q.ToolCall.Input):
				t.Errorf("message %d part %d tool input differs: %q", i, j, q.ToolCall.Input)
			case p.ServerTool != nil && !bytes.Equal(p.ServerTool.Input, q.ServerTool.Input):
				t.Errorf("message %d part %d server tool input differs: %q", i, j, q.ServerTool.Input)
			}
		}
	}
	if s2.Meta().Title != "What's the weather in Paris? Use a tool." {
		t.Errorf("title = %q", s2.Meta().Title)
	}
}

func TestDiscoveriesAndRequests(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s, conversation()...)
	for i, h := range []string{"aaa", "bbb"} {
		if err := s.RecordRequest(ctx, agent.RequestRecord{Provider: "anthropic", API: "messages", Model: "m", ToolsHash: h,
			Resolved: agent.SearchNative, Usage: agent.Usage{InputTokens: 10 * (i + 1), OutputTokens: 5, CacheReadTokens: 3, CacheWriteTokens: 2,
				ServerToolUses: map[string]int{"tool_search_requests": 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.LastToolsHash(ctx)
	if err != nil || h != "bbb" {
		t.Fatalf("LastToolsHash = %q, %v", h, err)
	}
	disc, err := s.Discoveries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Discovery{
		{MessageSeq: 2, CallID: "srvtoolu_01", Tool: "get_weather", Where: "provider", Query: "weather <today> & more"},
		{MessageSeq: 5, CallID: "call_7", Tool: "cal_list", Where: "client", Query: "calendar"},
		{MessageSeq: 5, CallID: "call_7", Tool: "cal_add", Where: "client", Query: "calendar"},
	}
	if !reflect.DeepEqual(disc, want) {
		t.Fatalf("discoveries = %+v", disc)
	}
	e, err := d.Export(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Requests) != 2 || e.Requests[1].InputTokens != 20 || e.Requests[1].ServerToolUses["tool_search_requests"] != 1 || e.Requests[0].CacheWrite != 2 {
		t.Fatalf("requests = %+v", e.Requests)
	}
	if len(e.Messages) != 6 || len(e.Discoveries) != 3 || e.Session.Settings.Search != agent.SearchNative {
		t.Fatalf("export = %+v", e)
	}
	// A second session's requests are numbered on their own.
	if _, err := json.Marshal(e); err != nil {
		t.Fatal(err)
	}
}

func TestPrefixResolution(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	for _, id := range []string{"abc12345", "abc19999", "abd00000", "x_y%0000"} {
		if _, err := d.sql.ExecContext(ctx, `INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, 1, 1)`, id, "t "+id); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"abc12345", "abc12345", nil},
		{"abc1", "", ErrAmbiguous},
		{"abc12", "abc12345", nil},
		{"abd", "abd00000", nil},
		{"ab", "", ErrAmbiguous},
		{"zzz", "", ErrNotFound},
		{"", "", ErrNotFound},
		{"x_", "x_y%0000", nil},
		{"x%", "", ErrNotFound}, // LIKE wildcards are literal
		{"a_c", "", ErrNotFound},
	}
	for _, tt := range tests {
		got, err := d.Resolve(ctx, tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	_, err := d.Resolve(ctx, "abc1")
	if err == nil || !strings.Contains(err.Error(), "abc12345") || !strings.Contains(err.Error(), "abc19999") {
		t.Fatalf("ambiguous error should list matches: %v", err)
	}
	s, err := d.OpenSession(ctx, "abd")
	if err != nil || s.ID() != "abd00000" {
		t.Fatalf("OpenSession by prefix: %v", err)
	}
	s.Close()
}

func TestPartialIsReplacedByTheCompletedMessage(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}})
	for _, txt := range []string{"Hel", "Hello, wor"} {
		if err := s.SavePartial(ctx, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart(txt)}}); err != nil {
			t.Fatal(err)
		}
	}
	done := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Hello, world"), agent.RawPart("anthropic", "messages", json.RawMessage(`[{"type":"text","text":"Hello, world"}]`))}}
	appendAll(t, s, done)
	got, err := s.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[1], done) {
		t.Fatalf("history = %+v", got)
	}
}

func TestPartialLeftOpenBecomesInterrupted(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("hi")}})
	if err := s.SavePartial(ctx, agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Hello, wor")}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := d.OpenSession(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.LoadRepaired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("Hello, wor")}, Interrupted: true}
	if len(got) != 2 || !reflect.DeepEqual(got[1], want) {
		t.Fatalf("history = %+v", got)
	}
	// The next message goes after it.
	appendAll(t, s2, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("go on")}})
	got, _ = s2.LoadRepaired(ctx)
	if len(got) != 3 || got[2].Text() != "go on" {
		t.Fatalf("history after append = %+v", got)
	}
}

func TestDanglingToolCallIsRepairedAndKept(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	s := create(t, d, "/w")
	appendAll(t, s,
		agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("list files")}},
		agent.Message{Role: agent.RoleAssistant, Parts: []agent.Part{agent.ToolCallPart(agent.ToolCall{ID: "c1", Name: "ls", Input: json.RawMessage(`{}`)})}},
	)
	s.Close()
	var first []agent.Message
	for round := 0; round < 2; round++ {
		s2, err := d.OpenSession(ctx, s.ID())
		if err != nil {
			t.Fatal(err)
		}
		got, err := s2.LoadRepaired(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 3 || got[2].Role != agent.RoleUser || got[2].Parts[0].ToolResult == nil ||
			got[2].Parts[0].ToolResult.Text != agent.InterruptedResult || !got[2].Parts[0].ToolResult.IsError {
			t.Fatalf("round %d: history = %+v", round, got)
		}
		if round == 0 {
			first = got
			appendAll(t, s2, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("again")}})
			first = append(first, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("again")}})
		} else {
			// The stored history is what the live session held: the
			// synthetic result was kept, not merged anew.
			if !reflect.DeepEqual(got, first) {
				t.Fatalf("stored history differs from the live one:\n%+v\n%+v", got, first)
			}
		}
		s2.Close()
	}
}

func TestListLatestDelete(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	clock := int64(1_700_000_000_000)
	d.now = func() time.Time { clock += 1000; return fromMS(clock) }
	var ids []string
	for i, wd := range []string{"/a", "/b", "/a"} {
		s := create(t, d, wd)
		appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart(strings.Repeat("word ", 30) + string(rune('A'+i)))}})
		if i == 0 {
			appendAll(t, s, conversation()...)
		}
		ids = append(ids, s.ID())
		s.Close()
	}
	list, err := d.List(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != ids[2] || list[2].ID != ids[0] {
		t.Fatalf("list order = %+v", list)
	}
	if list[2].Messages != 7 || list[2].Searches != 2 || list[2].Provider != "anthropic" || list[2].Model != "claude-sonnet-4-5" {
		t.Fatalf("summary = %+v", list[2])
	}
	if n := len([]rune(list[0].Title)); n != 80 || !strings.HasSuffix(list[0].Title, "…") {
		t.Fatalf("title not cut to 80: %q", list[0].Title)
	}
	if l, _ := d.List(ctx, ListOptions{Limit: 2}); len(l) != 2 {
		t.Fatalf("limit: %d", len(l))
	}
	if l, _ := d.List(ctx, ListOptions{Limit: 2, All: true}); len(l) != 3 {
		t.Fatalf("all: %d", len(l))
	}
	latest, err := d.Latest(ctx, "/a")
	if err != nil || latest.ID() != ids[2] {
		t.Fatalf("latest = %v", err)
	}
	// An open session cannot be deleted from another handle's view.
	if _, err := d.Delete(ctx, ids[2]); err == nil {
		// Same process holds it: the lock's pid is alive, so refuse.
		t.Fatal("deleted a session that is open")
	}
	latest.Close()
	if _, err := d.Latest(ctx, "/nowhere"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest in empty dir: %v", err)
	}
	if _, err := d.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	var n int
	d.sql.QueryRow(`SELECT count(*) FROM messages`).Scan(&n)
	if n != 2 {
		t.Fatalf("messages left after delete: %d", n)
	}
	if _, err := d.Export(ctx, ids[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("export deleted: %v", err)
	}
}

func TestUpdateMeta(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	s := create(t, d, "/w")
	m := s.Meta()
	m.Model = "claude-opus-4-5"
	m.Settings.Search = agent.SearchClient
	m.ID = "ignored"
	if err := s.UpdateMeta(ctx, m); err != nil {
		t.Fatal(err)
	}
	e, err := d.Export(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if e.Session.Model != "claude-opus-4-5" || e.Session.Settings.Search != agent.SearchClient || e.Session.ID != s.ID() {
		t.Fatalf("meta = %+v", e.Session)
	}
}

// The title is the prompt's first paragraph, not an attached file's text.
func TestTitleIsTheFirstParagraph(t *testing.T) {
	d, _ := openTest(t)
	s := create(t, d, "/a")
	appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("Review @notes.txt\n\n<file path=\"notes.txt\">\nhello file\n</file>")}})
	if got := s.Meta().Title; got != "Review @notes.txt" {
		t.Errorf("title = %q", got)
	}
	// A hook's context is a text part of its own after the prompt: it is
	// not the title ("slowUserPromptSubmit hook context: ..." was).
	s = create(t, d, "/b")
	appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("slow"), agent.TextPart("UserPromptSubmit hook context:\nhook-said-hi")}})
	if got := s.Meta().Title; got != "slow" {
		t.Errorf("title with a hook's context = %q", got)
	}
}

// An attached image is kept once, as its bytes in the raw column: the
// part's JSON names it without them, and it comes back whole.
func TestImagePartStoredOnce(t *testing.T) {
	d, _ := openTest(t)
	s := create(t, d, "/w")
	data := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 3000)...))
	im := agent.Image{MediaType: "image/png", Data: data, Name: "big.png"}
	appendAll(t, s, agent.Message{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("see"), agent.ImagePart(im)}})
	var js string
	var raw []byte
	if err := d.sql.QueryRow(`SELECT json, raw FROM parts WHERE type = 'image'`).Scan(&js, &raw); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js, data[:40]) || !strings.Contains(js, `"name":"big.png"`) || len(raw) != 3008 {
		t.Errorf("json %s, %d raw bytes", js, len(raw))
	}
	got, err := s.LoadRepaired(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if p := got[0].Parts[1]; p.Type != agent.PartImage || p.Image == nil || *p.Image != im {
		t.Errorf("read back %+v", p)
	}
}

// A session with no message is neither listed nor continued: a run killed
// before its prompt was saved (a first -p run creates its session while its
// servers list; SIGKILL then) left an empty row in agent sessions and the
// pickers, and --continue opened it instead of the last conversation.
// Empty lists it still.
func TestEmptySessionsAreNotListedOrContinued(t *testing.T) {
	ctx := t.Context()
	d, _ := openTest(t)
	clock := int64(1_700_000_000_000)
	d.now = func() time.Time { clock += 1000; return fromMS(clock) }
	full := create(t, d, "/a")
	appendAll(t, full, conversation()...)
	full.Close()
	empty := create(t, d, "/a") // later, so first by update time
	empty.Close()
	if l, err := d.List(ctx, ListOptions{}); err != nil || len(l) != 1 || l[0].ID != full.ID() {
		t.Errorf("list = %+v, %v; want only %s", l, err, full.ID())
	}
	if l, err := d.List(ctx, ListOptions{Workdir: "/a"}); err != nil || len(l) != 1 || l[0].ID != full.ID() {
		t.Errorf("list of /a = %+v, %v; want only %s", l, err, full.ID())
	}
	if l, err := d.List(ctx, ListOptions{Empty: true}); err != nil || len(l) != 2 || l[0].ID != empty.ID() {
		t.Errorf("list with the empty = %+v, %v", l, err)
	}
	latest, err := d.Latest(ctx, "/a")
	if err != nil || latest.ID() != full.ID() {
		t.Fatalf("latest = %v, want %s", err, full.ID())
	}
	latest.Close()
	// Resumed by its id it still opens (the id was given).
	s, err := d.OpenSession(ctx, empty.ID())
	if err != nil {
		t.Fatalf("open the empty session by id: %v", err)
	}
	s.Close()
}
