//go:build linux

package mcp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
)

// child starts a real process that runs until killed: the test binary as
// a server that never answers, in its own process group as a server is.
func child(t *testing.T, env ...string) (*exec.Cmd, chan struct{}) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{testServerEnv + "=silent"}, env...)...)
	stdin, err := cmd.StdinPipe() // kept open: "silent" runs until its input ends
	if err != nil {
		t.Fatal(err)
	}
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { killGroup(cmd); stdin.Close(); <-done })
	return cmd, done
}

func startOf(t *testing.T, pid int) uint64 {
	t.Helper()
	st, err := procStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return st.start
}

func writeRecord(t *testing.T, dir string, rec pidRecord) string {
	t.Helper()
	b, _ := json.Marshal(rec)
	path := filepath.Join(dir, rec.Server+".json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// exited reports whether done closes within a deadline.
func exitedWithin(done chan struct{}, d time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// #26: EndLeftovers kills a recorded server only while its pid is still
// the process the record names and the agent that started it is gone.
func TestEndLeftovers(t *testing.T) {
	// A finished process stands for the agent killed with SIGKILL.
	gone, goneDone := child(t)
	goneStart := startOf(t, gone.Process.Pid)
	killGroup(gone)
	<-goneDone
	self := os.Getpid()
	selfStart := startOf(t, self)
	boot := bootID()

	tests := []struct {
		name   string
		record func(pid int, start uint64, token string) pidRecord
		env    bool // the process carries the record's token
		killed bool
		kept   bool // the pid file stays
	}{
		{"agent gone: killed", func(pid int, start uint64, _ string) pidRecord {
			return pidRecord{PID: pid, Start: start, Boot: boot, Owner: gone.Process.Pid, OwnerStart: goneStart}
		}, false, true, false},
		{"pid reused by another process: left alone", func(pid int, start uint64, _ string) pidRecord {
			return pidRecord{PID: pid, Start: start - 1, Boot: boot, Owner: gone.Process.Pid, OwnerStart: goneStart}
		}, false, false, false},
		{"agent still running: left alone", func(pid int, start uint64, _ string) pidRecord {
			return pidRecord{PID: pid, Start: start, Boot: boot, Owner: self, OwnerStart: selfStart}
		}, false, false, true},
		{"another boot: left alone", func(pid int, start uint64, _ string) pidRecord {
			return pidRecord{PID: pid, Start: start, Boot: "another", Owner: gone.Process.Pid, OwnerStart: goneStart}
		}, false, false, false},
		// The leader (npx) exited; what it started in its group carries
		// the token and is found through it.
		{"group member with the token: killed", func(pid int, start uint64, token string) pidRecord {
			return pidRecord{PID: pid, Start: start - 1, Boot: boot, Owner: gone.Process.Pid, OwnerStart: goneStart, Token: token}
		}, true, true, false},
		{"group member without the token: left alone", func(pid int, start uint64, _ string) pidRecord {
			return pidRecord{PID: pid, Start: start - 1, Boot: boot, Owner: gone.Process.Pid, OwnerStart: goneStart, Token: "other"}
		}, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			token := newToken()
			var env []string
			if tt.env {
				env = append(env, leftoverEnv+"="+token)
			}
			srv, done := child(t, env...)
			rec := tt.record(srv.Process.Pid, startOf(t, srv.Process.Pid), token)
			rec.Server = "srv"
			path := writeRecord(t, dir, rec)
			ended := EndLeftovers(dir, nil)
			if tt.killed {
				if !exitedWithin(done, 10*time.Second) {
					t.Fatal("the server still runs")
				}
				if len(ended) != 1 || ended[0].Server != "srv" {
					t.Errorf("ended %v, want srv", ended)
				}
			} else {
				select {
				case <-done:
					t.Fatal("a process the record does not own was killed")
				default:
				}
				if len(ended) != 0 {
					t.Errorf("ended %v, want none", ended)
				}
			}
			if _, err := os.Stat(path); (err == nil) != tt.kept {
				t.Errorf("pid file kept = %v, want %v", err == nil, tt.kept)
			}
		})
	}
}

// A server the manager starts is written down while it runs and forgotten
// when it exits.
func TestPidFileFollowsServer(t *testing.T) {
	dir := t.TempDir()
	m := NewManager([]config.MCPServer{testServerConfig(t, "ok", "ok")}, Options{PidDir: dir})
	if errs := m.Start(t.Context()); len(errs) != 0 {
		t.Fatal(errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("pid files while running: %v", files)
	}
	var rec pidRecord
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &rec); err != nil || rec.Server != "ok" || rec.Owner != os.Getpid() || rec.Token == "" {
		t.Fatalf("record %+v (%v)", rec, err)
	}
	if !hasEnv(rec.PID, leftoverEnv+"="+rec.Token) {
		t.Error("the server does not carry its token")
	}
	_ = m.Close()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) == 0 {
			return
		}
		select {
		case <-deadline:
			t.Fatal("the pid file outlived its server")
		case <-tick.C:
		}
	}
}
