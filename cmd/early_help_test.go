package cmd

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agent-dev/agent/internal/early"
)

// A release build prints internal/early's copy of the root help before the
// program initialises: it must be what the command tree prints. A flag
// added or reworded here needs `go test ./internal/early -run TestHelp
// -update` (which also checks a release build's answer end to end).
func TestEarlyHelpIsTheRootHelp(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, arg := range []string{"--help", "-h", "help"} {
		var out, errOut bytes.Buffer
		if code := Execute(context.Background(), []string{arg}, strings.NewReader(""), &out, &errOut, os.Getenv); code != 0 {
			t.Fatalf("agent %s: exit %d: %s", arg, code, errOut.String())
		}
		if got := early.Help(); got != out.String() {
			t.Errorf("internal/early's help differs from agent %s: run go test ./internal/early -run TestHelp -update\n--- early\n%s\n--- command tree\n%s", arg, got, out.String())
		}
	}
}
