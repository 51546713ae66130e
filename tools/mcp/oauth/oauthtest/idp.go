package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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

// The URNs of the cross-app access exchange (RFC 8693, RFC 7523, the
// Identity Assertion JWT Authorization Grant draft).
const (
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	GrantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	// TypeIDJAG is the JWT typ header an ID-JAG carries.
	TypeIDJAG = "oauth-id-jag+jwt"
)

// IdP is a strict fake of an enterprise identity provider for cross-app
// access: it issues ID tokens to its clients and exchanges them (RFC 8693)
// for ID-JAGs, refusing as the MCP Enterprise-Managed Authorization
// extension says — a missing parameter (invalid_request), a subject token
// it did not sign, one expired or issued to another client than the one
// authenticating (invalid_grant), a client it does not know
// (invalid_client), and a resource its policy does not grant
// (invalid_target, RFC 8693 §2.2.2).
type IdP struct {
	// URL is the issuer.
	URL string
	// Clients are the agent's clients at the IdP: client_id → secret
	// ("" for a public client).
	Clients map[string]string
	// ClientAtAS maps an IdP client to the client_id it has at the MCP
	// server's authorization server, which the ID-JAG carries.
	ClientAtAS map[string]string
	// Allowed are the resources the IdP's policy grants (nil: any).
	Allowed []string

	// IDTokenTTL is the life of the ID tokens it signs in with (default 1 h).
	IDTokenTTL time.Duration
	signIns    int

	codes     map[string]idpCode
	refresh   map[string]string // refresh token → client
	key       *ecdsa.PrivateKey
	srv       *httptest.Server
	mu        sync.Mutex
	log       []string
	exchanged []string
}

// NewIdP starts a fake IdP closed with the test.
func NewIdP(t testing.TB) *IdP {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := &IdP{key: key, Clients: map[string]string{}, ClientAtAS: map[string]string{}, codes: map[string]idpCode{}, refresh: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.metadata)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /authorize", p.authorize)
	p.srv = httptest.NewServer(mux)
	p.URL = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

// PublicKey verifies what the IdP signs (the authorization server's trust).
func (p *IdP) PublicKey() any { return &p.key.PublicKey }

// IDToken signs an ID token for user, issued to the IdP client aud,
// valid for ttl (negative: already expired).
func (p *IdP) IDToken(t testing.TB, user, aud string, ttl time.Duration) string {
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
		Issuer: p.URL, Subject: user, Audience: jwt.ClaimStrings{aud},
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}).SignedString(p.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Log lists the token requests answered, as "status error".
func (p *IdP) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

// SignIns counts the sign-ins through /authorize.
func (p *IdP) SignIns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.signIns
}

// Exchanged lists the ID-JAGs issued.
func (p *IdP) Exchanged() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.exchanged)
}

func (p *IdP) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize", "token_endpoint": p.URL + "/token",
		"jwks_uri": p.URL + "/jwks", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"ES256"},
		"grant_types_supported":                 []string{"authorization_code", GrantTokenExchange},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
	})
}

func (p *IdP) fail(w http.ResponseWriter, status int, code, desc string) {
	p.log = append(p.log, code+": "+desc)
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (p *IdP) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := r.ParseForm(); err != nil {
		p.fail(w, 400, "invalid_request", "the body is not a form")
		return
	}
	f := r.PostForm
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = f.Get("client_id"), f.Get("client_secret")
	}
	want, known := p.Clients[id]
	if !known || secret != want {
		p.fail(w, 401, "invalid_client", "unknown client or wrong secret")
		return
	}
	switch f.Get("grant_type") {
	case GrantTokenExchange:
	case "authorization_code", "refresh_token":
		p.signIn(w, id, f)
		return
	default:
		p.fail(w, 400, "unsupported_grant_type", f.Get("grant_type"))
		return
	}
	var missing []string
	for _, k := range []string{"subject_token", "audience", "resource"} {
		if f.Get(k) == "" {
			missing = append(missing, k)
		}
	}
	if f.Get("subject_token_type") != TokenTypeIDToken {
		missing = append(missing, "subject_token_type "+TokenTypeIDToken)
	}
	if f.Get("requested_token_type") != TokenTypeIDJAG {
		missing = append(missing, "requested_token_type "+TokenTypeIDJAG)
	}
	if len(missing) > 0 {
		p.fail(w, 400, "invalid_request", "missing or wrong: "+strings.Join(missing, ", "))
		return
	}
	var sub jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(f.Get("subject_token"), &sub, func(*jwt.Token) (any, error) { return &p.key.PublicKey, nil },
		jwt.WithIssuer(p.URL), jwt.WithExpirationRequired(), jwt.WithValidMethods([]string{"ES256"}))
	switch {
	case err != nil:
		p.fail(w, 400, "invalid_grant", "subject_token: "+err.Error())
		return
	case !slices.Contains(sub.Audience, id):
		// The extension's §4.1: the ID token's audience is the client
		// making the exchange.
		p.fail(w, 400, "invalid_grant", "subject_token was issued to another client")
		return
	case p.Allowed != nil && !slices.Contains(p.Allowed, f.Get("resource")):
		p.fail(w, 400, "invalid_target", "the policy grants no access to "+f.Get("resource"))
		return
	}
	jti := make([]byte, 12)
	_, _ = rand.Read(jti)
	claims := jwt.MapClaims{
		"iss": p.URL, "sub": sub.Subject, "aud": f.Get("audience"), "resource": f.Get("resource"),
		"client_id": p.ClientAtAS[id], "jti": url.QueryEscape(string(jti)),
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	}
	if sc := f.Get("scope"); sc != "" {
		claims["scope"] = sc
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["typ"] = TypeIDJAG
	jag, err := tok.SignedString(p.key)
	if err != nil {
		p.fail(w, 500, "server_error", err.Error())
		return
	}
	p.exchanged = append(p.exchanged, jag)
	p.log = append(p.log, "200")
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, 200, map[string]any{"access_token": jag, "issued_token_type": TokenTypeIDJAG, "token_type": "N_A", "expires_in": 300})
}

// jwtBearer redeems an ID-JAG (RFC 7523 §2.1, the extension's §5.1): typ
// oauth-id-jag+jwt, signed by the trusted IdP, audience this issuer, its
// client_id the authenticating client, its resource this server, not
// expired, not replayed. mu is held.
func (s *Server) jwtBearer(w http.ResponseWriter, r *http.Request, c *Client) {
	f := r.PostForm
	if s.IdP == nil {
		s.fail(w, r, 400, "unsupported_grant_type", GrantJWTBearer)
		return
	}
	var claims struct {
		jwt.RegisteredClaims
		ClientID string `json:"client_id"`
		Resource string `json:"resource"`
		Scope    string `json:"scope"`
	}
	tok, err := jwt.ParseWithClaims(f.Get("assertion"), &claims, func(*jwt.Token) (any, error) { return s.IdP.PublicKey(), nil },
		jwt.WithIssuer(s.IdP.URL), jwt.WithAudience(s.URL), jwt.WithExpirationRequired(), jwt.WithValidMethods([]string{"ES256"}))
	switch {
	case f.Get("assertion") == "":
		s.fail(w, r, 400, "invalid_request", "assertion is missing")
	case err != nil:
		s.fail(w, r, 400, "invalid_grant", "assertion: "+err.Error())
	case tok.Header["typ"] != TypeIDJAG:
		s.fail(w, r, 400, "invalid_grant", "assertion: typ must be "+TypeIDJAG)
	case claims.ClientID != c.ID:
		s.fail(w, r, 400, "invalid_grant", "the ID-JAG was issued to another client")
	case claims.Resource != s.ResourceURL:
		s.fail(w, r, 400, "invalid_target", "the ID-JAG is for another resource")
	case f.Get("resource") != "" && f.Get("resource") != s.ResourceURL:
		s.fail(w, r, 400, "invalid_target", "resource must be "+s.ResourceURL)
	case claims.ID == "" || s.jtis[claims.ID]:
		s.fail(w, r, 400, "invalid_grant", "the ID-JAG's jti is missing or replayed")
	default:
		if s.jtis == nil {
			s.jtis = map[string]bool{}
		}
		s.jtis[claims.ID] = true
		scopes := strings.Fields(f.Get("scope"))
		if len(scopes) == 0 {
			scopes = strings.Fields(claims.Scope)
		}
		s.issueAccess(w, r, c, scopes, s.ResourceURL, "", false)
	}
}

// idpCode is what an authorization code of the IdP stands for.
type idpCode struct{ client, redirect, challenge, nonce string }

// authorize signs "alice" in at once (OpenID Connect, code flow with PKCE
// S256 and a loopback redirect), as a user who is already signed in.
func (p *IdP) authorize(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	_, known := p.Clients[q.Get("client_id")]
	switch {
	case !known:
		p.fail(w, 400, "invalid_client", "unknown client")
	case err != nil || redirect.Hostname() != "127.0.0.1":
		p.fail(w, 400, "invalid_request", "redirect_uri must be a loopback URL")
	case q.Get("response_type") != "code" || !slices.Contains(strings.Fields(q.Get("scope")), "openid"):
		p.fail(w, 400, "invalid_request", "an OpenID Connect code request needs response_type=code and scope openid")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		p.fail(w, 400, "invalid_request", "PKCE S256 is required")
	default:
		p.signIns++
		code := random()
		p.codes[code] = idpCode{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), nonce: q.Get("nonce")}
		v := redirect.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		redirect.RawQuery = v.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	}
}

// signIn answers the code and refresh grants with an ID token (and a
// rotated refresh token). mu is held.
func (p *IdP) signIn(w http.ResponseWriter, client string, f url.Values) {
	nonce := ""
	if f.Get("grant_type") == "authorization_code" {
		c, ok := p.codes[f.Get("code")]
		delete(p.codes, f.Get("code")) // used once
		switch {
		case !ok || c.client != client:
			p.fail(w, 400, "invalid_grant", "unknown or used code")
			return
		case c.redirect != f.Get("redirect_uri"):
			p.fail(w, 400, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case s256(f.Get("code_verifier")) != c.challenge:
			p.fail(w, 400, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		}
		nonce = c.nonce
	} else {
		if p.refresh[f.Get("refresh_token")] != client {
			p.fail(w, 400, "invalid_grant", "unknown refresh token")
			return
		}
		delete(p.refresh, f.Get("refresh_token"))
	}
	ttl := p.IDTokenTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	claims := jwt.MapClaims{"iss": p.URL, "sub": "alice", "aud": client, "iat": time.Now().Unix(), "exp": time.Now().Add(ttl).Unix()}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	id, err := jwt.NewWithClaims(jwt.SigningMethodES256, claims).SignedString(p.key)
	if err != nil {
		p.fail(w, 500, "server_error", err.Error())
		return
	}
	rt := "idp-rt-" + random()
	p.refresh[rt] = client
	p.log = append(p.log, "200 "+f.Get("grant_type"))
	writeJSON(w, 200, map[string]any{"access_token": "idp-at-" + random(), "token_type": "Bearer", "expires_in": 3600,
		"id_token": id, "refresh_token": rt, "scope": "openid"})
}
