package app

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// SetupLog sends log/slog to a file, never to the terminal: the TUI owns the
// screen and print mode's stdout is the answer. The file is
// $XDG_STATE_HOME/agent/agent.log (~/.local/state/agent/agent.log), or
// AGENT_LOG; AGENT_LOG=off discards logs. It returns a closer.
func SetupLog(getenv func(string) string) func() {
	path := getenv("AGENT_LOG")
	if path == "off" {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return func() {}
	}
	if path == "" {
		dir := stateDir(getenv)
		if dir == "" {
			slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
			return func() {}
		}
		path = filepath.Join(dir, "agent.log")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		return func() {}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})))
	return func() { _ = f.Close() }
}

// stateDir is $XDG_STATE_HOME/agent (~/.local/state/agent): the log and
// the running MCP servers' pid files; "" without a home directory.
func stateDir(getenv func(string) string) string {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "agent")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "agent")
}

// serverPidDir is where the stdio MCP servers a run starts are written
// down, so the next start ends those a crash left running
// (tools/mcp.EndLeftovers).
func serverPidDir() string {
	if dir := stateDir(os.Getenv); dir != "" {
		return filepath.Join(dir, "servers")
	}
	return ""
}
