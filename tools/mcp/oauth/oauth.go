// Package oauth signs the agent in to remote MCP servers, to the MCP
// authorization specification (2025-11-25) and its back-compat rules for
// 2025-03-26 servers: discovery from the 401 challenge (RFC 9728, RFC 8414,
// OpenID), a configured client, a Client ID Metadata Document or dynamic
// registration (RFC 7591), the authorization code grant with PKCE S256 and
// the resource indicator (RFC 8707) through the user's browser and a
// 127.0.0.1 listener, the client credentials grant, or cross-app access
// (an enterprise IdP's ID-JAG by RFC 8693 token exchange, presented as an
// RFC 7523 JWT bearer grant; crossapp.go), or workload identity
// federation (the workload's own identity token as that grant, SEP-1933;
// workload.go); DPoP-bound tokens (RFC 9449, SEP-1932; dpop.go) where the
// authorization server or the resource asks for them; client_secret_basic,
// client_secret_post, none and private_key_jwt (RFC 7523); refresh before
// expiry and on a 401; step-up on 403 insufficient_scope, at most twice a
// request.
//
// An Authorizer wraps the HTTP transport of one server (Wrap). mcp-go's
// own OAuth handler fixes its scopes when it is built and has no client
// credentials, assertions or metadata documents, so the flow is here; its
// token type, PKCE and state helpers are used.
//
// Tokens are kept in the OS keychain or in files of mode 0600 in the
// agent's data directory (Store, the token_store setting), never in the
// session database, and no error text carries one.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/agent-dev/agent/config"
)

// DefaultTimeout bounds a sign-in through the browser (oauth_timeout).
const DefaultTimeout = 120 * time.Second

// Options are shared by every server's Authorizer.
type Options struct {
	// Store keeps the sign-ins (NewStore); nil: files in Dir.
	Store *Store
	// Dir keeps the sign-ins, one file per server (the agent's data dir),
	// when there is no Store.
	Dir string
	// Prompt shows the authorization URL to the user and opens it (see
	// OpenBrowser). Nil: no sign-in through a browser can happen (the TUI's
	// background starts); a server that needs one fails with a SignInError.
	Prompt func(server, authURL string)
	// Timeout bounds one sign-in through the browser (default DefaultTimeout).
	Timeout time.Duration
	// ClientMetadataURL is the HTTPS URL of the agent's Client ID Metadata
	// Document, used as client_id where the server supports it.
	ClientMetadataURL string
	// ClientName is sent in dynamic registrations.
	ClientName string
	// HTTP makes the metadata, registration and token requests.
	HTTP *http.Client
	// Login is the command a SignInError tells the user to run, followed
	// by the server's name: "/mcp login" in the TUI; "" is the shell's
	// "agent mcp login".
	Login string
}

// ErrSignInRequired is the kind of SignInError.
var ErrSignInRequired = errors.New("sign-in required")

// SignInError says a server needs the user to sign in.
type SignInError struct {
	Server string
	// Reason says why, in a few words ("no sign-in within 2m0s").
	Reason string
	// Login is the command that signs in (Options.Login).
	Login string
}

func (e *SignInError) Error() string { return "MCP server " + e.Server + " " + e.Need() }

// Need is the error without the server's name, for a line that names it
// already: "needs a sign-in (why): run `agent mcp login NAME`".
func (e *SignInError) Need() string {
	r := ""
	if e.Reason != "" {
		r = " (" + e.Reason + ")"
	}
	return fmt.Sprintf("needs a sign-in%s: run `%s %s`", r, e.LoginCommand(), e.Server)
}

// LoginCommand is the command that signs in, without the server's name.
func (e *SignInError) LoginCommand() string {
	if e.Login == "" {
		return "agent mcp login"
	}
	return e.Login
}

// signInError is the server's SignInError, naming the run's login command.
func (a *Authorizer) signInError(reason string) *SignInError {
	return &SignInError{Server: a.name, Reason: reason, Login: a.opts.Login}
}

func (e *SignInError) Is(target error) bool { return target == ErrSignInRequired }

// Authorizer signs in to one server and keeps its token.
type Authorizer struct {
	name, url string
	cfg       config.MCPOAuth
	opts      Options
	store     *Store
	http      *http.Client

	// mu orders sign-ins and refreshes, and guards rec and last.
	mu     sync.Mutex
	rec    record
	loaded bool
	last   challenge // the latest challenge of the server
	// live: the connection is up, so a step-up or a revoked token may run
	// the browser flow from inside a request (during the start, the
	// manager runs it outside the start's timeouts: NeedsSignIn).
	live atomic.Bool
	// nonces are the servers' latest DPoP nonces.
	nonces nonces
	// refusal is the latest SignInError a request through the transport
	// failed with (TakeRefusal).
	refusal atomic.Pointer[SignInError]
}

// New returns the server's Authorizer, or nil when the server is not
// remote, has OAuth turned off ("oauth": false), or sends its own
// Authorization header without an "oauth" entry.
func New(srv config.MCPServer, o Options) *Authorizer {
	if srv.Type != config.MCPHTTP && srv.Type != config.MCPSSE {
		return nil
	}
	if srv.OAuth != nil && srv.OAuth.Off {
		return nil
	}
	if srv.OAuth == nil {
		for k := range srv.Headers {
			if http.CanonicalHeaderKey(k) == "Authorization" {
				return nil
			}
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ClientName == "" {
		o.ClientName = "agent"
	}
	if o.HTTP == nil {
		// No kept-alive connections: the token request comes after a
		// sign-in that may outlast a server's keep-alive, and a POST on a
		// connection the server closed meanwhile fails with EOF (it is not
		// retried, not being idempotent).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		o.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: tr}
	}
	if o.Store == nil {
		o.Store = NewStore(StoreFile, o.Dir)
	}
	a := &Authorizer{name: srv.Name, url: srv.URL, opts: o, store: o.Store, http: o.HTTP}
	if srv.OAuth != nil {
		a.cfg = *srv.OAuth
	}
	return a
}

// dropIdle closes the idle connections of the MCP transport after a
// sign-in through the browser: it may have outlasted the server's
// keep-alive, and the next POST on such a connection fails with EOF.
func dropIdle(base http.RoundTripper) {
	if c, ok := base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
		return
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

// Store is where the Authorizer keeps its sign-in.
func (a *Authorizer) Store() *Store { return a.store }

// SetLive tells the Authorizer its connection is up (or down).
func (a *Authorizer) SetLive(up bool) { a.live.Store(up) }

// TakeRefusal returns, and forgets, the SignInError a request through the
// transport failed with last; nil when none did since the last call. It is
// for a caller whose MCP client did not pass that error on: mcp-go's
// server/discover probe takes any failure for an older server and falls
// back to initialize, whose own refusal then hides the sign-in.
func (a *Authorizer) TakeRefusal() *SignInError { return a.refusal.Swap(nil) }

// Interactive reports whether a sign-in through the browser can happen.
func (a *Authorizer) Interactive() bool { return a.opts.Prompt != nil }

// Timeout is the bound of one sign-in through the browser.
func (a *Authorizer) Timeout() time.Duration { return a.opts.Timeout }

// load reads the stored record once; mu is held.
func (a *Authorizer) load() error {
	if a.loaded {
		return nil
	}
	r, err := a.store.load(a.name, a.url)
	if err != nil {
		return err
	}
	a.rec, a.loaded = r, true
	return nil
}

// Reload makes the next use read the stored sign-in again: another
// Authorizer of the same server (the TUI's /mcp login, which has a
// browser to open where the run's own has none) has just kept a token.
func (a *Authorizer) Reload() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loaded = false
}

// State is a server's sign-in state for `agent mcp list`.
type State string

const (
	StateOff         State = "-"
	StateSignedIn    State = "signed in"
	StateExpired     State = "expired"
	StateNotSignedIn State = "not signed in"
	// StateOnUse: no token kept (or an expired one), but the grant gets
	// one by itself when the server is used, with no one at a browser:
	// client credentials, or cross-app access with an ID token at hand.
	StateOnUse State = "signs in on use"
)

// State reads the stored sign-in.
func (a *Authorizer) State() State {
	if a == nil {
		return StateOff
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(); err != nil {
		return StateNotSignedIn
	}
	t := a.rec.Token
	if t != nil && (!t.IsExpired() || t.RefreshToken != "") {
		return StateSignedIn
	}
	switch {
	case a.signsInAlone():
		return StateOnUse
	case t == nil:
		return StateNotSignedIn
	}
	return StateExpired
}

// Grant is the server's configured grant: authorization_code (the
// default), client_credentials or cross_app.
func (a *Authorizer) Grant() string {
	if a == nil || a.cfg.Grant == "" {
		return config.GrantAuthorizationCode
	}
	return a.cfg.Grant
}

// signsInAlone tells whether the grant gets a token with no one at a
// browser: client credentials and workload identity always; cross-app access when an ID token is
// configured or the agent's own IdP sign-in is kept (a fresh ID token, or
// a refresh token for one). mu is held.
func (a *Authorizer) signsInAlone() bool {
	switch a.cfg.Grant {
	case config.GrantClientCredentials, config.GrantWorkloadIdentity:
		return true
	case config.GrantCrossApp:
		idp := a.cfg.IdP
		if idp == nil {
			return false
		}
		if strings.TrimSpace(idp.IDToken) != "" {
			return true
		}
		rec, err := a.store.load(ssoServer, idp.Issuer)
		return err == nil && (fresh(rec.IDToken) || rec.Token != nil && rec.Token.RefreshToken != "")
	}
	return false
}

// Logout forgets the server's token and registered client; removed is false
// when there was nothing to forget.
// A cross_app server the agent signed in to at the IdP itself also forgets
// that sign-in, which signs out of the IdP's other servers too: signing out
// is not meant to leave the enterprise identity behind.
func (a *Authorizer) Logout() (removed bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rec, a.loaded = record{ServerURL: a.url}, true
	if idp := a.cfg.IdP; a.cfg.Grant == config.GrantCrossApp && idp != nil && strings.TrimSpace(idp.IDToken) == "" {
		sso, err := a.store.remove(ssoServer, idp.Issuer)
		if err != nil {
			return false, err
		}
		removed = sso
	}
	own, err := a.store.remove(a.name, a.url)
	return removed || own, err
}

// Login signs in now, through the browser (or the client credentials
// grant), whatever is stored: `agent mcp login`, and the manager when a
// start failed with a SignInError.
func (a *Authorizer) Login(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(); err != nil {
		return err
	}
	ch := a.last
	if ch == (challenge{}) {
		var err error
		if ch, err = a.probe(ctx); err != nil {
			return err
		}
	}
	return a.authorize(ctx, ch, nil)
}

// token returns the stored access token, refreshing it when it expires
// within a minute, or getting one by a machine grant (client credentials,
// cross-app, workload identity); "" when there is none. err is a machine
// grant's failure that trying again would not mend (finalGrantError). mu
// is held.
func (a *Authorizer) token(ctx context.Context) (string, error) {
	if err := a.load(); err != nil {
		return "", nil
	}
	if k, bound := a.boundKey(); bound && k == nil {
		// A DPoP token whose key is lost or damaged is of no use, and is
		// never sent as a Bearer token: forgotten, so a sign-in follows.
		a.rec.Token, a.rec.DPoPKey = nil, ""
		_ = a.store.save(a.name, a.url, a.rec)
	}
	t := a.rec.Token
	if t != nil && !t.ExpiresAt.IsZero() && time.Until(t.ExpiresAt) < time.Minute && t.RefreshToken != "" {
		if err := a.refresh(ctx); err == nil {
			t = a.rec.Token
		}
	}
	if (t == nil || (t.IsExpired() && t.RefreshToken == "")) && a.machineGrant() {
		err := a.authorize(ctx, a.last, nil)
		if err == nil {
			t = a.rec.Token
		} else if a.finalGrantError(err) {
			return "", &GrantError{Server: a.name, Err: err}
		}
	}
	if t == nil || (t.IsExpired() && t.RefreshToken == "") {
		return "", nil
	}
	return t.AccessToken, nil
}

// saveToken keeps tok (and the client it came with); mu is held.
func (a *Authorizer) saveToken(tok *transport.Token) error {
	a.rec.Token = tok
	return a.store.save(a.name, a.url, a.rec)
}
