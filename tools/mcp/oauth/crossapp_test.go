package oauth_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// crossApp sets up cross-app access: an IdP that knows the agent as
// "agent-idp" (known at the authorization server as "agent-as"), and an
// authorization server that trusts the IdP. change alters the setting
// before the first request.
func crossApp(t *testing.T, interactive bool, change func(idp *oauthtest.IdP, cfg *config.MCPOAuth)) (*fixture, *oauthtest.IdP) {
	t.Helper()
	idp := oauthtest.NewIdP(t)
	idp.Clients["agent-idp"] = ""
	idp.ClientAtAS["agent-idp"] = "agent-as"
	cfg := &config.MCPOAuth{Grant: config.GrantCrossApp, ClientID: "agent-as", ClientSecret: "as-secret",
		IdP: &config.MCPOAuthIdP{Issuer: idp.URL, ClientID: "agent-idp", IDToken: idp.IDToken(t, "alice", "agent-idp", time.Hour)}}
	if change != nil {
		change(idp, cfg)
	}
	f := setup(t, cfg, interactive, func(s *oauthtest.Server) {
		s.IdP = idp
		s.NoRegistration = true
		s.AddClient(oauthtest.Client{ID: "agent-as", Secret: "as-secret", AuthMethod: "client_secret_basic"})
	})
	return f, idp
}

// Cross-app access signs in with no browser: the ID token becomes an
// ID-JAG at the IdP, the ID-JAG a token at the server's authorization
// server; an expired token is replaced the same way, and neither the ID
// token nor the ID-JAG is kept.
func TestCrossAppAccess(t *testing.T) {
	var idToken string
	f, idp := crossApp(t, false, func(_ *oauthtest.IdP, cfg *config.MCPOAuth) { idToken = cfg.IdP.IDToken })
	if st := f.auth.State(); st != oauth.StateOnUse || f.auth.Grant() != config.GrantCrossApp {
		t.Fatalf("state with an ID token and no sign-in yet %q (grant %s), want %q", st, f.auth.Grant(), oauth.StateOnUse)
	}
	for range 2 {
		if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
			t.Fatalf("call: %v %v\nAS: %q\nIdP: %q", status, err, f.as.Log(), idp.Log())
		}
	}
	if r := f.rejections(); len(r) > 0 || len(idp.Exchanged()) != 1 || count(f.as.Log(), "POST /token -> 200") != 1 {
		t.Fatalf("rejections %q, exchanges %d\nAS: %q", r, len(idp.Exchanged()), f.as.Log())
	}
	if f.br.visits.Load() != 0 || f.auth.State() != oauth.StateSignedIn {
		t.Fatalf("visits %d, state %s", f.br.visits.Load(), f.auth.State())
	}
	f.as.ExpireAccessTokens()
	if status, err := f.call(t, "tools/call"); err != nil || status != 200 {
		t.Fatalf("call after expiry: %v %v\n%q", status, err, f.as.Log())
	}
	if len(idp.Exchanged()) != 2 {
		t.Fatalf("exchanges after expiry: %d, want 2", len(idp.Exchanged()))
	}
	files, _ := filepath.Glob(filepath.Join(f.dir, "*.json"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		for _, secret := range append(idp.Exchanged(), idToken) {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s keeps the ID token or an ID-JAG", p)
			}
		}
	}
}

// What the IdP or the authorization server refuses ends the request with
// an error that says so; an expired ID token is not even sent.
func TestCrossAppRefusals(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "id_token")
	for _, tc := range []struct {
		name     string
		change   func(idp *oauthtest.IdP, cfg *config.MCPOAuth)
		want     string // in the error
		signIn   bool   // the error is a SignInError
		askedIdP bool
	}{
		{name: "expired ID token", want: "expired at", signIn: true, change: func(idp *oauthtest.IdP, cfg *config.MCPOAuth) {
			cfg.IdP.IDToken = idp.IDToken(t, "alice", "agent-idp", -time.Minute)
		}},
		{name: "no ID token and no browser", want: "sign in at the IdP", signIn: true, change: func(_ *oauthtest.IdP, cfg *config.MCPOAuth) {
			cfg.IdP.IDToken = ""
		}},
		{name: "ID token of another client", want: "invalid_grant: subject_token was issued to another client", askedIdP: true,
			change: func(idp *oauthtest.IdP, cfg *config.MCPOAuth) {
				cfg.IdP.IDToken = idp.IDToken(t, "alice", "someone-else", time.Hour)
			}},
		{name: "IdP policy refuses the server", want: "invalid_target", askedIdP: true,
			change: func(idp *oauthtest.IdP, _ *config.MCPOAuth) { idp.Allowed = []string{"https://other.example/mcp"} }},
		{name: "wrong IdP client secret", want: "invalid_client", askedIdP: true,
			change: func(_ *oauthtest.IdP, cfg *config.MCPOAuth) { cfg.IdP.ClientSecret = "guess" }},
		{name: "ID-JAG for another client", want: "invalid_grant: the ID-JAG was issued to another client", askedIdP: true,
			change: func(idp *oauthtest.IdP, _ *config.MCPOAuth) { idp.ClientAtAS["agent-idp"] = "someone-else" }},
		{name: "IdP without metadata", want: "publishes no OpenID or OAuth metadata",
			change: func(idp *oauthtest.IdP, cfg *config.MCPOAuth) { cfg.IdP.Issuer = idp.URL + "/tenant" }},
		{name: "ID token file", want: "", askedIdP: true, change: func(idp *oauthtest.IdP, cfg *config.MCPOAuth) {
			if err := os.WriteFile(keyFile, []byte(idp.IDToken(t, "alice", "agent-idp", time.Hour)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg.IdP.IDToken = "@" + keyFile
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, idp := crossApp(t, false, tc.change)
			status, err := f.call(t, "tools/list")
			if tc.want == "" {
				if err != nil || status != 200 {
					t.Fatalf("call: %v %v\nIdP: %q", status, err, idp.Log())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q\nIdP: %q\nAS: %q", err, tc.want, idp.Log(), f.as.Log())
			}
			if got := errors.Is(err, oauth.ErrSignInRequired); got != tc.signIn {
				t.Errorf("a SignInError: %v, want %v", got, tc.signIn)
			}
			if got := len(idp.Log()) > 0; got != tc.askedIdP {
				t.Errorf("the IdP was asked: %v, want %v (%q)", got, tc.askedIdP, idp.Log())
			}
			if strings.Contains(err.Error(), "eyJ") {
				t.Errorf("a JWT in the error text: %v", err)
			}
		})
	}
}

// Without an idp.id_token the agent signs in at the IdP itself, once
// (OpenID Connect through the browser); a later run uses the kept ID
// token, and one that runs out is renewed with the kept refresh token.
func TestCrossAppSingleSignOn(t *testing.T) {
	var cfg *config.MCPOAuth
	f, idp := crossApp(t, true, func(idp *oauthtest.IdP, c *config.MCPOAuth) {
		c.IdP.IDToken = ""
		idp.IDTokenTTL = 30 * time.Second // under a minute: not used again without a refresh
		cfg = c
	})
	// No ID token and no IdP sign-in kept: it takes a browser.
	if st := f.auth.State(); st != oauth.StateNotSignedIn {
		t.Fatalf("state before the IdP sign-in %q, want %q", st, oauth.StateNotSignedIn)
	}
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("call: %v %v\nIdP: %q\nAS: %q", status, err, idp.Log(), f.as.Log())
	}
	if f.br.visits.Load() != 1 || idp.SignIns() != 1 || len(idp.Exchanged()) != 1 {
		t.Fatalf("visits %d, IdP sign-ins %d, exchanges %d", f.br.visits.Load(), idp.SignIns(), len(idp.Exchanged()))
	}
	// A later run, with no browser: the kept sign-in at the IdP, renewed.
	later := oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL, OAuth: cfg}, oauth.Options{Dir: f.dir})
	f.as.ExpireAccessTokens()
	// Another server of the same IdP, never used: the kept IdP sign-in
	// gets its token with no browser.
	other := oauth.New(config.MCPServer{Name: "other", Type: config.MCPHTTP, URL: f.as.ResourceURL + "/other", OAuth: cfg}, oauth.Options{Dir: f.dir})
	if st := other.State(); st != oauth.StateOnUse {
		t.Errorf("state of another server of a signed-in IdP %q, want %q", st, oauth.StateOnUse)
	}
	if status, err := post(t.Context(), &http.Client{Transport: later.Wrap(nil)}, f.as.ResourceURL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil || status != 200 {
		t.Fatalf("later run: %v %v\nIdP: %q", status, err, idp.Log())
	}
	if idp.SignIns() != 1 || count(idp.Log(), "200 refresh_token") != 1 || len(idp.Exchanged()) != 2 {
		t.Fatalf("IdP sign-ins %d, log %q, exchanges %d", idp.SignIns(), idp.Log(), len(idp.Exchanged()))
	}
	// Signing out forgets the IdP sign-in too: the next run needs one.
	if removed, err := later.Logout(); err != nil || !removed {
		t.Fatalf("logout: %v %v", removed, err)
	}
	if files, _ := filepath.Glob(filepath.Join(f.dir, "*.json")); len(files) != 0 {
		t.Fatalf("sign-ins left after logout: %v", files)
	}
	again := oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL, OAuth: cfg}, oauth.Options{Dir: f.dir})
	if _, err := post(t.Context(), &http.Client{Transport: again.Wrap(nil)}, f.as.ResourceURL, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !errors.Is(err, oauth.ErrSignInRequired) {
		t.Fatalf("after logout: %v, want a SignInError", err)
	}
}
