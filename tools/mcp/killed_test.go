//go:build unix

// On unix only: the signals are sent with kill(2).

package mcp

import (
	"strings"
	"syscall"
	"testing"
)

// TestKilledServerNamesTheSignal: a stdio server ended by a signal from
// outside is said to be killed by that signal, and its start banner is not
// quoted as if it said why ("the server process exited (stderr: Edge MCP
// Server running on stdio)" named no signal before). A server that
// crashed by itself keeps its stderr quoted (TestCrashedServerRestartsOnNextCall).
func TestKilledServerNamesTheSignal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGKILL, "the server process exited: killed by SIGKILL"},
		// Not SIGTERM: the test server (mcp-go's ServeStdio) catches it and exits 1.
		{syscall.SIGHUP, "the server process exited: killed by SIGHUP"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			m, ev, errs := startManager(t, Options{}, testServerConfig(t, "edge", "stderr-banner"))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			running := m.procs.running()
			if len(running) != 1 {
				t.Fatalf("%d processes running, want 1", len(running))
			}
			if err := running[0].cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			down := ev.wait(t, "server_down", func(e Event) bool { return e.Kind == EventServerDown })
			if !strings.Contains(down.Text, tt.want) || strings.Contains(down.Text, "running on stdio") {
				t.Errorf("down event %q: want %q and no start banner", down.Text, tt.want)
			}
			if st := m.Status()[0]; !strings.Contains(st.Error, tt.want) {
				t.Errorf("status error %q, want %q", st.Error, tt.want)
			}
		})
	}
}
