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
		dir := getenv("XDG_STATE_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
				return func() {}
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "agent", "agent.log")
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
