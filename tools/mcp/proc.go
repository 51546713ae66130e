package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// proc is a stdio server's process. The agent starts it itself (rather than
// leaving it to mcp-go) to know its exit status, to kill its process group
// when a call hangs, and to see every line it writes on stdout: a line that
// is an MCP message cut short fails the request waiting for an answer at
// once instead of leaving it to its timeout. Other lines that are not JSON
// (a banner, a console.log) are skipped, as the MCP SDKs' clients do, and
// the last one is quoted if the server then fails.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error                  // Wait's result, set before exited is closed
	bad    chan string            // MCP messages on stdout that are not JSON
	noise  atomic.Pointer[string] // the last other line on stdout that is not JSON
	talked chan struct{}          // closed at the process's first output
	once   sync.Once
}

// spawn starts the server's process with its pipes.
// Its stderr is copied into stderr from the start, so a process that dies
// at once still leaves its last words.
func (c *conn) spawn(stderr *tail) (*proc, *procTransport, error) {
	cmd, err := c.command(c.m.ctx)
	if err != nil {
		return nil, nil, err
	}
	// os.Pipe rather than StdoutPipe: Wait must not close the read ends
	// before the last lines (the stderr saying why it died) are read.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	token := newToken()
	cmd.Env = append(cmd.Env, leftoverEnv+"="+token)
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, nil, fmt.Errorf("start %s: %w", c.cfg.Command, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	p := &proc{cmd: cmd, exited: make(chan struct{}), bad: make(chan string, 1), talked: make(chan struct{})}
	c.m.procs.add(p)
	pf, err := pidFile(c.m.opts.PidDir, c.cfg.Name, c.cfg.Command, token, cmd.Process.Pid)
	if err != nil {
		c.m.log.Warn("an MCP server ended by a crash of the agent would be left running", "server", c.cfg.Name, "err", err)
	}
	go func() {
		p.err = cmd.Wait()
		if pf != "" {
			_ = os.Remove(pf)
		}
		c.m.procs.remove(p)
		close(p.exited)
	}()
	go func() {
		_, _ = io.Copy(stderr, &talkReader{ReadCloser: errR, p: p})
		stderr.finish()
		errR.Close()
	}()
	cr := newCapReader(&lineCheck{r: outR, p: p}, c.m.opts.MaxToolResultBytes, true)
	cr.pages = &c.pages
	tr := transport.NewIO(cr, inW, nil)
	return p, &procTransport{Stdio: tr, p: p, out: outR}, nil
}

// status says how the process ended, "" while it runs: "exit status 2",
// "killed by SIGKILL".
func (p *proc) status() string {
	st, _ := p.ended()
	return st
}

// ended is status, and whether a signal from outside ended the process
// (SIGKILL, SIGTERM, SIGINT, SIGHUP): its stderr then tells what it was
// doing, its start banner often, not why it ended, and is not quoted.
func (p *proc) ended() (status string, fromOutside bool) {
	select {
	case <-p.exited:
	default:
		return "", false
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal()
			name, known := signalNames[sig]
			if !known {
				return "killed by signal " + sig.String(), false
			}
			return "killed by " + name, sig == syscall.SIGKILL || sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGHUP
		}
		return ee.String(), false // "exit status 2"
	}
	if p.err != nil {
		return p.err.Error(), false
	}
	return "exit status 0", false
}

// signalNames are the signals that end a server, by the names a user
// would kill it with: Go's own names ("killed", "terminated") do not say
// which one it was.
var signalNames = map[syscall.Signal]string{
	syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGABRT: "SIGABRT",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL",
	syscall.SIGFPE: "SIGFPE", syscall.SIGPIPE: "SIGPIPE", syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGALRM: "SIGALRM",
}

// kill ends the process and its process group at once.
func (p *proc) kill() { killGroup(p.cmd) }

// term asks the process and its process group to stop (SIGTERM).
func (p *proc) term() { termGroup(p.cmd) }

// stop lets the process exit by itself after its stdin closed, and kills
// its process group if it has not within a grace period.
func (p *proc) stop() {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		p.kill()
	}
}

func (p *proc) spoke() { p.once.Do(func() { close(p.talked) }) }

// malformed reports a line that is not JSON. One that starts like an MCP
// message is an answer cut short or garbled: the request waiting for it is
// failed (the latest one is kept). Any other is a log line written to the
// wrong stream: skipped, and kept for the error if the server then fails.
// Either is kept as its first 200 bytes.
func (p *proc) malformed(line []byte) {
	short := firstLine(string(line), 200)
	if !looksLikeMessage(line) {
		p.noise.Store(&short)
		return
	}
	select {
	case p.bad <- short:
	default:
	}
}

// looksLikeMessage reports whether a line that is not JSON was meant to be
// a JSON-RPC message, not a log line such as a banner or Node's "{ level:
// 'debug' }": an object whose first member is one a message has, or that
// names "jsonrpc" anywhere. The first member alone is not "jsonrpc": the
// TypeScript SDK writes it and the id after the rest
// ({"result":{...},"jsonrpc":"2.0","id":2}), so its answer cut short
// holds no "jsonrpc" at all.
func looksLikeMessage(line []byte) bool {
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	first := bytes.TrimLeft(line[1:], " \t")
	for _, k := range []string{`"jsonrpc"`, `"id"`, `"result"`, `"error"`, `"method"`} {
		if bytes.HasPrefix(first, []byte(k)) {
			return true
		}
	}
	return bytes.Contains(line, []byte(`"jsonrpc"`))
}

// noiseLine is the last line that is not JSON the server wrote on stdout.
func (p *proc) noiseLine() string {
	if p == nil {
		return ""
	}
	if l := p.noise.Load(); l != nil {
		return *l
	}
	return ""
}

// withNoise adds to err the last line that is not JSON the server wrote on
// stdout, which often says why it did not answer.
func (p *proc) withNoise(err error) error {
	if l := p.noiseLine(); l != "" {
		return fmt.Errorf("%w; the server wrote a line that is not JSON on stdout: %q (a stdio server must write only MCP messages there, and its logs to stderr)", err, l)
	}
	return err
}

// drainBad forgets malformed lines seen before a new request.
func (p *proc) drainBad() {
	select {
	case <-p.bad:
	default:
	}
}

// procTransport is mcp-go's stdio transport over the process's pipes;
// closing it also ends the process.
type procTransport struct {
	*transport.Stdio
	p   *proc
	out *os.File
	// guard minds the handshake for the server's "protocol" setting
	// (protocol.go).
	guard *eraGuard
}

// SendRequest sends req through the guard.
func (t *procTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return t.guard.send(ctx, req, t.Stdio.SendRequest)
}

func (t *procTransport) Close() error {
	err := t.Stdio.Close()
	go func() {
		t.p.stop()
		t.out.Close()
	}()
	return err
}

// lineCheck passes stdout through and reports lines that are not JSON.
type lineCheck struct {
	r    io.Reader
	p    *proc
	line []byte
	long bool // the current line outgrew the buffer: not checked
}

const maxCheckedLine = 1 << 20

func (l *lineCheck) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	if n > 0 {
		l.p.spoke()
	}
	rest := b[:n]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		chunk := rest
		if i >= 0 {
			chunk = rest[:i]
		}
		if !l.long {
			if len(l.line)+len(chunk) > maxCheckedLine {
				l.long, l.line = true, l.line[:0]
			} else {
				l.line = append(l.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(l.line); !l.long && len(line) > 0 && !json.Valid(line) {
			l.p.malformed(line)
		}
		l.line, l.long = l.line[:0], false
		rest = rest[i+1:]
	}
	return n, err
}

// talkReader notes the process's first output on stderr.
type talkReader struct {
	io.ReadCloser
	p *proc
}

func (t *talkReader) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if n > 0 {
		t.p.spoke()
	}
	return n, err
}
