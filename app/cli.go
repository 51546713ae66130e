package app

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agent-dev/agent/store"
)

// WithSessionDB runs fn on the session database at path (the default
// when ""); readOnlyOK opens a database the user cannot write read-only
// (for commands that only read). A wrong session ID is a usage error.
func WithSessionDB(ctx context.Context, path string, readOnlyOK bool, fn func(*store.DB) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := store.Open(ctx, path, store.WithRequestAnalyser(requestAnalyser()))
	if err != nil && readOnlyOK && errors.Is(err, store.ErrReadOnly) {
		db, err = store.OpenReadOnly(ctx, path)
	}
	if err != nil {
		return dbFlagError(path, err)
	}
	defer db.Close()
	err = fn(db)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
		// A wrong ID is a mistake in how the command was called.
		return usage(err)
	}
	return err
}

// ResumeCommand is the command line that comes back to a session: the
// flags that say where its servers and database are, which the session
// itself cannot store (a config file path may differ per shell).
func ResumeCommand(g Settings, id string) string {
	args := []string{"agent", "--resume", id}
	if g.DBPath != "" {
		args = append(args, "--db", shellQuote(g.DBPath))
	}
	if g.MCPConfig != "" {
		args = append(args, "--mcp-config", shellQuote(g.MCPConfig))
	}
	for _, m := range g.MCP {
		args = append(args, "--mcp", shellQuote(m))
	}
	switch g.Defer {
	case "", "false":
	case "true":
		args = append(args, "--defer")
	default:
		args = append(args, "--defer="+g.Defer)
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r == '@' || r == '+' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// StdinGrace is how long -p with a prompt waits for piped stdin to start.
const StdinGrace = 2 * time.Second

// ReadStdin reads stdin when it is not a terminal. With a prompt given, a
// pipe that sends nothing (and does not close) within StdinGrace is left
// alone: it is an inherited descriptor nobody writes to (a CI runner, an
// editor), not input, and waiting for its end would hang the run. Files
// are read whole; without a prompt, stdin is the prompt and is waited for.
func ReadStdin(f *os.File, havePrompt bool) ([]byte, error) {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return nil, nil
	}
	if !havePrompt || st.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := f.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	select {
	case c = <-first:
	case <-time.After(StdinGrace):
		return nil, nil
	}
	if c.err != nil {
		if errors.Is(c.err, io.EOF) {
			return c.b, nil
		}
		return nil, c.err
	}
	rest, err := io.ReadAll(f)
	return append(c.b, rest...), err
}
