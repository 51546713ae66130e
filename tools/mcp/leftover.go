package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Servers left behind: a stdio server that ignores the end of its input
// outlives an agent killed with SIGKILL or crashed (init adopts it), and
// Close never ran to end its process group. So each server the agent
// starts is written down in Options.PidDir, with its start time and the
// agent's own, and Start ends the servers whose agent is gone. The start
// times make a pid the system has since given to another process a
// different process: it is never killed. What the server started in its
// group (npx's node) carries a token in its environment, so it is found
// even when the group's leader has already exited.

// leftoverEnv names the token variable every stdio server is started with.
const leftoverEnv = "AGENT_MCP_SERVER_TOKEN"

// pidRecord is one server's pid file.
type pidRecord struct {
	PID        int    `json:"pid"`
	Start      uint64 `json:"start"` // the process's start time (clock ticks since boot)
	Boot       string `json:"boot"`  // the boot it started in: pids restart at each
	Owner      int    `json:"owner"` // the agent that started it
	OwnerStart uint64 `json:"owner_start"`
	Server     string `json:"server"`
	Command    string `json:"command"`
	Token      string `json:"token"` // leftoverEnv's value in its environment
}

// newToken is a fresh leftoverEnv value.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// pidFile writes down p, started for server with token, in dir; it
// returns the file's path ("" when nothing was written: no dir, or a
// system whose process start times the agent cannot read).
func pidFile(dir, server, command, token string, pid int) (string, error) {
	if dir == "" {
		return "", nil
	}
	st, err := procStat(pid)
	if errors.Is(err, errNoProcInfo) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	self, err := procStat(os.Getpid())
	if err != nil {
		return "", err
	}
	rec := pidRecord{PID: pid, Start: st.start, Boot: bootID(), Owner: os.Getpid(), OwnerStart: self.start,
		Server: server, Command: command, Token: token}
	b, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write the pid file of MCP server %s: %w", server, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d-%d.json", pid, st.start))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return "", fmt.Errorf("write the pid file of MCP server %s: %w", server, err)
	}
	return path, nil
}

// Leftover is a server ended because the agent that started it is gone.
type Leftover struct {
	Server  string
	PID     int
	Command string
}

// EndLeftovers ends the servers written down in dir whose agent no longer
// runs, and forgets every record that names no live server of a live
// agent. A server of an agent still running (another window) is left
// alone.
func EndLeftovers(dir string, log *slog.Logger) []Leftover {
	if dir == "" {
		return nil
	}
	if log == nil {
		log = slog.Default()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var ended []Leftover
	boot := bootID()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var rec pidRecord
		if json.Unmarshal(b, &rec) != nil || rec.PID <= 1 || rec.Boot != boot {
			// Unreadable, or from before a reboot: every pid in it is
			// another process now.
			_ = os.Remove(f)
			continue
		}
		if same(rec.Owner, rec.OwnerStart) {
			continue
		}
		if endRecorded(rec) {
			log.Info("ended an MCP server left running by an agent that did not exit", "server", rec.Server, "pid", rec.PID, "command", rec.Command)
			ended = append(ended, Leftover{Server: rec.Server, PID: rec.PID, Command: rec.Command})
		}
		_ = os.Remove(f)
	}
	return ended
}

// same reports whether pid is the process that started at start.
func same(pid int, start uint64) bool {
	st, err := procStat(pid)
	return err == nil && !st.zombie && st.start == start
}

// endRecorded kills rec's server with its process group when its pid is
// still the process the record names, and the processes of its group that
// carry its token; it reports whether it killed any.
func endRecorded(rec pidRecord) bool {
	killed := false
	if st, err := procStat(rec.PID); err == nil && !st.zombie && st.start == rec.Start {
		target := rec.PID
		if st.pgid == rec.PID {
			target = -rec.PID // its own group (ownProcessGroup)
		}
		killed = killPid(target) == nil
	}
	if rec.Token == "" {
		return killed
	}
	for _, pid := range groupMembers(rec.PID) {
		if hasEnv(pid, leftoverEnv+"="+rec.Token) && killPid(pid) == nil {
			killed = true
		}
	}
	return killed
}

// stat is what the agent reads of a process.
type stat struct {
	start  uint64
	pgid   int
	zombie bool
}

var errNoProcInfo = errors.New("process start times are not readable on this system")

// parseStat reads /proc/PID/stat's state (3), process group (5) and start
// time (22), counted after the command name, which may hold spaces and
// parentheses.
func parseStat(s string) (stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("malformed stat %q", s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return stat{}, fmt.Errorf("malformed stat %q", s)
	}
	pgid, err := strconv.Atoi(f[2])
	if err != nil {
		return stat{}, fmt.Errorf("malformed stat %q", s)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return stat{}, fmt.Errorf("malformed stat %q", s)
	}
	return stat{start: start, pgid: pgid, zombie: f[0] == "Z" || f[0] == "X"}, nil
}
