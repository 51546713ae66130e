package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
)

// fakeHost answers servers' requests as a user would, and records them.
type fakeHost struct {
	mu       sync.Mutex
	elicits  []Elicitation
	samples  []SamplingRequest
	answer   func(Elicitation) ElicitAnswer
	sampleOK bool
}

func (h *fakeHost) Elicit(_ context.Context, e Elicitation) (ElicitAnswer, error) {
	h.mu.Lock()
	h.elicits = append(h.elicits, e)
	h.mu.Unlock()
	if h.answer != nil {
		return h.answer(e), nil
	}
	return ElicitAnswer{Action: ActionDecline}, nil
}

func (h *fakeHost) Sample(_ context.Context, r SamplingRequest) (SamplingAnswer, error) {
	h.mu.Lock()
	h.samples = append(h.samples, r)
	h.mu.Unlock()
	if !h.sampleOK {
		return SamplingAnswer{}, ErrDeclined
	}
	return SamplingAnswer{Model: "fake-model", Text: "sampled: " + r.Messages[0].Text, StopReason: "endTurn"}, nil
}

// waitTools waits until the server lists n tools (server-everything adds
// the tools a client's capabilities allow after initialize, with
// tools/list_changed) and the change is applied to set.
func waitTools(t *testing.T, m *Manager, set *tools.Set, server string, n int) Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := m.Sync(); err != nil {
			t.Fatal(err)
		}
		st := m.Status()[slices.IndexFunc(m.Status(), func(x Status) bool { return x.Name == server })]
		if st.Tools+len(st.Hidden) >= n {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s lists %d tools (+%d hidden), want %d", server, st.Tools, len(st.Hidden), n)
		}
		select {
		case <-time.After(50 * time.Millisecond): // the server gives no other signal
		case <-t.Context().Done():
		}
	}
}

// TestRealEverythingCapabilities runs server-everything over stdio and
// streamable HTTP with the client's roots, sampling, elicitation and tasks:
// it offers all of its 19 tools; one runs only as a task (the client is the
// requestor), and the two -async ones send their sampling and elicitation
// requests as tasks (the client is the receiver).
func TestRealEverythingCapabilities(t *testing.T) {
	t.Parallel()
	bin := nodeBin(t, "mcp-server-everything")
	httpBase := serveHTTP(t, bin, "streamableHttp")
	workdir := t.TempDir()
	servers := []config.MCPServer{
		{Name: "ev", Type: config.MCPStdio, Command: bin, Args: []string{"stdio"}},
		{Name: "evhttp", Type: config.MCPHTTP, URL: httpBase + "/mcp"},
	}
	h := &fakeHost{sampleOK: true}
	h.answer = func(e Elicitation) ElicitAnswer {
		if e.Mode == "url" {
			return ElicitAnswer{Action: ActionAccept}
		}
		if strings.Contains(e.Message, "async task demo") {
			return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"name": "Ada", "favoriteColor": "Blue", "agreeToTerms": true}}
		}
		// name and check given; the rest left to defaults (SEP-1034).
		return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"name": "Ada", "check": true}}
	}
	m, _, errs := startManager(t, Options{StartTimeout: 60 * time.Second, Host: h, Workdir: workdir}, servers...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := tools.NewSet()
	if err := m.Register(set, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		t.Run(s.Type, func(t *testing.T) {
			st := waitTools(t, m, set, s.Name, 19)
			if st.Tools != 19 || len(st.Hidden) != 0 {
				t.Fatalf("want 19 tools offered (simulate-research-query as a task, the -async ones with client tasks), none hidden; got %d and %+v", st.Tools, st.Hidden)
			}
			if st.Prompts == 0 || st.Resources == 0 {
				t.Errorf("prompts %d, resources %d: want both listed", st.Prompts, st.Resources)
			}
			name := func(tool string) string { return ToolName(s.Name, tool) }
			// A taskSupport:"required" tool runs as a task: created,
			// polled, its result read; progress shows its status messages.
			var stages []string
			var smu sync.Mutex
			research, _ := set.Lookup(name("simulate-research-query"))
			rctx := tools.WithProgress(t.Context(), func(p tools.Progress) { smu.Lock(); stages = append(stages, p.Message); smu.Unlock() })
			if r, err := research.Exec(rctx, json.RawMessage(`{"topic":"tides"}`)); err != nil || r.IsError || !strings.Contains(r.Text, "Research Report: tides") {
				t.Errorf("task tool: %v %+v", err, r)
			}
			smu.Lock()
			if len(stages) == 0 || !strings.HasPrefix(stages[0], "working: ") {
				t.Errorf("task status as progress: %q", stages)
			}
			smu.Unlock()
			// Needing input, the task's elicitation comes through tasks/result.
			if r, err := research.Exec(t.Context(), json.RawMessage(`{"topic":"python","ambiguous":true}`)); err != nil || r.IsError || !strings.Contains(r.Text, "Research Report: python") {
				t.Errorf("task tool with input_required: %v %+v", err, r)
			}
			h.mu.Lock()
			if !slices.ContainsFunc(h.elicits, func(e Elicitation) bool {
				return e.Server == s.Name && strings.Contains(e.Message, `"python" could have multiple interpretations`)
			}) {
				t.Errorf("the task's clarification was not asked: %+v", h.elicits)
			}
			h.mu.Unlock()

			r := call(t, set, name("get-roots-list"), `{}`)
			if !strings.Contains(r.Text, "file://"+workdir) {
				t.Errorf("roots: %s", r.Text)
			}

			r = call(t, set, name("trigger-elicitation-request"), `{}`)
			if r.IsError || !strings.Contains(r.Text, "Ada") || !strings.Contains(r.Text, "It was a dark and stormy night.") {
				t.Errorf("elicitation (the default of firstLine must be applied): %s", r.Text)
			}
			r = call(t, set, name("trigger-url-elicitation"), `{"url":"https://example.com/consent"}`)
			if r.IsError || !strings.Contains(r.Text, "completed the URL elicitation") {
				t.Errorf("url elicitation: %s", r.Text)
			}

			// The error path (-32042): the prerequisite URL is put to the
			// host as a retry, and the retried call asks by the request path.
			r = call(t, set, name("trigger-url-elicitation"), `{"url":"https://example.com/pay","errorPath":true}`)
			if r.IsError || !strings.Contains(r.Text, "completed the URL elicitation") {
				t.Errorf("url elicitation required (-32042): %s", r.Text)
			}
			h.mu.Lock()
			if !slices.ContainsFunc(h.elicits, func(e Elicitation) bool {
				return e.Server == s.Name && e.Retry && e.URL == "https://modelcontextprotocol.io" && e.ID != ""
			}) {
				t.Errorf("the -32042 prerequisite was not shown as a retry: %+v", h.elicits)
			}
			h.mu.Unlock()

			r = call(t, set, name("trigger-sampling-request"), `{"prompt":"ping","maxTokens":20}`)
			if r.IsError || !strings.Contains(r.Text, "sampled: ") || !strings.Contains(r.Text, "ping") || !strings.Contains(r.Text, "fake-model") {
				t.Errorf("sampling: %s", r.Text)
			}

			// Client-side tasks: the server sends the request with
			// params.task, polls the client's tasks/get and reads
			// tasks/result, whose answer carries the related-task _meta.
			r = call(t, set, name("trigger-sampling-request-async"), `{"prompt":"pong","maxTokens":20}`)
			for _, want := range []string{"[COMPLETED] Async sampling completed!", "sampled: ", "pong", "fake-model", mcpgo.RelatedTaskMetaKey} {
				if r.IsError || !strings.Contains(r.Text, want) {
					t.Errorf("async sampling: no %q in %s", want, r.Text)
				}
			}
			r = call(t, set, name("trigger-elicitation-request-async"), `{}`)
			for _, want := range []string{"[COMPLETED] User provided the requested information!", "- Name: Ada", "- Favorite Color: Blue", "- Agreed to terms: true", mcpgo.RelatedTaskMetaKey} {
				if r.IsError || !strings.Contains(r.Text, want) {
					t.Errorf("async elicitation: no %q in %s", want, r.Text)
				}
			}

			var got []tools.Progress
			var pmu sync.Mutex
			tool, _ := set.Lookup(name("trigger-long-running-operation"))
			ctx := tools.WithProgress(t.Context(), func(p tools.Progress) { pmu.Lock(); got = append(got, p); pmu.Unlock() })
			if r, err := tool.Exec(ctx, json.RawMessage(`{"duration":0.3,"steps":3}`)); err != nil || r.IsError {
				t.Fatalf("long running: %v %+v", err, r)
			}
			pmu.Lock()
			if len(got) != 3 || got[2].Progress != 3 || got[2].Total != 3 {
				t.Errorf("progress: %+v", got)
			}
			pmu.Unlock()

			// A resource link a tool returns is read through read_resource.
			r = call(t, set, name("get-resource-links"), `{"count":1}`)
			i := strings.Index(r.Text, "[resource link ")
			if i < 0 {
				t.Fatalf("no resource link: %s", r.Text)
			}
			uri := strings.Fields(r.Text[i+len("[resource link "):])[0]
			uri = strings.TrimSuffix(uri, "]")
			args, _ := json.Marshal(map[string]string{"uri": uri, "server": s.Name})
			r = call(t, set, ReadResourceTool, string(args))
			if r.IsError || r.Text == "" || strings.Contains(r.Text, "binary content not shown") {
				t.Errorf("read_resource %s: %+v", uri, r)
			}

			msgs, err := m.GetPrompt(t.Context(), s.Name, "simple-prompt", nil)
			if err != nil || len(msgs) == 0 || msgs[0].Text == "" {
				t.Errorf("simple-prompt: %v %+v", err, msgs)
			}
		})
	}
}
