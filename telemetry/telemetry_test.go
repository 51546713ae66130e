package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/telemetry"
	"github.com/agent-dev/agent/telemetry/otlptest"
)

// Secrets and content that must reach the receiver only where allowed.
const (
	headerSecret = "s3cr3t-header-value"
	prompt       = "the-user-prompt-text"
	toolArg      = "the-tool-argument"
	toolResult   = "the-tool-result"
	query        = "the-search-query"
)

// turnEvents is a turn as the session emits it: a client search, a
// request, a tool call, a second request.
func turnEvents() []agent.Event {
	input, _ := json.Marshal(map[string]string{"city": toolArg})
	return []agent.Event{
		{Type: agent.EventSearchStarted, Search: &agent.SearchEvent{ID: "s1", Where: agent.WhereClient, Query: query}},
		{Type: agent.EventSearchFinished, Search: &agent.SearchEvent{ID: "s1", Where: agent.WhereClient, Query: query, Tools: []string{"tt__get_weather", "tt__echo"}}},
		{Type: agent.EventUsage, Request: 1, StopReason: agent.StopToolUse,
			Usage:  &agent.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 1000, CacheWriteTokens: 10},
			Served: &agent.Served{Provider: "anthropic", API: "messages", Model: "claude-sonnet-4-5", Search: agent.SearchClient, Elapsed: 40 * time.Millisecond}},
		{Type: agent.EventToolStarted, Tool: &agent.ToolEvent{ID: "t1", Name: "tt__get_weather", Server: "tt", Input: input}},
		{Type: agent.EventToolFinished, Tool: &agent.ToolEvent{ID: "t1", Name: "tt__get_weather", Server: "tt", Input: input, Result: toolResult, Duration: 5 * time.Millisecond}},
		{Type: agent.EventUsage, Request: 2, StopReason: agent.StopEnd,
			Usage:  &agent.Usage{InputTokens: 200, OutputTokens: 30},
			Served: &agent.Served{Provider: "anthropic", API: "messages", Model: "claude-sonnet-4-5", Search: agent.SearchClient, Elapsed: 30 * time.Millisecond}},
		{Type: agent.EventDone},
	}
}

func setenv(t *testing.T, env map[string]string) {
	for k, v := range env {
		t.Setenv(k, v)
	}
}

func TestExportReachesReceiver(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		for _, content := range []bool{false, true} {
			name := protocol
			if content {
				name += "/content"
			}
			t.Run(name, func(t *testing.T) {
				rcv := otlptest.Start(t, protocol)
				setenv(t, rcv.Env())
				t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team-token="+headerSecret)
				t.Setenv("OTEL_SERVICE_NAME", "agent-under-test")
				t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "team=tools")
				ctx := context.Background()
				tel, err := telemetry.Start(ctx, telemetry.Options{Getenv: os.Getenv, Version: "1.2.3", LogContent: content})
				if err != nil || tel == nil {
					t.Fatalf("Start: %v, %v", tel, err)
				}
				tel.SessionStarted(ctx, "anthropic", false)
				_, turn := tel.StartTurn(ctx, telemetry.TurnInfo{SessionID: "sess-1", Provider: "anthropic", Prompt: prompt,
					Price: func(model string, u agent.Usage) (float64, bool) { return float64(u.OutputTokens) / 1000, true }})
				for _, ev := range turnEvents() {
					turn.Observe(ev)
				}
				turn.End()
				// As the app closes: Finish starts the last export, the
				// other closers run, Shutdown waits for it.
				tel.Finish()
				if err := tel.Shutdown(ctx); err != nil {
					t.Fatalf("Shutdown: %v", err)
				}
				rcv.Wait(t, 10*time.Second, "spans and metrics", func(r *otlptest.Receiver) bool {
					return len(r.Spans()) >= 5 && r.Metrics()["agent.session.count"] != nil
				})
				checkSpans(t, rcv.Spans())
				checkMetrics(t, rcv)
				checkPrivacy(t, rcv, content)
			})
		}
	}
}

func checkSpans(t *testing.T, spans []otlptest.Span) {
	t.Helper()
	byName := map[string][]otlptest.Span{}
	for _, s := range spans {
		byName[s.GetName()] = append(byName[s.GetName()], s)
	}
	turns := byName["invoke_agent agent"]
	if len(turns) != 1 {
		t.Fatalf("turn spans = %d, spans: %v", len(turns), names(spans))
	}
	turn := turns[0]
	if len(turn.GetParentSpanId()) != 0 {
		t.Errorf("the turn span has a parent")
	}
	if turn.Service != "agent-under-test" {
		t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's", turn.Service)
	}
	want := map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "sess-1",
		"gen_ai.usage.input_tokens": "1310", "gen_ai.usage.output_tokens": "50", "agent.turn.requests": "2", "agent.cost.usd": "0.05"}
	for k, v := range want {
		if turn.Attrs[k] != v {
			t.Errorf("turn %s = %q, want %q", k, turn.Attrs[k], v)
		}
	}
	children := []struct {
		name  string
		n     int
		attrs map[string]string
	}{
		{"chat claude-sonnet-4-5", 2, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
			"gen_ai.request.model": "claude-sonnet-4-5", "agent.search.mode": "client", "agent.provider.api": "messages"}},
		{"execute_tool tt__get_weather", 1, map[string]string{"gen_ai.tool.name": "tt__get_weather", "agent.tool.server": "tt",
			"agent.tool.outcome": "success", "gen_ai.tool.call.id": "t1"}},
		{"search_tools", 1, map[string]string{"agent.search.where": "client", "agent.search.hits": "2"}},
	}
	for _, c := range children {
		got := byName[c.name]
		if len(got) != c.n {
			t.Errorf("%s spans = %d, want %d (spans: %v)", c.name, len(got), c.n, names(spans))
			continue
		}
		for _, s := range got {
			if !bytes.Equal(s.GetParentSpanId(), turn.GetSpanId()) || !bytes.Equal(s.GetTraceId(), turn.GetTraceId()) {
				t.Errorf("%s is not a child of the turn span", c.name)
			}
			for k, v := range c.attrs {
				if s.Attrs[k] != v {
					t.Errorf("%s %s = %q, want %q", c.name, k, s.Attrs[k], v)
				}
			}
		}
	}
	first := byName["chat claude-sonnet-4-5"][0]
	for k, v := range map[string]string{"gen_ai.usage.input_tokens": "1110", "gen_ai.usage.output_tokens": "20",
		"gen_ai.usage.cache_read.input_tokens": "1000", "gen_ai.usage.cache_creation.input_tokens": "10",
		"agent.cost.usd": "0.02", "gen_ai.response.finish_reasons": "[tool_use]"} {
		if first.Attrs[k] != v {
			t.Errorf("first request %s = %q, want %q", k, first.Attrs[k], v)
		}
	}
	// The request span covers the request's own time, not the turn's.
	if d := time.Duration(first.GetEndTimeUnixNano() - first.GetStartTimeUnixNano()); d != 40*time.Millisecond {
		t.Errorf("first request lasted %s, want its Elapsed 40ms", d)
	}
}

func names(spans []otlptest.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.GetName())
	}
	return out
}

func checkMetrics(t *testing.T, rcv *otlptest.Receiver) {
	t.Helper()
	got := rcv.Metrics()
	for _, name := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "agent.token.usage",
		"agent.cost.usage", "agent.request.count", "agent.tool.call.count", "agent.tool.call.duration",
		"agent.search.count", "agent.search.duration", "agent.session.count"} {
		if got[name] == nil {
			t.Errorf("metric %s missing", name)
		}
	}
	if m := got["agent.request.count"]; m != nil {
		var sum int64
		for _, dp := range m.GetSum().GetDataPoints() {
			sum += dp.GetAsInt()
		}
		if sum != 2 {
			t.Errorf("agent.request.count = %d, want 2", sum)
		}
	}
}

// checkPrivacy: content only with LogContent; a header's value is sent as
// a header and never as data.
func checkPrivacy(t *testing.T, rcv *otlptest.Receiver, content bool) {
	t.Helper()
	raw := bytes.Join(rcv.Raw(), nil)
	for _, s := range []string{prompt, toolArg, toolResult, query} {
		if got := bytes.Contains(raw, []byte(s)); got != content {
			t.Errorf("%q in the export: %v, want %v", s, got, content)
		}
	}
	if bytes.Contains(raw, []byte(headerSecret)) {
		t.Errorf("the OTLP header's value is in the exported data")
	}
	sent := false
	for _, h := range rcv.Headers() {
		for _, v := range h["x-team-token"] {
			sent = sent || v == headerSecret
		}
		for _, v := range h["X-Team-Token"] {
			sent = sent || v == headerSecret
		}
	}
	if !sent {
		t.Errorf("OTEL_EXPORTER_OTLP_HEADERS did not reach the receiver: %v", rcv.Headers())
	}
}

func TestStartRefusesWhatItCannotUse(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name string
		env  map[string]string
		off  bool
		err  string
	}{
		{"json protocol", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true,
			`telemetry setting: OTEL_EXPORTER_OTLP_PROTOCOL="http/json": use http/protobuf or grpc`},
		{"signal protocol", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "udp"}, true,
			`telemetry setting: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL="udp": use http/protobuf or grpc`},
		{"exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, true,
			`telemetry setting: OTEL_TRACES_EXPORTER="zipkin": this agent exports otlp or none`},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true"}, true, ""},
		{"both none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, true, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, ""},
		{"defaults", map[string]string{}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tel, err := telemetry.Start(context.Background(), telemetry.Options{Getenv: env(tc.env)})
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if err != nil && !errors.Is(err, telemetry.ErrConfig) {
				t.Errorf("error %v is not of kind ErrConfig", err)
			}
			if (tel == nil) != tc.off {
				t.Errorf("telemetry on = %v, want %v", tel != nil, !tc.off)
			}
			// No collector listens on the default endpoint: Shutdown
			// returns within its bound all the same.
			_ = tel.Shutdown(context.Background())
		})
	}
}

// A nil Telemetry and a nil Turn are off: every call is a no-op.
func TestOffIsNil(t *testing.T) {
	var tel *telemetry.Telemetry
	ctx, turn := tel.StartTurn(context.Background(), telemetry.TurnInfo{})
	if turn != nil || ctx == nil {
		t.Fatalf("off telemetry started a turn")
	}
	turn.Observe(agent.Event{Type: agent.EventDone})
	turn.End()
	tel.SessionStarted(ctx, "x", false)
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// A collector that accepts connections and never answers cannot hold the
// exit: Shutdown gives up at its bound (ShutdownWait) with an error, over
// both protocols.
func TestShutdownIsBoundedWhenTheCollectorHangs(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			var held []net.Conn
			var mu sync.Mutex
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					mu.Lock()
					held = append(held, c) // read nothing, answer nothing
					mu.Unlock()
				}
			}()
			t.Cleanup(func() {
				mu.Lock()
				defer mu.Unlock()
				for _, c := range held {
					_ = c.Close()
				}
			})
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + l.Addr().String(), "OTEL_EXPORTER_OTLP_PROTOCOL": protocol}
			setenv(t, env)
			tel, err := telemetry.Start(context.Background(), telemetry.Options{Getenv: os.Getenv})
			if err != nil {
				t.Fatal(err)
			}
			_, turn := tel.StartTurn(context.Background(), telemetry.TurnInfo{Provider: "anthropic"})
			for _, ev := range turnEvents() {
				turn.Observe(ev)
			}
			turn.End()
			done := make(chan error, 1)
			go func() { done <- tel.Shutdown(context.Background()) }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("Shutdown reported success to a collector that never answered")
				}
			case <-time.After(ShutdownBound):
				t.Fatalf("Shutdown still waiting after %s: its bound is %s", ShutdownBound, telemetry.ShutdownWait)
			}
		})
	}
}

// ShutdownBound is how long the test waits before calling Shutdown hung:
// well past ShutdownWait, so a slow machine does not fail it.
const ShutdownBound = telemetry.ShutdownWait + 20*time.Second

// Both signals share the exporters' connection: over grpc one HTTP/2
// connection carries the trace and the metric calls (the SDK exports them
// at once at shutdown); gzip (OTEL_EXPORTER_OTLP_COMPRESSION) is decoded
// by the receiver over both protocols.
func TestSignalsShareOneConnection(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		maxConns int
	}{{"grpc", 1}, {"http/protobuf", 2}} {
		for _, gzip := range []bool{false, true} {
			t.Run(tc.protocol+map[bool]string{true: "/gzip"}[gzip], func(t *testing.T) {
				rcv := otlptest.Start(t, tc.protocol)
				setenv(t, rcv.Env())
				if gzip {
					t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
				}
				ctx := context.Background()
				for range 2 {
					tel, err := telemetry.Start(ctx, telemetry.Options{Getenv: os.Getenv})
					if err != nil {
						t.Fatal(err)
					}
					_, turn := tel.StartTurn(ctx, telemetry.TurnInfo{Provider: "anthropic"})
					for _, ev := range turnEvents() {
						turn.Observe(ev)
					}
					turn.End()
					if err := tel.Shutdown(ctx); err != nil {
						t.Fatalf("Shutdown: %v", err)
					}
				}
				rcv.Wait(t, 10*time.Second, "two runs' spans and metrics", func(r *otlptest.Receiver) bool {
					return len(r.Spans()) >= 10 && r.Metrics()["agent.request.count"] != nil
				})
				// Two runs, each its own process in real life: maxConns each.
				if n := rcv.Connections(); n > 2*tc.maxConns {
					t.Errorf("%d connections for two runs, want at most %d", n, 2*tc.maxConns)
				}
			})
		}
	}
}

// BenchmarkCollectorDown is telemetry's own wall time in a -p run whose
// collector is down: Start, one turn's spans and metrics, and the Shutdown
// whose last export meets a refused connection, over each protocol. The
// whole-process figure is go run ./bench telemetry.
func BenchmarkCollectorDown(b *testing.B) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		b.Run(protocol, func(b *testing.B) {
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": otlptest.Down(b), "OTEL_EXPORTER_OTLP_PROTOCOL": protocol}
			getenv := func(k string) string { return env[k] }
			ctx := context.Background()
			for b.Loop() {
				tel, err := telemetry.Start(ctx, telemetry.Options{Getenv: getenv})
				if err != nil {
					b.Fatal(err)
				}
				_, turn := tel.StartTurn(ctx, telemetry.TurnInfo{Provider: "anthropic"})
				for _, ev := range turnEvents() {
					turn.Observe(ev)
				}
				turn.End()
				_ = tel.Shutdown(ctx)
			}
		})
	}
}
