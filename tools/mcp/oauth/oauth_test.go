package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// okMCP stands for the MCP server behind the token check.
var okMCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
})

// browser follows the authorization URL's redirects to the agent's
// listener, as a user's browser would; it counts its visits.
type browser struct{ visits atomic.Int32 }

func (b *browser) open(_, u string) {
	b.visits.Add(1)
	go func() {
		resp, err := http.Get(u)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
}

type fixture struct {
	as   *oauthtest.Server
	auth *oauth.Authorizer
	http *http.Client
	dir  string
	br   *browser
}

func setup(t *testing.T, cfg *config.MCPOAuth, interactive bool, tune func(*oauthtest.Server)) *fixture {
	t.Helper()
	f := &fixture{as: oauthtest.New(t, okMCP), dir: t.TempDir(), br: &browser{}}
	if tune != nil {
		tune(f.as)
	}
	o := oauth.Options{Dir: f.dir}
	if interactive {
		o.Prompt = f.br.open
	}
	f.auth = oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL, OAuth: cfg}, o)
	f.auth.SetLive(true)
	f.http = &http.Client{Transport: f.auth.Wrap(nil)}
	return f
}

// call sends one JSON-RPC request of method through the authorizer and
// returns the status.
func (f *fixture) call(t *testing.T, method string) (int, error) {
	t.Helper()
	return post(t.Context(), f.http, f.as.ResourceURL, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{}}`)
}

func post(ctx context.Context, c *http.Client, url, body string) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (f *fixture) rejections() []string {
	var out []string
	for _, l := range f.as.Log() {
		if strings.Contains(l, "-> 4") && !strings.Contains(l, "/mcp -> 401") && !strings.Contains(l, "/mcp -> 403") {
			out = append(out, l)
		}
	}
	return out
}

func count(log []string, prefix string) int {
	n := 0
	for _, l := range log {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestSignInThroughTheBrowser(t *testing.T) {
	f := setup(t, nil, true, func(s *oauthtest.Server) { s.Scopes = []string{"mcp:read", "offline_access"} })
	status, err := f.call(t, "tools/list")
	if err != nil || status != 200 {
		t.Fatalf("call: %v %v\nlog: %q", status, err, f.as.Log())
	}
	if r := f.rejections(); len(r) > 0 {
		t.Fatalf("the fake rejected: %q", r)
	}
	if f.br.visits.Load() != 1 || f.auth.State() != oauth.StateSignedIn {
		t.Fatalf("visits %d, state %s", f.br.visits.Load(), f.auth.State())
	}
	// The token is kept 0600 in the data dir; a second client reads it.
	files, _ := filepath.Glob(filepath.Join(f.dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	again := oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL}, oauth.Options{Dir: f.dir})
	status, err = post(t.Context(), &http.Client{Transport: again.Wrap(nil)}, f.as.ResourceURL, `{}`)
	if err != nil || status != 200 {
		t.Fatalf("a later run with the stored token: %v %v", status, err)
	}
}

func TestRefresh(t *testing.T) {
	f := setup(t, nil, true, nil)
	if _, err := f.call(t, "initialize"); err != nil {
		t.Fatal(err)
	}
	// Expired access token: the 401 is answered by a refresh, no browser.
	f.as.ExpireAccessTokens()
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("after expiry: %v %v\n%q", status, err, f.as.Log())
	}
	if n := count(f.as.Log(), "POST /token -> 200"); n != 2 || f.br.visits.Load() != 1 {
		t.Fatalf("token grants %d (want code + refresh), browser visits %d\n%q", n, f.br.visits.Load(), f.as.Log())
	}

	// Both expired and no browser: a SignInError naming the command, the
	// refused refresh token forgotten, and no token in the text.
	f.as.ExpireAccessTokens()
	f.as.ExpireRefreshTokens()
	quiet := oauth.New(config.MCPServer{Name: "remote", Type: config.MCPHTTP, URL: f.as.ResourceURL}, oauth.Options{Dir: f.dir})
	_, err := post(t.Context(), &http.Client{Transport: quiet.Wrap(nil)}, f.as.ResourceURL, `{}`)
	if !errors.Is(err, oauth.ErrSignInRequired) || !strings.Contains(err.Error(), "agent mcp login remote") {
		t.Fatalf("err = %v, want a SignInError naming agent mcp login remote", err)
	}
	if strings.Contains(err.Error(), "at-") || strings.Contains(err.Error(), "rt-") {
		t.Fatalf("a token in the error: %v", err)
	}
	if !strings.Contains(strings.Join(f.as.Log(), "\n"), "POST /token -> 400 invalid_grant") {
		t.Fatalf("the expired refresh token was not refused: %q", f.as.Log())
	}
	if st := quiet.State(); st != oauth.StateNotSignedIn {
		t.Fatalf("state %s after a refused refresh, want not signed in", st)
	}
}

func TestStepUp(t *testing.T) {
	f := setup(t, nil, true, func(s *oauthtest.Server) {
		s.Required, s.ToolScopes = []string{"mcp:read"}, []string{"mcp:write"}
	})
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("list: %v %v", status, err)
	}
	if status, err := f.call(t, "tools/call"); err != nil || status != 200 {
		t.Fatalf("call: %v %v\n%q", status, err, f.as.Log())
	}
	if n := f.br.visits.Load(); n != 2 {
		t.Fatalf("browser visits %d, want 2 (sign-in, step-up)", n)
	}

	// A server that never grants the scope: two step-ups, then the 403.
	g := setup(t, nil, true, func(s *oauthtest.Server) {
		s.Required, s.ToolScopes, s.Withhold = []string{"mcp:read"}, []string{"mcp:admin"}, []string{"mcp:admin"}
	})
	if _, err := g.call(t, "tools/list"); err != nil {
		t.Fatal(err)
	}
	status, err := g.call(t, "tools/call")
	if err != nil || status != http.StatusForbidden {
		t.Fatalf("got %v %v, want the 403 after two step-ups", status, err)
	}
	if n := count(g.as.Log(), "GET /authorize"); n != 3 {
		t.Fatalf("authorization requests %d, want 3 (one sign-in, two step-ups)", n)
	}
}

func TestClientCredentials(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(keyPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		client oauthtest.Client
		cfg    config.MCPOAuth
	}{
		{"basic", oauthtest.Client{ID: "m2m", Secret: "s3", AuthMethod: "client_secret_basic"},
			config.MCPOAuth{ClientID: "m2m", ClientSecret: "s3", Grant: config.GrantClientCredentials}},
		{"private_key_jwt PEM", oauthtest.Client{ID: "m2m", AuthMethod: "private_key_jwt", PublicKey: &key.PublicKey},
			config.MCPOAuth{ClientID: "m2m", PrivateKey: keyPEM, Grant: config.GrantClientCredentials}},
		{"private_key_jwt @file", oauthtest.Client{ID: "m2m", AuthMethod: "private_key_jwt", PublicKey: &key.PublicKey},
			config.MCPOAuth{ClientID: "m2m", PrivateKey: "@" + keyFile, SigningAlg: "ES256", Grant: config.GrantClientCredentials}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			f := setup(t, &cfg, false, func(s *oauthtest.Server) { s.AddClient(tc.client) })
			// No token yet, but none needs a browser (#32: it read "not
			// signed in").
			if st := f.auth.State(); st != oauth.StateOnUse || f.auth.Grant() != config.GrantClientCredentials {
				t.Fatalf("state before the first call %q (grant %s), want %q", st, f.auth.Grant(), oauth.StateOnUse)
			}
			for range 2 { // the second call reuses the token
				if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
					t.Fatalf("call: %v %v\n%q", status, err, f.as.Log())
				}
			}
			if n := count(f.as.Log(), "POST /token -> 200"); n != 1 {
				t.Fatalf("token grants %d, want 1\n%q", n, f.as.Log())
			}
			if st := f.auth.State(); st != oauth.StateSignedIn {
				t.Errorf("state after the first call %q, want %q", st, oauth.StateSignedIn)
			}
		})
	}
}

func TestPreRegisteredClient(t *testing.T) {
	cfg := config.MCPOAuth{ClientID: "pre", ClientSecret: "pre-secret"}
	f := setup(t, &cfg, true, func(s *oauthtest.Server) {
		s.NoRegistration = true
		s.AddClient(oauthtest.Client{ID: "pre", Secret: "pre-secret", AuthMethod: "client_secret_basic", RedirectURIs: []string{"http://127.0.0.1/callback"}})
	})
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("call: %v %v\n%q", status, err, f.as.Log())
	}
	if count(f.as.Log(), "POST /register") != 0 {
		t.Fatal("a configured client must not register")
	}
}

func TestRefusals(t *testing.T) {
	t.Run("resource mismatch", func(t *testing.T) {
		f := setup(t, nil, true, func(s *oauthtest.Server) { s.PRMResource = "https://elsewhere.example/mcp" })
		_, err := f.call(t, "tools/list")
		if !errors.Is(err, oauth.ErrResourceMismatch) {
			t.Fatalf("err = %v, want ErrResourceMismatch", err)
		}
		if count(f.as.Log(), "GET /authorize") != 0 || f.br.visits.Load() != 0 {
			t.Fatal("the flow went on after a mismatched resource")
		}
	})
	t.Run("user denies", func(t *testing.T) {
		f := setup(t, nil, true, nil)
		f.as.DenyNext("access_denied")
		_, err := f.call(t, "tools/list")
		if err == nil || !strings.Contains(err.Error(), "access_denied") {
			t.Fatalf("err = %v, want the server's access_denied", err)
		}
	})
	t.Run("no browser during the start", func(t *testing.T) {
		f := setup(t, nil, true, nil)
		f.auth.SetLive(false) // the manager signs in outside the start's timeouts
		_, err := f.call(t, "initialize")
		if !errors.Is(err, oauth.ErrSignInRequired) || f.br.visits.Load() != 0 {
			t.Fatalf("err = %v, visits %d", err, f.br.visits.Load())
		}
		if err := f.auth.Login(t.Context()); err != nil {
			t.Fatal(err)
		}
		if status, err := f.call(t, "initialize"); err != nil || status != 200 {
			t.Fatalf("after Login: %v %v", status, err)
		}
	})
	t.Run("oauth false", func(t *testing.T) {
		if a := oauth.New(config.MCPServer{Name: "x", Type: config.MCPHTTP, URL: "http://127.0.0.1:1/mcp", OAuth: &config.MCPOAuth{Off: true}}, oauth.Options{Dir: t.TempDir()}); a != nil {
			t.Fatal("oauth false still signs in")
		}
	})
}

func TestLogout(t *testing.T) {
	f := setup(t, nil, true, nil)
	if err := f.auth.Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	removed, err := f.auth.Logout()
	if err != nil || !removed || f.auth.State() != oauth.StateNotSignedIn {
		t.Fatalf("logout: %v %v %s", removed, err, f.auth.State())
	}
	if files, _ := filepath.Glob(filepath.Join(f.dir, "*.json")); len(files) != 0 {
		t.Fatalf("files left: %v", files)
	}
}
