package app

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools/tokens"
)

// coldChild marks the process TestColdPrintLoadsNoTokenizer runs its turn
// in: whether the tokenizer was loaded is a fact of the whole process, so
// the turn runs in a process of its own, where no other test counted.
const coldChild = "AGENT_TEST_COLD_PRINT_CHILD"

// A first run (no database, no catalog cache, the server listed now) with
// the default settings (auto-compaction on) answers a -p turn that searches
// and calls a tool without loading the tokenizer: neither before the first
// request nor before the process may exit (the store committed, the
// catalog cached). Token counts are made when agent tools or the status
// bar ask for them.
func TestColdPrintLoadsNoTokenizer(t *testing.T) {
	if os.Getenv(coldChild) == "1" {
		coldPrint(t)
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestColdPrintLoadsNoTokenizer$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), coldChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the cold turn's process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cold turn answered") {
		t.Fatalf("the child process did not run the turn:\n%s", out)
	}
}

func coldPrint(t *testing.T) {
	if tokens.Loaded() {
		t.Fatal("the tokenizer is loaded before the run starts (package init?)")
	}
	f := newFixture(t, true)
	f.fake.Script = anthropictest.NewScript(
		anthropictest.Turn{Text: "Looking.", Search: "weather forecast", Call: "$found", Input: map[string]any{"city": "Berlin"}},
		anthropictest.Turn{Text: "Sunny in Berlin."},
	)
	s, err := Load(func() Flags { fl := f.flags; fl.Defer = "true"; return fl }(), f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test", Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	perr := a.Print(t.Context(), "weather in Berlin?", PrintOptions{Format: "text", Stdout: &out, Stderr: &errb})
	a.Close()
	if perr != nil {
		t.Fatalf("print: %v (%s)", perr, errb.String())
	}
	if out.String() != "Looking.\n\nSunny in Berlin.\n" || len(f.fake.Requests()) != 2 {
		t.Fatalf("output %q after %d requests", out.String(), len(f.fake.Requests()))
	}
	if tokens.Loaded() {
		t.Fatal("a -p turn loaded the tokenizer")
	}
	t.Log("cold turn answered")
}
