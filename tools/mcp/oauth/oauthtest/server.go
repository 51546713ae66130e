// Package oauthtest is a strict fake of an OAuth 2.1 authorization server
// and of an MCP server protected by it, for tests: it answers with the
// RFCs' own errors where a real server rejects a request — a wrong PKCE
// verifier, a missing or other resource indicator, a reused or expired
// code, an expired or rotated refresh token, a client that authenticates
// otherwise than registered, a redirect URI that was not registered, a
// loopback redirect registered without application_type "native" — and
// the protected resource answers 401 with its challenge and 403
// insufficient_scope as the MCP authorization specification describes.
package oauthtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Client is a registered client.
type Client struct {
	ID, Secret   string
	AuthMethod   string // client_secret_basic, client_secret_post, none, private_key_jwt
	RedirectURIs []string
	// PublicKey verifies a private_key_jwt client's assertions.
	PublicKey any
}

// Server is the fake authorization server and protected resource. Set its
// fields before the first request.
type Server struct {
	// URL is the authorization server's issuer, ResourceURL the MCP
	// endpoint (URL + "/mcp").
	URL, ResourceURL string
	// Scopes are scopes_supported (of both metadata documents).
	Scopes []string
	// Required is what every MCP request needs; ToolScopes what tools/call
	// needs on top (403 insufficient_scope otherwise).
	Required, ToolScopes []string
	// AccessTTL and RefreshTTL are the tokens' lifetimes (default 1 h, 1 d).
	AccessTTL, RefreshTTL time.Duration
	// NoRegistration hides the registration endpoint.
	NoRegistration bool
	// Withhold are scopes never granted, whatever is asked (a step-up that
	// cannot succeed).
	Withhold []string
	// PRMResource, when set, is the resource the protected resource
	// metadata names instead of ResourceURL (a server pointing elsewhere).
	PRMResource string
	// NoIssParameter: the metadata does not advertise
	// authorization_response_iss_parameter_supported and the authorization
	// responses carry no iss (a server from before RFC 9207).
	NoIssParameter bool
	// ResponseIss, when set, says which iss the authorization responses
	// carry instead of the issuer, if any (send false): another server's
	// answer in a mix-up attack, or a server that does not keep its word.
	ResponseIss func(issuer string) (iss string, send bool)
	// OpenMethods are JSON-RPC methods the resource serves without a
	// token (a server that lets initialize through and guards the rest).
	OpenMethods []string
	// MCP answers the requests that pass the token check.
	MCP http.Handler
	// IdP, when set, is the enterprise IdP whose ID-JAGs the server takes
	// by the JWT bearer grant (cross-app access).
	IdP *IdP
	// DPoP, when set, binds tokens to DPoP keys (dpop.go).
	DPoP *DPoP
	// Workload, when set, takes workload identity tokens (dpop.go).
	Workload *Workload

	srv      *httptest.Server
	mu       sync.Mutex
	movedTo  *Server
	clients  map[string]*Client
	codes    map[string]*grant
	access   map[string]*grant
	refresh  map[string]*grant
	log      []string
	denyNext string
	jtis     map[string]bool
	issued   []string
	dpop     dpopState
}

// grant is what a code or token stands for.
type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
	expires                               time.Time
	used                                  bool
	fromCode                              string
	jkt                                   string // the DPoP key it is bound to
}

// New starts a fake closed with the test.
func New(t testing.TB, mcp http.Handler) *Server {
	s := &Server{MCP: mcp, clients: map[string]*Client{}, codes: map[string]*grant{}, access: map[string]*grant{}, refresh: map[string]*grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("/mcp", s.protected)
	mux.HandleFunc("/mcp/", s.protected) // an SSE server's /mcp/sse and /mcp/message
	s.srv = httptest.NewServer(mux)
	s.URL, s.ResourceURL = s.srv.URL, s.srv.URL+"/mcp"
	t.Cleanup(s.srv.Close)
	return s
}

// AddClient pre-registers a client.
func (s *Server) AddClient(c Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.ID] = &c
}

// MoveTo makes as the protected resource's authorization server from now
// on (a resource migrating to another one): its metadata names as, and it
// takes as's tokens for ResourceURL, no longer this server's. as must have
// this server's ResourceURL, the resource its tokens are for.
func (s *Server) MoveTo(as *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.movedTo = as
}

// DenyNext makes the next authorization answer with the error code (as when
// the user refuses).
func (s *Server) DenyNext(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denyNext = code
}

// ExpireAccessTokens makes every access token issued so far expired (the
// server then answers 401 to it).
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.access {
		g.expires = time.Now().Add(-time.Second)
	}
}

// ExpireRefreshTokens does the same to the refresh tokens.
func (s *Server) ExpireRefreshTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.refresh {
		g.expires = time.Now().Add(-time.Second)
	}
}

// Issued returns every access and refresh token issued so far (for tests
// that look for them where they must not be).
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}

// Log returns one line per request: "METHOD path -> status [error]".
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *Server) record(r *http.Request, status int, detail string) {
	line := fmt.Sprintf("%s %s -> %d", r.Method, r.URL.Path, status)
	if detail != "" {
		line += " " + detail
	}
	s.log = append(s.log, line)
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.record(r, 200, "")
	s.mu.Unlock()
	res := s.ResourceURL
	if s.PRMResource != "" {
		res = s.PRMResource
	}
	issuer := s.URL
	if as := s.moved(); as != nil {
		issuer = as.URL
	}
	writeJSON(w, 200, map[string]any{"resource": res, "authorization_servers": []string{issuer}, "scopes_supported": s.Scopes})
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.record(r, 200, "")
	s.mu.Unlock()
	m := map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
	}
	if len(s.Scopes) > 0 {
		m["scopes_supported"] = s.Scopes
	}
	if !s.NoIssParameter {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if s.IdP != nil || s.Workload != nil {
		m["grant_types_supported"] = append(m["grant_types_supported"].([]string), GrantJWTBearer)
	}
	if s.DPoP != nil && !s.DPoP.Unadvertised {
		m["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	if !s.NoRegistration {
		m["registration_endpoint"] = s.URL + "/register"
	}
	writeJSON(w, 200, m)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var req struct {
		RedirectURIs    []string `json:"redirect_uris"`
		AuthMethod      string   `json:"token_endpoint_auth_method"`
		GrantTypes      []string `json:"grant_types"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.fail(w, r, 400, "invalid_client_metadata", "the body is not JSON")
		return
	}
	if len(req.RedirectURIs) == 0 {
		s.fail(w, r, 400, "invalid_redirect_uri", "redirect_uris is required for the authorization code grant")
		return
	}
	// OpenID Connect Dynamic Client Registration §2, as OpenID providers
	// apply it: an omitted application_type is "web", and a web client may
	// register only https redirect URIs on a host other than localhost; a
	// native one (a CLI's loopback redirect) only loopback http or https.
	appType := req.ApplicationType
	if appType == "" {
		appType = "web"
	}
	if appType != "web" && appType != "native" {
		s.fail(w, r, 400, "invalid_client_metadata", "application_type must be native or web")
		return
	}
	for _, u := range req.RedirectURIs {
		pu, err := url.Parse(u)
		loopback := err == nil && (pu.Hostname() == "127.0.0.1" || pu.Hostname() == "localhost")
		switch {
		case err != nil || (pu.Scheme != "https" && !(pu.Scheme == "http" && loopback)):
			s.fail(w, r, 400, "invalid_redirect_uri", "redirect URIs must be https or loopback http")
			return
		case appType == "web" && loopback:
			s.fail(w, r, 400, "invalid_redirect_uri", "a web client (the default application_type) cannot register a loopback redirect URI")
			return
		}
	}
	c := &Client{ID: "client-" + random()[:8], AuthMethod: req.AuthMethod, RedirectURIs: req.RedirectURIs}
	if c.AuthMethod == "" {
		c.AuthMethod = "client_secret_basic"
	}
	if c.AuthMethod != "none" {
		c.Secret = random()
	}
	s.clients[c.ID] = c
	s.record(r, 201, "")
	out := map[string]any{"client_id": c.ID, "redirect_uris": c.RedirectURIs, "token_endpoint_auth_method": c.AuthMethod}
	if c.Secret != "" {
		out["client_secret"] = c.Secret
	}
	writeJSON(w, 201, out)
}

// sameRedirect compares redirect URIs, any port for loopback ones (RFC
// 8252 §7.3).
func sameRedirect(registered, got string) bool {
	if registered == got {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(got)
	return err1 == nil && err2 == nil && a.Hostname() == "127.0.0.1" && b.Hostname() == "127.0.0.1" && a.Scheme == b.Scheme && a.Path == b.Path
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	c := s.clients[q.Get("client_id")]
	redirect := q.Get("redirect_uri")
	// Errors about the client or the redirect URI must not redirect (RFC
	// 6749 §4.1.2.1): the user would be sent to an unverified place.
	if c == nil {
		s.fail(w, r, 400, "invalid_client", "unknown client_id")
		return
	}
	if !slices.ContainsFunc(c.RedirectURIs, func(u string) bool { return sameRedirect(u, redirect) }) {
		s.fail(w, r, 400, "invalid_request", "redirect_uri is not registered for this client")
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirect)
		v := u.Query()
		for k, vs := range params {
			v[k] = vs
		}
		if st := q.Get("state"); st != "" {
			v.Set("state", st)
		}
		// RFC 9207 §2: the issuer, on success and error answers alike.
		iss, send := s.URL, !s.NoIssParameter
		if s.ResponseIss != nil {
			iss, send = s.ResponseIss(s.URL)
		}
		if send {
			v.Set("iss", iss)
		}
		u.RawQuery = v.Encode()
		s.record(r, 302, params.Get("error"))
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with S256 is required"}})
	case q.Get("resource") != s.ResourceURL:
		back(url.Values{"error": {"invalid_target"}, "error_description": {"resource must be " + s.ResourceURL}})
	case s.denyNext != "":
		code := s.denyNext
		s.denyNext = ""
		back(url.Values{"error": {code}})
	default:
		code := random()
		s.codes[code] = &grant{client: c.ID, redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource"),
			scopes: strings.Fields(q.Get("scope")), expires: time.Now().Add(time.Minute)}
		back(url.Values{"code": {code}})
	}
}

// authenticate checks the client as it registered to authenticate.
func (s *Server) authenticate(r *http.Request) (*Client, string) {
	if r.PostForm.Get("client_assertion_type") != "" || r.PostForm.Get("client_assertion") != "" {
		return s.assertion(r)
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c := s.clients[id]
	switch {
	case c == nil:
		return nil, "unknown client"
	case c.AuthMethod == "private_key_jwt":
		return nil, "this client authenticates with a signed assertion"
	case c.AuthMethod == "client_secret_basic" && !basic:
		return nil, "this client authenticates with HTTP Basic"
	case c.AuthMethod == "client_secret_post" && (basic || secret == ""):
		return nil, "this client sends its secret in the body"
	case c.AuthMethod == "none" && (basic || secret != ""):
		return nil, "this client is public"
	case c.AuthMethod != "none" && secret != c.Secret:
		return nil, "wrong client secret"
	}
	return c, ""
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, 400, "invalid_request", "the body is not a form")
		return
	}
	jkt, ok := s.tokenProof(w, r)
	if !ok {
		return
	}
	s.dpop.jkt = jkt
	defer func() { s.dpop.jkt = "" }()
	if s.Workload != nil && r.PostForm.Get("grant_type") == GrantJWTBearer && r.PostForm.Get("client_secret") == "" &&
		r.PostForm.Get("client_assertion") == "" && r.Header.Get("Authorization") == "" {
		s.workloadGrant(w, r)
		return
	}
	c, why := s.authenticate(r)
	if c == nil {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		s.fail(w, r, 401, "invalid_client", why)
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		g := s.codes[f.Get("code")]
		switch {
		case g == nil || g.client != c.ID:
			s.fail(w, r, 400, "invalid_grant", "unknown code")
		case g.used:
			// RFC 6749 §4.1.2: a reused code revokes what it gave.
			for k, t := range s.access {
				if t.fromCode == f.Get("code") {
					delete(s.access, k)
				}
			}
			for k, t := range s.refresh {
				if t.fromCode == f.Get("code") {
					delete(s.refresh, k)
				}
			}
			s.fail(w, r, 400, "invalid_grant", "the code was already used")
		case time.Now().After(g.expires):
			s.fail(w, r, 400, "invalid_grant", "the code expired")
		case f.Get("redirect_uri") != g.redirect:
			s.fail(w, r, 400, "invalid_grant", "redirect_uri differs from the authorization request's")
		case s256(f.Get("code_verifier")) != g.challenge:
			s.fail(w, r, 400, "invalid_grant", "code_verifier does not match the code_challenge")
		case f.Get("resource") != g.resource:
			s.fail(w, r, 400, "invalid_target", "resource differs from the authorization request's")
		default:
			g.used = true
			s.issue(w, r, c, g.scopes, g.resource, f.Get("code"))
		}
	case "refresh_token":
		g := s.refresh[f.Get("refresh_token")]
		switch {
		case g == nil || g.client != c.ID:
			s.fail(w, r, 400, "invalid_grant", "unknown refresh token")
		case time.Now().After(g.expires):
			s.fail(w, r, 400, "invalid_grant", "the refresh token expired")
		case f.Get("resource") != "" && f.Get("resource") != g.resource:
			s.fail(w, r, 400, "invalid_target", "resource differs from the grant's")
		case g.jkt != jkt:
			s.fail(w, r, 400, "invalid_grant", "the refresh token is bound to another DPoP key")
		default:
			delete(s.refresh, f.Get("refresh_token")) // rotated (OAuth 2.1 §4.3.1)
			s.issue(w, r, c, g.scopes, g.resource, g.fromCode)
		}
	case GrantJWTBearer:
		s.jwtBearer(w, r, c)
	case "client_credentials":
		if c.AuthMethod == "none" {
			s.fail(w, r, 400, "unauthorized_client", "a public client cannot use client_credentials")
			return
		}
		if f.Get("resource") != s.ResourceURL {
			s.fail(w, r, 400, "invalid_target", "resource must be "+s.ResourceURL)
			return
		}
		s.issueAccess(w, r, c, strings.Fields(f.Get("scope")), f.Get("resource"), "", false)
	default:
		s.fail(w, r, 400, "unsupported_grant_type", f.Get("grant_type"))
	}
}

// assertion checks an RFC 7523 client assertion: its type, signature,
// issuer and subject (the client), audience (this server), expiry, and that
// its jti was not seen before (§3, replay).
func (s *Server) assertion(r *http.Request) (*Client, string) {
	f := r.PostForm
	if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return nil, "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	}
	var claims jwt.RegisteredClaims
	var client *Client
	_, err := jwt.ParseWithClaims(f.Get("client_assertion"), &claims, func(t *jwt.Token) (any, error) {
		iss, _ := t.Claims.GetIssuer()
		client = s.clients[iss]
		if client == nil || client.PublicKey == nil {
			return nil, fmt.Errorf("unknown client %q", iss)
		}
		return client.PublicKey, nil
	}, jwt.WithAudience(s.URL), jwt.WithExpirationRequired(), jwt.WithValidMethods([]string{"ES256", "ES384", "RS256", "EdDSA"}))
	switch {
	case err != nil:
		return nil, "client_assertion: " + err.Error()
	case claims.Subject != client.ID:
		return nil, "client_assertion: sub must be the client_id"
	case claims.ID == "" || s.jtis[claims.ID]:
		return nil, "client_assertion: jti missing or replayed"
	case f.Get("client_id") != "" && f.Get("client_id") != client.ID:
		return nil, "client_id differs from the assertion's issuer"
	}
	if s.jtis == nil {
		s.jtis = map[string]bool{}
	}
	s.jtis[claims.ID] = true
	return client, ""
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Server) issue(w http.ResponseWriter, r *http.Request, c *Client, scopes []string, resource, fromCode string) {
	s.issueAccess(w, r, c, scopes, resource, fromCode, true)
}

func (s *Server) issueAccess(w http.ResponseWriter, r *http.Request, c *Client, scopes []string, resource, fromCode string, withRefresh bool) {
	ttl, rttl := s.AccessTTL, s.RefreshTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	if rttl == 0 {
		rttl = 24 * time.Hour
	}
	scopes = slices.DeleteFunc(slices.Clone(scopes), func(sc string) bool { return slices.Contains(s.Withhold, sc) })
	at := "at-" + random()
	s.issued = append(s.issued, at)
	jkt := s.dpop.jkt
	s.access[at] = &grant{client: c.ID, resource: resource, scopes: scopes, expires: time.Now().Add(ttl), fromCode: fromCode, jkt: jkt}
	typ := "Bearer"
	if jkt != "" {
		typ = "DPoP"
	}
	out := map[string]any{"access_token": at, "token_type": typ, "expires_in": int(ttl.Seconds()), "scope": strings.Join(scopes, " ")}
	if withRefresh {
		rt := "rt-" + random()
		s.issued = append(s.issued, rt)
		s.refresh[rt] = &grant{client: c.ID, resource: resource, scopes: scopes, expires: time.Now().Add(rttl), fromCode: fromCode, jkt: jkt}
		out["refresh_token"] = rt
	}
	s.record(r, 200, "")
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, 200, out)
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, code, desc string) {
	s.record(r, status, code)
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
