// Package conformance runs the official MCP conformance suite for clients
// (npm @modelcontextprotocol/conformance) against the built agent binary.
//
// The suite starts a scenario's MCP server (and authorization server) and
// runs a client command with the server's URL. That command is adapter.mjs,
// which only translates: it writes the agent's config from
// MCP_CONFORMANCE_CONTEXT, points BROWSER at browser.mjs (which follows the
// authorization redirect) and runs `agent -p` against a fake Anthropic API
// served by this test, which calls every tool it is offered. The suite then
// judges what the agent did on the wire.
//
// Two versions of the suite run (suiteVersions): the release CI has always
// run and the newest, whose scenarios are the next protocol revision's.
// .ci/install-conformance.sh installs Node 22 and each version into
// .ci/node_modules/conformance-VERSION; AGENT_CONFORMANCE_PREFIX names one
// install to run instead (its version read from its package.json).
// testdata/expected-failures-VERSION.yml lists the scenarios of that version
// that do not pass yet, in the suite's own baseline format: an unlisted
// scenario that fails, or a listed one that passes, fails the test.
// `go test ./conformance -v` prints each version's table of scenarios and
// checks passed; AGENT_CONFORMANCE_SCENARIOS (comma-separated) runs only
// those.
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// suiteVersions are the versions of @modelcontextprotocol/conformance CI
// runs, as .ci/install-conformance.sh installs them.
var suiteVersions = []string{"0.1.16", "0.2.0-alpha.12"}

// suite is where one version of the suite and its node are installed.
type suite struct {
	version, node, cli, dir string
}

// findSuites returns the installed suites: the one AGENT_CONFORMANCE_PREFIX
// names, else each of suiteVersions in .ci/node_modules. A version that is
// not installed is left out, saying what installs it; none installed skips
// the test.
func findSuites(t *testing.T) []suite {
	t.Helper()
	prefixes := map[string]string{}
	if p := os.Getenv("AGENT_CONFORMANCE_PREFIX"); p != "" {
		prefixes[""] = p
	} else {
		for _, v := range suiteVersions {
			prefixes[v] = filepath.Join(repoRoot(t), ".ci", "node_modules", "conformance-"+v)
		}
	}
	var out []suite
	var missing []string
	for _, want := range append([]string{""}, suiteVersions...) {
		prefix, ok := prefixes[want]
		if !ok {
			continue
		}
		pkg := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "conformance")
		s := suite{
			version: want,
			node:    filepath.Join(prefix, "node_modules", ".bin", "node"),
			cli:     filepath.Join(pkg, "dist", "index.js"),
			dir:     filepath.Join(repoRoot(t), "conformance"),
		}
		installed := true
		for _, p := range []string{s.node, s.cli} {
			if _, err := os.Stat(p); err != nil {
				missing = append(missing, p)
				installed = false
			}
		}
		if !installed {
			continue
		}
		var meta struct{ Version string }
		b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &meta)
		}
		if err != nil || meta.Version == "" {
			t.Fatalf("%s: no version in the suite's package.json (%v)", pkg, err)
		}
		if want != "" && meta.Version != want {
			t.Fatalf("%s holds @modelcontextprotocol/conformance %s, not %s: run .ci/install-conformance.sh", prefix, meta.Version, want)
		}
		s.version = meta.Version
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Skipf("the MCP conformance suite is not installed (%s missing): run .ci/install-conformance.sh, or set AGENT_CONFORMANCE_PREFIX to the npm prefix holding node@22 and @modelcontextprotocol/conformance", strings.Join(missing, ", "))
	}
	for _, p := range missing {
		t.Logf("not run: %s is missing (.ci/install-conformance.sh installs it)", p)
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// clientScenarios lists the suite's client scenarios from `conformance list`.
func (s suite) clientScenarios(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(s.node, s.cli, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	var names []string
	client := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Client scenarios") {
			client = true
			continue
		}
		if !client {
			continue
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			names = append(names, strings.Fields(rest)[0])
		} else if strings.TrimSpace(line) != "" {
			break
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list printed no client scenarios:\n%s", out)
	}
	return names
}

// buildAgent builds the agent binary the suite runs.
func buildAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// callEveryTool is the fake model: asked by the user, it calls every tool
// the request offers, with arguments made from each schema's required
// properties; given the results, it ends the turn.
func callEveryTool(r *anthropictest.Request) anthropictest.Reply {
	msgs := r.Messages()
	if len(msgs) > 0 && bytes.Contains(msgs[len(msgs)-1], []byte(`"tool_result"`)) {
		return anthropictest.Message(anthropictest.Text("Done."))
	}
	var tools []struct {
		Name   string          `json:"name"`
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"input_schema"`
	}
	_ = json.Unmarshal(r.Tools(), &tools)
	// The json-schema-2020-12-preservation scenario asks the model to
	// pass the focal tool's inputSchema, as the request showed it, back
	// through its echo tool: what the suite then compares is what the
	// agent sent the model, so a keyword dropped on the way fails it.
	var focal json.RawMessage
	for _, tl := range tools {
		if strings.HasSuffix(tl.Name, "json_schema_2020_12_tool") {
			focal = tl.Schema
		}
	}
	given := givenArguments(msgs)
	var blocks []json.RawMessage
	for i, tl := range tools {
		if tl.Type != "" && tl.Type != "custom" {
			continue // a server tool (tool search), not the MCP server's
		}
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(tl.Schema, &schema)
		args := map[string]any{}
		for _, name := range schema.Required {
			args[name] = sample(schema.Properties[name].Type)
		}
		if strings.HasSuffix(tl.Name, "json_schema_echo") && focal != nil {
			args["schema"] = focal
		}
		for name, a := range given {
			if strings.HasSuffix(tl.Name, "__"+name) {
				args = a
			}
		}
		blocks = append(blocks, anthropictest.ToolUse(fmt.Sprintf("toolu_conf%02d", i), tl.Name, args))
	}
	if len(blocks) == 0 {
		return anthropictest.Message(anthropictest.Text("No tools were offered."))
	}
	return anthropictest.Message(blocks...)
}

// toolCallsMarker begins the prompt's line of tool arguments, which
// adapter.mjs writes from the scenario's context (its toolCalls).
const toolCallsMarker = "conformance-tool-calls: "

// givenArguments reads the arguments the prompt names for each tool (none
// for most scenarios).
func givenArguments(msgs []json.RawMessage) map[string]map[string]any {
	if len(msgs) == 0 {
		return nil
	}
	var first struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(msgs[0], &first)
	text := ""
	if json.Unmarshal(first.Content, &text) != nil {
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(first.Content, &blocks)
		for _, b := range blocks {
			text += b.Text
		}
	}
	_, line, ok := strings.Cut(text, toolCallsMarker)
	if !ok {
		return nil
	}
	line, _, _ = strings.Cut(line, "\n")
	var calls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if json.Unmarshal([]byte(line), &calls) != nil {
		return nil
	}
	out := map[string]map[string]any{}
	for _, c := range calls {
		// A null for a property whose schema does not allow it (the
		// scenario's verbose: null, a boolean) would be refused by the
		// agent's check of the arguments before the call: a model leaves
		// such an argument out, the other way the header is omitted.
		maps.DeleteFunc(c.Arguments, func(_ string, v any) bool { return v == nil })
		out[c.Name] = c.Arguments
	}
	return out
}

func sample(typ any) any {
	switch typ {
	case "number", "integer":
		return 2
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "conformance"
}

// result is one scenario's outcome.
type result struct {
	name           string
	passed, failed int
	warnings       int
	ok             bool // the suite's verdict (its exit status)
	took           time.Duration
	log            string
}

func (s suite) run(t *testing.T, scenario, bin, modelURL string) result {
	outDir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, s.cli, "client",
		"--command", s.node+" "+filepath.Join(s.dir, "adapter.mjs"),
		"--scenario", scenario, "--timeout", "60000", "-o", outDir)
	cmd.Env = append(os.Environ(),
		"AGENT_CONFORMANCE_BIN="+bin, "AGENT_CONFORMANCE_MODEL_URL="+modelURL)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r := result{name: scenario, ok: err == nil, took: time.Since(start).Round(100 * time.Millisecond), log: string(out)}
	_ = filepath.WalkDir(outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var checks []struct{ Status string }
		if err := json.Unmarshal(b, &checks); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				r.passed++
			case "FAILURE":
				r.failed++
			case "WARNING":
				r.warnings++
			}
		}
		return nil
	})
	return r
}

// expectedFailures reads the client list of the version's baseline file.
func expectedFailures(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: each suite version has its list of the scenarios that do not pass yet", err)
	}
	out := map[string]bool{}
	inClient := false
	for line := range strings.SplitSeq(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			inClient = trimmed == "client:"
		case inClient:
			name, ok := strings.CutPrefix(trimmed, "- ")
			if !ok {
				t.Fatalf("%s: %q is not a list item", file, line)
			}
			out[strings.Trim(strings.TrimSpace(name), `"'`)] = true
		}
	}
	return out
}

func TestClientScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the conformance suite builds the agent and runs every client scenario of two suite versions")
	}
	suites := findSuites(t)
	bin := buildAgent(t)
	model := anthropictest.NewServer(t)
	model.SetHandler(callEveryTool)
	// One bound for every version's scenarios: the suites' servers and the
	// agents are light, a few at once.
	sem := make(chan struct{}, 3)
	tables := make([]string, len(suites))
	if path := os.Getenv("AGENT_CONFORMANCE_TABLE"); path != "" {
		// After the parallel subtests: every version's table, in order.
		t.Cleanup(func() {
			if err := os.WriteFile(path, []byte(strings.Join(tables, "\n")), 0o644); err != nil {
				t.Error(err)
			}
		})
	}
	for i, s := range suites {
		t.Run(s.version, func(t *testing.T) {
			t.Parallel()
			tables[i] = s.check(t, bin, model.URL, sem)
		})
	}
}

// check runs the suite's client scenarios and holds the outcome to its
// expected failures; it returns the table of scenarios.
func (s suite) check(t *testing.T, bin, modelURL string, sem chan struct{}) string {
	file := filepath.Join("testdata", "expected-failures-"+s.version+".yml")
	all := s.clientScenarios(t)
	scenarios := slices.Clone(all)
	expected := expectedFailures(t, file)
	if only := os.Getenv("AGENT_CONFORMANCE_SCENARIOS"); only != "" {
		// While working on some scenarios: those alone (comma-separated).
		scenarios = slices.DeleteFunc(scenarios, func(sc string) bool { return !slices.Contains(strings.Split(only, ","), sc) })
		if len(scenarios) == 0 {
			t.Skipf("AGENT_CONFORMANCE_SCENARIOS=%s names no client scenario of suite %s", only, s.version)
		}
	}
	for name := range expected {
		if !slices.Contains(all, name) {
			t.Errorf("%s names %q, which suite %s does not have", file, name, s.version)
		}
	}

	results := make([]result, len(scenarios))
	var wg sync.WaitGroup
	for i, sc := range scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = s.run(t, sc, bin, modelURL)
		}()
	}
	wg.Wait()

	var table strings.Builder
	fmt.Fprintf(&table, "@modelcontextprotocol/conformance %s\n\n", s.version)
	fmt.Fprintf(&table, "| scenario | checks passed | failed | warnings | verdict | time |\n|---|---|---|---|---|---|\n")
	pass := 0
	for _, r := range results {
		verdict := "FAIL"
		if r.ok {
			verdict, pass = "pass", pass+1
		}
		fmt.Fprintf(&table, "| %s | %d/%d | %d | %d | %s | %s |\n", r.name, r.passed, r.passed+r.failed+r.warnings, r.failed, r.warnings, verdict, r.took)
	}
	fmt.Fprintf(&table, "\n%d of %d client scenarios pass\n", pass, len(results))
	t.Log("\n" + table.String())
	for _, r := range results {
		switch {
		case !r.ok && !expected[r.name]:
			t.Errorf("scenario %s fails (%d of %d checks passed); the suite said:\n%s", r.name, r.passed, r.passed+r.failed+r.warnings, r.log)
		case r.ok && expected[r.name]:
			t.Errorf("scenario %s passes now: remove it from %s", r.name, file)
		}
	}
	return table.String()
}
