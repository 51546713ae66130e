package app

import (
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-dev/agent/agent"
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

// #27: a refused key names the variable to set and where a key comes from.
func TestHintAuthNamesTheVariable(t *testing.T) {
	for _, c := range []struct{ provider, want string }{
		{"anthropic", "set ANTHROPIC_API_KEY to a valid key (from console.anthropic.com"},
		{"openai", "set OPENAI_API_KEY to a valid key (from platform.openai.com/api-keys)"},
		{"groq", "set GROQ_API_KEY"},
	} {
		a := &App{label: c.provider}
		err := fmt.Errorf("%s API error (401): invalid x-api-key: %w", c.provider, agent.ErrAuth)
		if h := a.hint(err); !strings.Contains(h, c.want) {
			t.Errorf("%s: hint %q, want %q", c.provider, h, c.want)
		}
	}
}
