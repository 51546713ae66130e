package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/app/tuiapp"
	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// newTestTUIBackend wires the TUI's backend as runTUI does, without a
// terminal: the root command runs with its RunE replaced.
func newTestTUIBackend(t *testing.T, env map[string]string, args ...string) *tuiapp.Backend {
	t.Helper()
	return newTestTUIBackendWith(t, app.Options{}, env, args...)
}

// newTestTUIBackendWith is newTestTUIBackend with the app's options
// (Interactive: true as runTUI gives it); Getenv is set here.
func newTestTUIBackendWith(t *testing.T, o app.Options, env map[string]string, args ...string) *tuiapp.Backend {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	g := &Globals{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv}
	root := NewRootCmd(g)
	var b *tuiapp.Backend
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		o.Getenv = g.Getenv
		a, err := app.Open(cmd.Context(), g.Settings, o)
		if err != nil {
			return err
		}
		b = tuiapp.New(a)
		t.Cleanup(a.Close)
		return nil
	}
	root.SetArgs(args)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	return b
}

// #18 bug 2: /sessions resumes a session on its own model, as --resume
// does; #18 bug 7: the resumed session's total does not restart at zero.
func TestTUIResumeKeepsModelAndTotals(t *testing.T) {
	isolate(t)
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "Hi."}))
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey}
	db := filepath.Join(t.TempDir(), "a.db")
	res := runAgent(t, env, "-p", "hi", "--base-url", fake.URL, "--db", db, "--model", "claude-opus-4-1", "--output-format", "json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	old := decodePrint(t, res.stdout)

	b := newTestTUIBackend(t, env, "--base-url", fake.URL, "--db", db, "--model", "claude-sonnet-4-5")
	if got := b.Info().Model; got != "claude-sonnet-4-5" {
		t.Fatalf("new session model = %s", got)
	}
	if _, err := b.Resume(t.Context(), old.SessionID); err != nil {
		t.Fatal(err)
	}
	info := b.Info()
	if info.Model != "claude-opus-4-1" {
		t.Errorf("resumed on %s, want the session's own claude-opus-4-1", info.Model)
	}
	if info.Requests != 1 || info.Totals.InputTokens != old.Usage.InputTokens || info.Totals.InputTokens == 0 {
		t.Errorf("resumed totals = %+v (%d requests), want the stored %+v", info.Totals, info.Requests, old.Usage)
	}
	if !info.CostKnown || info.Cost <= 0 {
		t.Errorf("resumed cost = %v (known %v)", info.Cost, info.CostKnown)
	}
}

// /model on a Chat Completions server lists what the server serves
// (GET /models), next to the current model.
func TestTUIModelsFromTheServer(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"qwen3:8b"},{"id":"llama3.2"}]}`))
	}))
	defer srv.Close()
	b := newTestTUIBackend(t, nil, "--provider", "ollama", "--base-url", srv.URL+"/v1", "--model", "qwen3:8b",
		"--db", filepath.Join(t.TempDir(), "a.db"))
	ms, err := b.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "qwen3:8b,llama3.2" {
		t.Errorf("models = %v, want the current one and the server's other", names)
	}
}
