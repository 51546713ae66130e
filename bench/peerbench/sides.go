package peerbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/bench/startbench"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

const (
	prompt = "Echo hello back to me with the echo tool."
	// model is what both clients ask the Anthropic fake for.
	model = "claude-sonnet-4-5"
	// echoResult is what the catalog's echo tool answers (ServeCatalog):
	// a turn that did not carry it back to the model did not call it.
	echoResult = "ok: echo"
)

// mcpServers is the catalog as an "mcpServers" config, which agent,
// Claude Code (--mcp-config) and, rewritten, Codex read alike.
func mcpServers(urls map[string]string) map[string]any {
	servers := map[string]any{}
	for name, u := range urls {
		servers[name] = map[string]any{"type": "http", "url": u}
	}
	return servers
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// anthropicFake is a strict Anthropic fake answering with claudeTurn, and
// the bodies it accepted since the last call of taken.
type anthropicFake struct {
	ft   *faket.T
	f    *anthropictest.Server
	seen int
}

func newAnthropicFake() *anthropicFake {
	ft := &faket.T{}
	f := anthropictest.NewServer(ft)
	f.SetHandler(func(r *anthropictest.Request) anthropictest.Reply { return claudeTurn(r.Body) })
	return &anthropicFake{ft: ft, f: f}
}

// taken is the bodies of the requests since the last call, and an error
// naming the first the fake rejected.
func (a *anthropicFake) taken() ([][]byte, error) {
	rs := a.f.Requests()
	var out [][]byte
	var err error
	for _, r := range rs[a.seen:] {
		if r.Path != "/v1/messages" {
			// Claude Code's connectivity probe (HEAD /): the fake's 404
			// is no failure of the turn.
			continue
		}
		if r.Status != 200 && err == nil {
			err = fmt.Errorf("the fake rejected %s: %d %s", r.Path, r.Status, r.Rejection)
		}
		if r.Status == 200 {
			out = append(out, r.Body)
		}
	}
	a.seen = len(rs)
	if err == nil {
		err = a.ft.Err()
	}
	return out, err
}

// calledEcho checks that the turn's last request carried the echo tool's
// result back to the model.
func calledEcho(bodies [][]byte) error {
	if len(bodies) == 0 || !bytes.Contains(bodies[len(bodies)-1], []byte(echoResult)) {
		return fmt.Errorf("the turn did not call the echo tool (%d requests)", len(bodies))
	}
	return nil
}

// agentAnthropic is agent's turn on the Anthropic route, every catalog
// tool deferred.
func agentAnthropic(bin string, fake *anthropicFake) side {
	return agentSide(bin, fake.taken, "ANTHROPIC_API_KEY="+anthropictest.DefaultAPIKey,
		"--provider", "anthropic", "--base-url", fake.f.URL, "--model", model)
}

// agentSide is agent's cold -p turn with the catalog, every tool deferred,
// on the route the flags name; taken gives the bodies its fake accepted.
func agentSide(bin string, taken func() ([][]byte, error), key string, route ...string) side {
	return side{name: "agent", run: func(ctx context.Context, dir string, urls map[string]string) (startbench.RunResult, [][]byte, error) {
		cfg, conf := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "config.json")
		if err := writeJSON(cfg, map[string]any{"mcpServers": mcpServers(urls)}); err != nil {
			return startbench.RunResult{}, nil, err
		}
		// The fakes count deferred definitions as input tokens, which the
		// APIs do not: compaction would react to the inflated usage.
		if err := writeJSON(conf, map[string]any{"auto_compact": false}); err != nil {
			return startbench.RunResult{}, nil, err
		}
		args := append([]string{"-p", prompt, "--config", conf, "--mcp-config", cfg, "--db", filepath.Join(dir, "agent.db"),
			"--defer", "--output-format", "json"}, route...)
		r, err := startbench.RunProgram(ctx, bin, args, startbench.IsolatedEnv(dir, key), true)
		bodies, ferr := taken()
		return r, bodies, first(err, ferr, calledEcho(bodies))
	}}
}

// claudeSide is Claude Code's turn: `claude -p` with the catalog from
// --mcp-config only, against the same fake through ANTHROPIC_BASE_URL.
// Tool search is on by default only against Anthropic's own host;
// ENABLE_TOOL_SEARCH=true is Claude Code's documented switch for a proxy
// that forwards tool_reference blocks, which the fake does.
func claudeSide(bin string, fake *anthropicFake) side {
	return side{name: "claude", run: func(ctx context.Context, dir string, urls map[string]string) (startbench.RunResult, [][]byte, error) {
		cfg := filepath.Join(dir, "mcp.json")
		if err := writeJSON(cfg, map[string]any{"mcpServers": mcpServers(urls)}); err != nil {
			return startbench.RunResult{}, nil, err
		}
		args := []string{"-p", prompt, "--model", model, "--mcp-config", cfg, "--strict-mcp-config",
			"--allowedTools", "mcp__server-everything__echo", "--output-format", "json"}
		env := startbench.IsolatedEnv(dir, "ANTHROPIC_BASE_URL="+fake.f.URL, "ANTHROPIC_API_KEY="+anthropictest.DefaultAPIKey,
			"ENABLE_TOOL_SEARCH=true", "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"),
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
		r, err := startbench.RunProgram(ctx, bin, args, env, true)
		bodies, ferr := fake.taken()
		if err == nil && !strings.Contains(r.Stdout, `"is_error":false`) {
			err = fmt.Errorf("claude: %s", r.Stdout)
		}
		return r, bodies, first(err, ferr, calledEcho(bodies))
	}}
}

func first(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// codexSide and agentResponses: codex.go.
