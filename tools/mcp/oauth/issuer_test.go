package oauth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// RFC 9207 as MCP applies it (SEP-2468): the authorization response's iss
// is compared with the issuer of the server's metadata by simple string
// comparison, whether the server advertised it or not; an absent one is
// refused only where the server advertised it. A refused response's code
// never reaches a token endpoint.
func TestIssuerIdentification(t *testing.T) {
	send := func(f func(string) string) func(string) (string, bool) {
		return func(issuer string) (string, bool) { return f(issuer), true }
	}
	for _, tc := range []struct {
		name       string
		advertised bool
		iss        func(issuer string) (string, bool) // nil: the server's own behaviour
		refused    bool
	}{
		{"advertised and sent", true, nil, false},
		{"neither advertised nor sent", false, nil, false},
		{"advertised, missing", true, func(string) (string, bool) { return "", false }, true},
		{"advertised, another issuer", true, send(func(string) string { return "https://evil.example.com" }), true},
		{"not advertised, another issuer", false, send(func(string) string { return "https://evil.example.com" }), true},
		{"not advertised, sent anyway", false, send(func(iss string) string { return iss }), false},
		{"trailing slash", true, send(func(iss string) string { return iss + "/" }), true},
		{"upper-case scheme", true, send(func(iss string) string { return "HTTP" + strings.TrimPrefix(iss, "http") }), true},
		{"percent-encoded", true, send(func(iss string) string { return strings.Replace(iss, "127.0.0.1", "127%2E0.0.1", 1) }), true},
		{"empty", true, send(func(string) string { return "" }), true},
		{"escape sequence", true, send(func(string) string { return "https://evil.example.com/\x1b[2J\nnext line" }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t, nil, true, func(s *oauthtest.Server) {
				s.NoIssParameter = !tc.advertised
				s.ResponseIss = tc.iss
			})
			status, err := f.call(t, "tools/list")
			if !tc.refused {
				if err != nil || status != 200 {
					t.Fatalf("call: %v %v\n%q", status, err, f.as.Log())
				}
				return
			}
			if !errors.Is(err, oauth.ErrIssuerMismatch) {
				t.Fatalf("err = %v, want ErrIssuerMismatch", err)
			}
			// The iss is the sender's text: quoted, never raw in a terminal.
			if msg := err.Error(); strings.ContainsAny(msg, "\n\x1b") || !strings.Contains(msg, "mix-up") {
				t.Errorf("the error is not one plain line naming a possible mix-up: %q", msg)
			}
			if n := count(f.as.Log(), "POST /token"); n != 0 {
				t.Fatalf("the refused response's code went to the token endpoint:\n%q", f.as.Log())
			}
		})
	}
}
