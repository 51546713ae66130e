//go:build unix

// On unix only: elsewhere there is no SIGTERM to ask a server to stop
// with, and Close kills it at the grace (termGroup).

package mcp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCloseAsksLingeringServerToStop: a stdio server still running after
// its input closed is sent SIGTERM before the grace ends (the MCP
// lifecycle's stdio shutdown), instead of holding the agent's exit for the
// whole grace and then being killed; one that ignores SIGTERM is still
// killed. The grace is an hour in the first case, so only SIGTERM can end
// the server before Close returns; no timing is measured.
func TestCloseAsksLingeringServerToStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, want string
		grace      time.Duration
	}{
		{mode: "lingers", want: "exit status 0", grace: time.Hour},
		{mode: "stubborn", want: "killed by SIGKILL", grace: 100 * time.Millisecond},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			mark := filepath.Join(t.TempDir(), "mark")
			cfg := testServerConfig(t, "lingers", tc.mode)
			cfg.Env["AGENT_MCP_TEST_MARK"] = mark
			m, _, errs := startManager(t, Options{}, cfg)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			m.grace, m.termAfter = tc.grace, 10*time.Millisecond
			running := m.procs.running()
			if len(running) != 1 {
				t.Fatalf("%d processes running, want 1", len(running))
			}
			p := running[0]
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			<-p.exited
			if got := p.status(); got != tc.want {
				t.Errorf("server ended with %q, want %q", got, tc.want)
			}
			b, err := os.ReadFile(mark)
			switch {
			case tc.mode == "lingers" && string(b) != "term":
				t.Errorf("the server was not asked to stop with SIGTERM (mark %q, %v)", b, err)
			case tc.mode == "stubborn" && err == nil:
				t.Errorf("a server ignoring SIGTERM wrote %q", b)
			}
		})
	}
}
