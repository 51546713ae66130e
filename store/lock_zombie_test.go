//go:build linux

package store

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A process that ended but was not reaped (its parent has not waited for
// it yet, as tmux keeps a dead pane's) holds no lock: a session it had
// open can be opened again at once.
func TestZombieHoldsNoLock(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start true(1):", err)
	}
	defer func() { _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	if !pidAlive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !zombie(pid) && time.Now().Before(deadline) {
		<-time.After(10 * time.Millisecond)
	}
	if !zombie(pid) {
		t.Fatalf("pid %d never became a zombie", pid)
	}
	if pidAlive(pid) {
		t.Errorf("a zombie counts as alive: its session lock would never be freed until reaped")
	}
}
