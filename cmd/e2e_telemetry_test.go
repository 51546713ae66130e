package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/telemetry/otlptest"
)

// A -p turn with telemetry on: its spans reach a local OTLP receiver over
// both protocols, the requests, the tool call and the search as children of
// the turn's span, and its metrics arrive too; nothing the user or the tool
// wrote is in them.
func TestPrintTelemetry(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			isolate(t)
			rcv := otlptest.Start(t, protocol)
			for k, v := range rcv.Env() {
				t.Setenv(k, v)
			}
			fake := anthropictest.NewServer(t)
			fake.SetScript(anthropictest.NewScript(
				anthropictest.Turn{Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin-secret-city"}},
				anthropictest.Turn{Text: "It is sunny in Berlin."},
			))
			env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "AGENT_ENABLE_TELEMETRY": "1"}
			res := runAgent(t, env, "-p", "the-prompt-of-the-user", "--provider", "anthropic", "--base-url", fake.URL,
				"--mcp-config", testMCPConfig(t), "--mcp", "tt", "--defer", "--db", filepath.Join(t.TempDir(), "agent.db"), "--output-format", "json")
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s", res.code, res.stderr, res.stdout)
			}
			out := decodePrint(t, res.stdout)
			// -p shut the export down before returning: everything is there.
			rcv.Wait(t, 10*time.Second, "the turn's spans and metrics", func(r *otlptest.Receiver) bool {
				return len(r.Spans()) >= 5 && r.Metrics()["agent.request.count"] != nil
			})
			spans := rcv.Spans()
			var turn *otlptest.Span
			count := map[string]int{}
			for i, s := range spans {
				count[s.GetName()]++
				if s.GetName() == "invoke_agent agent" {
					turn = &spans[i]
				}
			}
			if turn == nil || count["invoke_agent agent"] != 1 {
				t.Fatalf("no single turn span: %v", count)
			}
			if turn.Attrs["gen_ai.conversation.id"] != out.SessionID || turn.Service != "agent" {
				t.Errorf("turn attributes %v, service %q; session %s", turn.Attrs, turn.Service, out.SessionID)
			}
			model := fake.Requests()[0].Model()
			for name, n := range map[string]int{"chat " + model: 2, "execute_tool tt__get_weather": 1, "search_tools": 1} {
				if count[name] != n {
					t.Errorf("%s spans = %d, want %d (all: %v)", name, count[name], n, count)
				}
			}
			for _, s := range spans {
				if s.GetName() == turn.GetName() {
					continue
				}
				if !bytes.Equal(s.GetParentSpanId(), turn.GetSpanId()) || !bytes.Equal(s.GetTraceId(), turn.GetTraceId()) {
					t.Errorf("%s is not a child of the turn span", s.GetName())
				}
				switch {
				case strings.HasPrefix(s.GetName(), "chat "):
					if s.Attrs["gen_ai.provider.name"] != "anthropic" || s.Attrs["agent.search.mode"] != "native" || s.Attrs["gen_ai.usage.output_tokens"] == "" {
						t.Errorf("request span attributes %v", s.Attrs)
					}
				case s.GetName() == "execute_tool tt__get_weather":
					if s.Attrs["agent.tool.server"] != "tt" || s.Attrs["agent.tool.outcome"] != "success" {
						t.Errorf("tool span attributes %v", s.Attrs)
					}
				case s.GetName() == "search_tools":
					if s.Attrs["agent.search.where"] != "provider" || s.Attrs["agent.search.hits"] == "0" {
						t.Errorf("search span attributes %v", s.Attrs)
					}
				}
			}
			for _, m := range []string{"agent.session.count", "agent.tool.call.count", "agent.search.count", "gen_ai.client.token.usage"} {
				if rcv.Metrics()[m] == nil {
					t.Errorf("metric %s missing", m)
				}
			}
			raw := bytes.Join(rcv.Raw(), nil)
			for _, s := range []string{"the-prompt-of-the-user", "Berlin-secret-city", anthropictest.DefaultAPIKey} {
				if bytes.Contains(raw, []byte(s)) {
					t.Errorf("%q reached the receiver", s)
				}
			}
		})
	}
}

// A telemetry setting the agent cannot use is a warning; the turn runs.
func TestPrintTelemetryBadProtocol(t *testing.T) {
	isolate(t)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "hi"}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "AGENT_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
	res := runAgent(t, env, "-p", "hello", "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "agent.db"))
	if res.code != 0 || strings.TrimSpace(res.stdout) != "hi" {
		t.Fatalf("exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, `OTEL_EXPORTER_OTLP_PROTOCOL="http/json": use http/protobuf or grpc`) {
		t.Errorf("stderr does not say what is wrong: %s", res.stderr)
	}
}

// checkSubagentSpans: each subagent's turn is a span under its run_agent
// call's span, under the parent's turn; the child's requests go under the
// child's turn, on its own provider.
func checkSubagentSpans(t *testing.T, rcv *otlptest.Receiver, children ...string) {
	t.Helper()
	rcv.Wait(t, 10*time.Second, "the subagents' spans", func(r *otlptest.Receiver) bool {
		n := 0
		for _, s := range r.Spans() {
			if strings.HasPrefix(s.GetName(), "invoke_agent ") {
				n++
			}
		}
		return n >= len(children)+1
	})
	spans := rcv.Spans()
	byID := map[string]otlptest.Span{}
	for _, s := range spans {
		byID[string(s.GetSpanId())] = s
	}
	parentOf := func(s otlptest.Span) otlptest.Span { return byID[string(s.GetParentSpanId())] }
	for _, name := range children {
		found := false
		for _, s := range spans {
			if s.GetName() != "invoke_agent "+name {
				continue
			}
			found = true
			call := parentOf(s)
			if call.Span == nil || call.GetName() != "execute_tool run_agent" || parentOf(call).Span == nil || parentOf(call).GetName() != "invoke_agent agent" {
				t.Errorf("subagent %s's span is not under a run_agent call of the parent's turn (its parent: %q)", name, call.GetName())
			}
			requests := 0
			for _, c := range spans {
				if strings.HasPrefix(c.GetName(), "chat ") && bytes.Equal(c.GetParentSpanId(), s.GetSpanId()) {
					requests++
					if c.Attrs["gen_ai.provider.name"] != "openai-chat" {
						t.Errorf("subagent %s's request on %q", name, c.Attrs["gen_ai.provider.name"])
					}
				}
			}
			if requests == 0 {
				t.Errorf("subagent %s's requests are not under its span", name)
			}
		}
		if !found {
			t.Errorf("no span for subagent %s", name)
		}
	}
}

// A request the provider refuses (no response to count) is still a chat
// span under the turn's, with error status and the error's kind, as the
// turn's span is.
func TestPrintTelemetryFailedRequest(t *testing.T) {
	rcv, fake := telemetryRun(t)
	refused := anthropictest.Error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &refused}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "AGENT_ENABLE_TELEMETRY": "1"}
	res := runAgent(t, env, "-p", "hello", "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "agent.db"))
	if res.code == 0 {
		t.Fatalf("a refused request exited 0: stdout %q", res.stdout)
	}
	rcv.Wait(t, 10*time.Second, "the turn's span", func(r *otlptest.Receiver) bool {
		for _, s := range r.Spans() {
			if strings.HasPrefix(s.GetName(), "invoke_agent ") {
				return true
			}
		}
		return false
	})
	var turn, chat *otlptest.Span
	for _, s := range rcv.Spans() {
		switch {
		case strings.HasPrefix(s.GetName(), "invoke_agent "):
			turn = &s
		case strings.HasPrefix(s.GetName(), "chat "):
			chat = &s
		}
	}
	if chat == nil {
		t.Fatalf("no chat span for the refused request: %d spans", len(rcv.Spans()))
	}
	if !bytes.Equal(chat.GetParentSpanId(), turn.GetSpanId()) {
		t.Errorf("the chat span is not the turn's child")
	}
	if chat.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || chat.Attrs["error.type"] != "bad request" ||
		chat.Attrs["gen_ai.provider.name"] != "anthropic" || chat.Attrs["gen_ai.request.model"] == "" {
		t.Errorf("chat span status %v, attributes %v", chat.GetStatus(), chat.Attrs)
	}
	if chat.GetName() != "chat "+fake.Requests()[0].Model() {
		t.Errorf("chat span %q, request's model %q", chat.GetName(), fake.Requests()[0].Model())
	}
}

// A compaction's summary request that the provider refuses is a chat span
// too, with error status and agent.request.compaction: under a "compact"
// span for agent sessions compact, under the turn's span for an automatic
// compaction (the turn then goes on and answers).
func TestTelemetryFailedCompaction(t *testing.T) {
	rcv, fake := telemetryRun(t)
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "AGENT_ENABLE_TELEMETRY": "1"}
	db := filepath.Join(t.TempDir(), "agent.db")
	cfg := writeJSON(t, "config.json", map[string]any{"auto_compact": 0.5,
		"models": map[string]any{"claude-sonnet-4-5": map[string]any{"like": "claude-sonnet-4-5", "context_window": 6000, "default_max_tokens": 1000}}})
	common := []string{"--provider", "anthropic", "--base-url", fake.URL, "--db", db, "--config", cfg}
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: strings.Repeat("All work and no play makes a dull model. ", 300)}))
	first := runAgent(t, env, append([]string{"-p", "tell me a story", "--output-format", "json"}, common...)...)
	if first.code != 0 {
		t.Fatalf("first turn: exit %d: %s", first.code, first.stderr)
	}
	id := decodePrint(t, first.stdout).SessionID
	refused := anthropictest.Error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")

	// The chat span of a refused compaction, and its parent.
	failedChat := func(parentPrefix string) (chat, parent *otlptest.Span) {
		t.Helper()
		rcv.Wait(t, 10*time.Second, "a failed compaction's chat span under "+parentPrefix, func(r *otlptest.Receiver) bool {
			for _, s := range r.Spans() {
				if strings.HasPrefix(s.GetName(), "chat ") && s.Attrs["agent.request.compaction"] == "true" &&
					s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
					for _, p := range r.Spans() {
						if bytes.Equal(s.GetParentSpanId(), p.GetSpanId()) && strings.HasPrefix(p.GetName(), parentPrefix) {
							chat, parent = &s, &p
							return true
						}
					}
				}
			}
			return false
		})
		return chat, parent
	}

	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &refused}))
	if res := runAgent(t, env, append([]string{"sessions", "compact", id}, common...)...); res.code == 0 {
		t.Fatalf("a refused compaction exited 0: %s", res.stdout)
	}
	chat, parent := failedChat("compact ")
	if chat.Attrs["error.type"] != "bad request" || chat.Attrs["gen_ai.request.model"] != "claude-sonnet-4-5" ||
		parent.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || parent.Attrs["gen_ai.conversation.id"] != id {
		t.Errorf("sessions compact: chat %v %v, parent %s %v %v", chat.GetStatus(), chat.Attrs, parent.GetName(), parent.GetStatus(), parent.Attrs)
	}

	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Reply: &refused}, anthropictest.Turn{Text: "Still here."}))
	res := runAgent(t, env, append([]string{"-p", "what was it about?", "--resume", id}, common...)...)
	if res.code != 0 || !strings.Contains(res.stdout, "Still here.") || !strings.Contains(res.stderr, "the summary request failed") {
		t.Fatalf("turn after a refused automatic compaction: exit %d\nstdout %q\nstderr %q", res.code, res.stdout, res.stderr)
	}
	chat, parent = failedChat("invoke_agent ")
	if chat.Attrs["error.type"] != "bad request" || parent.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("auto compaction: chat %v %v, turn %v", chat.GetStatus(), chat.Attrs, parent.GetStatus())
	}
}

// telemetryRun isolates a test run with telemetry going to a local
// http/protobuf receiver, and an Anthropic fake.
func telemetryRun(t *testing.T) (*otlptest.Receiver, *anthropictest.Server) {
	t.Helper()
	isolate(t)
	rcv := otlptest.Start(t, "http/protobuf")
	for k, v := range rcv.Env() {
		t.Setenv(k, v)
	}
	return rcv, anthropictest.NewServer(t)
}
