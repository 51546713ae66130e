package app

import (
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
)

// A refused connection (a local server not running) and a name that does
// not resolve (no network, a mistyped host) get different advice.
func TestHintConnectionRefusedVersusDNS(t *testing.T) {
	a := &App{}
	refused := fmt.Errorf("ollama: send request: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	if h := a.hint(refused); !strings.Contains(h, "start the server") {
		t.Errorf("refused: %q", h)
	}
	dns := fmt.Errorf("anthropic: send request: %w", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "api.anthropic.com", Err: "no such host", IsNotFound: true}})
	if h := a.hint(dns); !strings.Contains(h, "api.anthropic.com does not resolve") || strings.Contains(h, "start the server") {
		t.Errorf("dns: %q", h)
	}
}
