package early_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A release build answers --version before the heavy packages initialise:
// the init trace stops at this package, before chroma's lexers, the JSON
// Schema compiler and bluemonday. A build without the ldflags version
// answers through the command tree, with the version go records.
func TestVersionAnswersBeforeHeavyInits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent binary")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ldflags, want string
		fast                bool
	}{
		{"release", "-X github.com/agent-dev/agent/internal/early.Version=v1.2.3", "agent v1.2.3\n", true},
		{"dev", "", "agent ", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "agent")
			build := exec.Command("go", "build", "-ldflags", c.ldflags, "-o", bin, ".")
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			for _, arg := range []string{"--version", "version"} {
				run := exec.Command(bin, arg)
				run.Env = append(os.Environ(), "GODEBUG=inittrace=1")
				var out, trace strings.Builder
				run.Stdout, run.Stderr = &out, &trace
				if err := run.Run(); err != nil {
					t.Fatalf("%s: %v\n%s", arg, err, trace.String())
				}
				if !strings.HasPrefix(out.String(), c.want) {
					t.Errorf("%s printed %q, want %q", arg, out.String(), c.want)
				}
				heavy := strings.Contains(trace.String(), "chroma/v2/lexers") || strings.Contains(trace.String(), "santhosh-tekuri/jsonschema")
				if heavy == c.fast {
					t.Errorf("%s: heavy packages initialised = %v, want %v:\n%s", arg, heavy, !c.fast, trace.String())
				}
			}
		})
	}
}
