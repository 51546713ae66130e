package app

import (
	"context"
	"os/signal"
	"syscall"
)

// SignalContext is ctx cancelled when the terminal closes (SIGHUP) or the
// process is asked to end (SIGTERM): the run ends as ctrl+c ends it, so
// the session is saved and the MCP servers' process groups are ended
// (App.Close) instead of the process dying with its servers left running.
func SignalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
}
