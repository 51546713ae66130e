package oauth_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// A resource whose protected resource metadata moves to another
// authorization server (MCP SEP-2352): the agent registers again with the
// new one and signs in there, neither refreshing at the old one (its
// tokens are no longer taken) nor showing the new one the old client; the
// new sign-in is kept for later runs.
func TestAuthorizationServerMigration(t *testing.T) {
	f := setup(t, nil, true, nil)
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("first sign-in: %v %v\n%q", status, err, f.as.Log())
	}
	before := len(f.as.Log())

	as2 := oauthtest.New(t, okMCP)
	as2.ResourceURL = f.as.ResourceURL // its tokens are for the moved resource
	f.as.MoveTo(as2)

	status, err := f.call(t, "tools/list")
	if err != nil || status != 200 {
		t.Fatalf("after the move: %v %v\nold: %q\nnew: %q", status, err, f.as.Log(), as2.Log())
	}
	if count(as2.Log(), "POST /register -> 201") != 1 || count(as2.Log(), "POST /token -> 200") != 1 {
		t.Fatalf("no registration and sign-in at the new server: %q", as2.Log())
	}
	for _, l := range as2.Log() {
		if strings.Contains(l, "-> 4") {
			t.Errorf("the new server refused (the old client or token shown to it?): %s", l)
		}
	}
	for _, l := range f.as.Log()[before:] {
		if strings.HasPrefix(l, "POST /token") || strings.HasPrefix(l, "POST /register") || strings.HasPrefix(l, "GET /authorize") {
			t.Errorf("the old authorization server was used after the move: %s", l)
		}
	}
	if n := f.br.visits.Load(); n != 2 {
		t.Errorf("browser visits %d, want 2 (the old server, the new one)", n)
	}

	// A later run reads the new server's sign-in.
	again := oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL}, oauth.Options{Dir: f.dir})
	if status, err := post(t.Context(), &http.Client{Transport: again.Wrap(nil)}, f.as.ResourceURL, `{}`); err != nil || status != 200 {
		t.Fatalf("a later run with the kept sign-in: %v %v", status, err)
	}
}

// A configured client that was used with the old authorization server is
// not shown to the new one: the sign-in is refused saying so, and goes on
// once the user has said it is registered there too (a logout forgets
// where it was used).
func TestConfiguredClientAfterMigration(t *testing.T) {
	pre := oauthtest.Client{ID: "pre", Secret: "pre-secret", AuthMethod: "client_secret_basic", RedirectURIs: []string{"http://127.0.0.1/callback"}}
	cfg := config.MCPOAuth{ClientID: "pre", ClientSecret: "pre-secret"}
	f := setup(t, &cfg, true, func(s *oauthtest.Server) { s.AddClient(pre) })
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("first sign-in: %v %v\n%q", status, err, f.as.Log())
	}
	as2 := oauthtest.New(t, okMCP)
	as2.ResourceURL = f.as.ResourceURL
	f.as.MoveTo(as2)

	_, err := f.call(t, "tools/list")
	if !errors.Is(err, oauth.ErrClientOfAnotherServer) {
		t.Fatalf("err = %v, want ErrClientOfAnotherServer", err)
	}
	if msg := err.Error(); strings.Contains(msg, "pre-secret") || !strings.Contains(msg, "agent mcp logout remote") {
		t.Errorf("the error shows the secret or does not say what to do: %q", msg)
	}
	for _, l := range as2.Log() {
		if strings.HasPrefix(l, "GET /authorize") || strings.HasPrefix(l, "POST /token") {
			t.Errorf("the configured client went to the new authorization server: %s", l)
		}
	}

	as2.AddClient(pre)
	if _, err := f.auth.Logout(); err != nil {
		t.Fatal(err)
	}
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("after logout: %v %v\n%q", status, err, as2.Log())
	}
}
